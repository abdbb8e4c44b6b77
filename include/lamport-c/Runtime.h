/*===- Runtime.h - C API: run a bundle over caller-owned buffers --*- C -*-===*\
|*                                                                            *|
|* Part of the Lamport project.                                               *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
/*
 * The runtime for C clients and bindings (the Python package): bring a
 * bundle's TP group up on GPUs, bind every rank's buffer arguments to
 * device pointers the caller owns (or allocates here), and run decode steps.
 * The runtime owns the mailboxes. libLamportRuntimeC.so needs neither MLIR
 * nor a link-time libcuda: it opens the driver when a runtime is created.
 *
 * Every entry point that can fail returns a LamportStatus and, on failure,
 * calls `errorCallback` (when not null) once with the complete message: what
 * failed and on which rank, argument, mailbox or kernel.
 *
 * Streams: a step runs on the runtime's own streams and returns when every
 * rank's kernels have finished. Work a caller queued on other streams (a
 * PyTorch producer) must be complete before the step: synchronize first.
 */

#ifndef LAMPORT_C_RUNTIME_H
#define LAMPORT_C_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define LAMPORT_RUNTIME_EXPORTED __declspec(dllexport)
#else
#define LAMPORT_RUNTIME_EXPORTED __attribute__((visibility("default")))
#endif

typedef enum {
  LAMPORT_STATUS_OK = 0,
  /** Bad input: the bundle, an argument, a binding, the token count. */
  LAMPORT_STATUS_ERROR = 1,
  /** No CUDA driver or no device: nothing can run on this machine. */
  LAMPORT_STATUS_NO_DEVICE = 2,
  /** The GPU failed (a poll's timeout trap among them). The context is lost:
      destroy the runtime, it runs no more steps. */
  LAMPORT_STATUS_KERNEL_FAILURE = 3,
} LamportStatus;

/** Receives the message of a failure (`length` bytes, also NUL-ended). */
typedef void (*LamportErrorCallback)(const char *message, size_t length,
                                     void *userData);

/** One TP group of one bundle, brought up. */
typedef struct LamportRuntime_ *LamportRuntime;

/** Loads the bundle directory `bundle` and brings up `tp` ranks with
    `transport`: "loopback" (every rank on device `firstDevice`) or "peer"
    (rank r on device firstDevice + r). `pdl` nonzero launches kernels whose
    manifest says pdl with programmatic stream serialization. */
LAMPORT_RUNTIME_EXPORTED LamportStatus
lamportRuntimeCreate(const char *bundle, int tp, const char *transport,
                     int firstDevice, int pdl, LamportRuntime *runtime,
                     LamportErrorCallback errorCallback, void *userData);

/** Frees the runtime, its mailboxes and what it allocated. Null is a no-op. */
LAMPORT_RUNTIME_EXPORTED void lamportRuntimeDestroy(LamportRuntime runtime);

/** The CUDA device ordinal rank `rank` runs on. */
LAMPORT_RUNTIME_EXPORTED LamportStatus
lamportRuntimeGetDevice(LamportRuntime runtime, int rank, int *device,
                        LamportErrorCallback errorCallback, void *userData);

/** Binds buffer argument `argument` (its index in the manifest) of rank
    `rank` to `pointer` (a device address on that rank's GPU, 16-byte
    aligned) holding `bytes`. Rebinding replaces the binding. */
LAMPORT_RUNTIME_EXPORTED LamportStatus lamportRuntimeBind(
    LamportRuntime runtime, int rank, int argument, uint64_t pointer,
    uint64_t bytes, LamportErrorCallback errorCallback, void *userData);

/** Allocates `bytes` on rank `rank`'s GPU, freed with the runtime. */
LAMPORT_RUNTIME_EXPORTED LamportStatus lamportRuntimeAllocate(
    LamportRuntime runtime, int rank, uint64_t bytes, uint64_t *pointer,
    LamportErrorCallback errorCallback, void *userData);

/** Copies `bytes` from host `from` to device `to` on rank `rank`'s GPU. */
LAMPORT_RUNTIME_EXPORTED LamportStatus lamportRuntimeUpload(
    LamportRuntime runtime, int rank, uint64_t to, const void *from,
    uint64_t bytes, LamportErrorCallback errorCallback, void *userData);

/** Copies `bytes` from device `from` on rank `rank`'s GPU to host `to`. */
LAMPORT_RUNTIME_EXPORTED LamportStatus lamportRuntimeDownload(
    LamportRuntime runtime, int rank, void *to, uint64_t from, uint64_t bytes,
    LamportErrorCallback errorCallback, void *userData);

/** Runs one decode step of `tokens` tokens (1..capacity) on every rank and
    waits for it, at most `watchdogSeconds` (a host watchdog; the kernels'
    own poll timeouts trap sooner). Every buffer argument of every rank must
    be bound to at least the bytes the step needs. */
LAMPORT_RUNTIME_EXPORTED LamportStatus
lamportRuntimeStep(LamportRuntime runtime, int tokens, double watchdogSeconds,
                   LamportErrorCallback errorCallback, void *userData);

/** Sets how long each poll of the runtime's kernels waits after its first
    miss before it traps: `timeoutNs` (at most INT64_MAX), or with 0 each
    poll's compiled timeout again (the manifest's `timeout_ns`). It reaches
    the bundle's kernels on every rank before it returns, and the kernel
    images a host-lowered program launches (include/lamport-c/HostRuntime.h):
    those loaded so far before their next launches, those loaded later as
    they load. Call it between steps; a CUDA graph another stream of the
    process is capturing meanwhile goes on (the writes go on a stream of
    their own, in the relaxed capture mode). A bundle compiled before the
    override gives an error naming its polling kernel; a host-lowered image
    without it (one without polls) is left as it is. The watchdog of the
    steps should exceed it. */
LAMPORT_RUNTIME_EXPORTED LamportStatus lamportRuntimeSetPollTimeout(
    LamportRuntime runtime, uint64_t timeoutNs,
    LamportErrorCallback errorCallback, void *userData);

#ifdef __cplusplus
}
#endif

#endif /* LAMPORT_C_RUNTIME_H */
