//===- RuntimeHandle.h - What a LamportRuntime handle holds -----*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// The object behind the C API's LamportRuntime, and the one way its entry
// points turn C++ exceptions into a status and a message; shared by
// Runtime.cpp (bundles) and HostRuntime.cpp (host-lowered programs).
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_LIB_RUNTIME_CAPI_RUNTIMEHANDLE_H
#define LAMPORT_LIB_RUNTIME_CAPI_RUNTIMEHANDLE_H

#include "lamport-c/Runtime.h"

#include "HostLaunches.h"
#include "lamport/Runtime/StepRunner.h"

#include <memory>
#include <new>
#include <string>

struct LamportRuntime_ {
  std::unique_ptr<lamport::runtime::StepRunner> runner;
  /// What host-lowered programs reach (made at the first use); destroyed
  /// before the runner, whose session its modules live in.
  std::unique_ptr<lamport::runtime::HostLaunches> host;
};

namespace lamport {
namespace runtime {

inline void reportError(LamportErrorCallback callback, void *userData,
                        const std::string &message) {
  if (callback)
    callback(message.c_str(), message.size(), userData);
}

/// Runs \p body, turning what it throws into a status and a message.
template <typename Body>
LamportStatus guarded(LamportErrorCallback callback, void *userData,
                      Body &&body) {
  try {
    body();
    return LAMPORT_STATUS_OK;
  } catch (const NoDeviceError &error) {
    reportError(callback, userData, error.what());
    return LAMPORT_STATUS_NO_DEVICE;
  } catch (const KernelFailure &error) {
    reportError(callback, userData, error.what());
    return LAMPORT_STATUS_KERNEL_FAILURE;
  } catch (const std::bad_alloc &) {
    reportError(callback, userData, "out of host memory");
    return LAMPORT_STATUS_ERROR;
  } catch (const std::exception &error) {
    reportError(callback, userData, error.what());
    return LAMPORT_STATUS_ERROR;
  }
}

/// A null runtime handle is a caller bug worth a sentence, not a crash.
inline StepRunner &runnerOf(LamportRuntime runtime) {
  if (!runtime || !runtime->runner)
    throw Error("the runtime handle is null (not created, or creation "
                "failed)");
  return *runtime->runner;
}

/// A null result pointer is a caller bug worth a sentence, not a crash.
inline void requireResult(const void *result, const char *function) {
  if (!result)
    throw Error(concat(function, ": the result pointer is null"));
}

/// The host side of a copy: null only for a copy of no bytes.
inline void requireHostBuffer(const void *host, uint64_t bytes,
                              const char *function) {
  if (!host && bytes)
    throw Error(
        concat(function, ": the host pointer is null, for ", bytes, " bytes"));
}

/// A wait's watchdog: a positive number of seconds (NaN is refused too).
inline void requireWatchdog(double seconds) {
  if (!(seconds > 0))
    throw Error(concat("the watchdog must be a positive number of seconds, "
                       "got ",
                       seconds));
}

/// "loopback" or "peer"; multicast and anything else are refused.
TransportKind parseTransport(const char *transport);

} // namespace runtime
} // namespace lamport

#endif // LAMPORT_LIB_RUNTIME_CAPI_RUNTIMEHANDLE_H
