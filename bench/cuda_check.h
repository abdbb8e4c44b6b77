//===- cuda_check.h - A plain CUDA bench tool's errors ----------*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// The error path the plain CUDA tools of bench/ share (lamport-stream-floor,
// lamport-pdl-depth, lamport-handover-chain): a message naming the tool,
// the call and what it was for, then the tool's exit status; and their
// integer arguments. Each tool defines kToolName.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_BENCH_CUDA_CHECK_H
#define LAMPORT_BENCH_CUDA_CHECK_H

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace lamport::bench {

/// The tool's name, the first word of its messages.
extern const char *const kToolName;

/// Prints "TOOL: MESSAGE" and exits with `status`.
[[noreturn]] inline void fail(const std::string &message, int status) {
  std::fprintf(stderr, "%s: %s\n", kToolName, message.c_str());
  std::exit(status);
}

/// Fails with status 1 where a CUDA call did not succeed, naming the call,
/// CUDA's reason and `what` it was for.
inline void check(cudaError_t error, const char *call,
                  const std::string &what) {
  if (error != cudaSuccess)
    fail(std::string(call) + " failed: " + cudaGetErrorString(error) + " (" +
             what + ")",
         1);
}

/// `text` as an integer in [least, most]; else fails with status 2, naming
/// `flag` and the range.
inline int parseCount(const char *flag, const char *text, int least, int most) {
  char *end = nullptr;
  long value = std::strtol(text, &end, 10);
  if (!*text || *end || value < least || value > most)
    fail(std::string(flag) + " takes an integer in [" + std::to_string(least) +
             ", " + std::to_string(most) + "], not '" + text + "'",
         2);
  return int(value);
}

} // namespace lamport::bench

#define CHECK(call, what) ::lamport::bench::check((call), #call, (what))

#endif // LAMPORT_BENCH_CUDA_CHECK_H
