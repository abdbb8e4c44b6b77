//===- Error.h - Errors of the Lamport runtime ------------------*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// The runtime reports every failure as an exception carrying a complete
// sentence: what failed, on which rank, mailbox, kernel or CUDA call, and why.
// A caller prints what() and exits; nothing is ever reported as a bare code.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_RUNTIME_ERROR_H
#define LAMPORT_RUNTIME_ERROR_H

#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

namespace lamport {
namespace runtime {

/// Any runtime failure: a bad bundle, a device that cannot run it, a failed
/// CUDA call, a wrong result.
class Error : public std::runtime_error {
public:
  explicit Error(const std::string &message) : std::runtime_error(message) {}
};

/// No CUDA driver or no CUDA device: the GPU part cannot start at all. Kept
/// apart so a tool can say "no GPU" instead of reporting a failure.
class NoDeviceError : public Error {
public:
  explicit NoDeviceError(const std::string &message) : Error(message) {}
};

/// Bad command-line usage; the tool prints the usage line after it.
class UsageError : public Error {
public:
  explicit UsageError(const std::string &message) : Error(message) {}
};

/// Concatenates anything streamable into one string (the messages above).
template <typename... Parts> std::string concat(Parts &&...parts) {
  std::ostringstream os;
  (os << ... << std::forward<Parts>(parts));
  return os.str();
}

} // namespace runtime
} // namespace lamport

#endif // LAMPORT_RUNTIME_ERROR_H
