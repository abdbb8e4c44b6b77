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

#include "lamport/Runtime/StepRunner.h"

#include <cstring>
#include <new>

using namespace lamport::runtime;

struct LamportRuntime_ {
  std::unique_ptr<StepRunner> runner;
};

namespace {

void report(LamportErrorCallback callback, void *userData,
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
    report(callback, userData, error.what());
    return LAMPORT_STATUS_NO_DEVICE;
  } catch (const KernelFailure &error) {
    report(callback, userData, error.what());
    return LAMPORT_STATUS_KERNEL_FAILURE;
  } catch (const std::bad_alloc &) {
    report(callback, userData, "out of host memory");
    return LAMPORT_STATUS_ERROR;
  } catch (const std::exception &error) {
    report(callback, userData, error.what());
    return LAMPORT_STATUS_ERROR;
  }
}

/// A null runtime handle is a caller bug worth a sentence, not a crash.
StepRunner &runnerOf(LamportRuntime runtime) {
  if (!runtime || !runtime->runner)
    throw Error("the runtime handle is null (not created, or creation "
                "failed)");
  return *runtime->runner;
}

} // namespace

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
    if (std::strcmp(transport, "loopback") == 0)
      config.transport = TransportKind::Loopback;
    else if (std::strcmp(transport, "peer") == 0)
      config.transport = TransportKind::Peer;
    else
      throw Error(concat("unknown transport '", transport,
                         "' (expected 'loopback' or 'peer'; multicast is "
                         "refused, see docs/runtime.md)"));
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
  return guarded(errorCallback, userData,
                 [&] { *device = runnerOf(runtime).deviceOf(rank); });
}

LamportStatus lamportRuntimeBind(LamportRuntime runtime, int rank,
                                 int argument, uint64_t pointer,
                                 uint64_t bytes,
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
    *pointer = runnerOf(runtime).allocate(rank, std::size_t(bytes));
  });
}

LamportStatus lamportRuntimeUpload(LamportRuntime runtime, int rank,
                                   uint64_t to, const void *from,
                                   uint64_t bytes,
                                   LamportErrorCallback errorCallback,
                                   void *userData) {
  return guarded(errorCallback, userData, [&] {
    runnerOf(runtime).upload(rank, CUdeviceptr(to), from, std::size_t(bytes));
  });
}

LamportStatus lamportRuntimeDownload(LamportRuntime runtime, int rank,
                                     void *to, uint64_t from, uint64_t bytes,
                                     LamportErrorCallback errorCallback,
                                     void *userData) {
  return guarded(errorCallback, userData, [&] {
    runnerOf(runtime).download(rank, to, CUdeviceptr(from),
                               std::size_t(bytes));
  });
}

LamportStatus lamportRuntimeStep(LamportRuntime runtime, int tokens,
                                 double watchdogSeconds,
                                 LamportErrorCallback errorCallback,
                                 void *userData) {
  return guarded(errorCallback, userData, [&] {
    if (!(watchdogSeconds > 0))
      throw Error(concat("the watchdog must be a positive number of seconds, "
                         "got ",
                         watchdogSeconds));
    runnerOf(runtime).step(tokens, watchdogSeconds);
  });
}
