//===- Runtime.cpp - C API: run a bundle over caller-owned buffers --------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// include/lamport-c/Runtime.h over StepRunner: every C++ exception becomes
// a status and one call of the error callback with its message.
//
//===----------------------------------------------------------------------===//

#include "lamport-c/Runtime.h"

#include "RuntimeHandle.h"

#include <cstring>

using namespace lamport::runtime;

namespace lamport {
namespace runtime {

TransportKind parseTransport(const char *transport) {
  if (std::strcmp(transport, "loopback") == 0)
    return TransportKind::Loopback;
  if (std::strcmp(transport, "peer") == 0)
    return TransportKind::Peer;
  throw Error(concat("unknown transport '", transport,
                     "' (expected 'loopback' or 'peer'; multicast is "
                     "refused, see docs/runtime.md)"));
}

} // namespace runtime
} // namespace lamport

LamportStatus lamportRuntimeCreate(const char *bundle, int tp,
                                   const char *transport, int firstDevice,
                                   int pdl, LamportRuntime *runtime,
                                   LamportErrorCallback errorCallback,
                                   void *userData) {
  return guarded(errorCallback, userData, [&] {
    if (!runtime)
      throw Error("lamportRuntimeCreate: the result pointer is null");
    *runtime = nullptr;
    if (!bundle || !transport)
      throw Error("lamportRuntimeCreate: the bundle path and the transport "
                  "must not be null");
    SessionConfig config;
    config.tp = tp;
    if (tp < 1)
      throw Error(concat("tp must be positive, got ", tp));
    if (firstDevice < 0)
      throw Error(concat("the first device must be >= 0, got ", firstDevice));
    config.transport = parseTransport(transport);
    config.firstDevice = firstDevice;
    config.pdl = pdl != 0;
    auto handle = std::make_unique<LamportRuntime_>();
    handle->runner = std::make_unique<StepRunner>(bundle, config);
    *runtime = handle.release();
  });
}

void lamportRuntimeDestroy(LamportRuntime runtime) { delete runtime; }

LamportStatus lamportRuntimeGetDevice(LamportRuntime runtime, int rank,
                                      int *device,
                                      LamportErrorCallback errorCallback,
                                      void *userData) {
  return guarded(errorCallback, userData, [&] {
    requireResult(device, "lamportRuntimeGetDevice");
    *device = runnerOf(runtime).deviceOf(rank);
  });
}

LamportStatus lamportRuntimeBind(LamportRuntime runtime, int rank, int argument,
                                 uint64_t pointer, uint64_t bytes,
                                 LamportErrorCallback errorCallback,
                                 void *userData) {
  return guarded(errorCallback, userData, [&] {
    runnerOf(runtime).bind(rank, argument, CUdeviceptr(pointer),
                           std::size_t(bytes));
  });
}

LamportStatus lamportRuntimeAllocate(LamportRuntime runtime, int rank,
                                     uint64_t bytes, uint64_t *pointer,
                                     LamportErrorCallback errorCallback,
                                     void *userData) {
  return guarded(errorCallback, userData, [&] {
    requireResult(pointer, "lamportRuntimeAllocate");
    *pointer = runnerOf(runtime).allocate(rank, std::size_t(bytes));
  });
}

LamportStatus lamportRuntimeUpload(LamportRuntime runtime, int rank,
                                   uint64_t to, const void *from,
                                   uint64_t bytes,
                                   LamportErrorCallback errorCallback,
                                   void *userData) {
  return guarded(errorCallback, userData, [&] {
    requireHostBuffer(from, bytes, "lamportRuntimeUpload");
    runnerOf(runtime).upload(rank, CUdeviceptr(to), from, std::size_t(bytes));
  });
}

LamportStatus lamportRuntimeDownload(LamportRuntime runtime, int rank, void *to,
                                     uint64_t from, uint64_t bytes,
                                     LamportErrorCallback errorCallback,
                                     void *userData) {
  return guarded(errorCallback, userData, [&] {
    requireHostBuffer(to, bytes, "lamportRuntimeDownload");
    runnerOf(runtime).download(rank, to, CUdeviceptr(from), std::size_t(bytes));
  });
}

LamportStatus lamportRuntimeStep(LamportRuntime runtime, int tokens,
                                 double watchdogSeconds,
                                 LamportErrorCallback errorCallback,
                                 void *userData) {
  return guarded(errorCallback, userData, [&] {
    requireWatchdog(watchdogSeconds);
    runnerOf(runtime).step(tokens, watchdogSeconds);
  });
}

LamportStatus lamportRuntimeSetPollTimeout(LamportRuntime runtime,
                                           uint64_t timeoutNs,
                                           LamportErrorCallback errorCallback,
                                           void *userData) {
  return guarded(errorCallback, userData, [&] {
    runnerOf(runtime).getSession().setPollTimeout(timeoutNs);
    if (runtime->host)
      runtime->host->applyPollTimeout();
  });
}
