/*===- RuntimeRank.h - C API: one rank of a TP group per process -*- C -*-===*\
|*                                                                            *|
|* Part of the Lamport project.                                               *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
/*
 * For serving processes that run one rank per process (one per GPU, or
 * several on one GPU under MPS): open one rank of a bundle's TP group,
 * meeting the other ranks' processes through a rendezvous store, and enqueue
 * decode steps on the caller's stream over the caller's buffers. A step
 * returns without waiting and synchronises nothing but that stream's order,
 * so it may be captured into a CUDA graph (the stage words a replay needs
 * live on the device). In libLamportRuntimeC.so, beside lamport-c/Runtime.h,
 * whose status codes and error callback it shares.
 */

#ifndef LAMPORT_C_RUNTIMERANK_H
#define LAMPORT_C_RUNTIMERANK_H

#include "lamport-c/Runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One rank of a TP group, opened in this process. */
typedef struct LamportRank_ *LamportRank;

/** Element types, as the manifest names them. */
typedef enum {
  LAMPORT_DTYPE_BF16 = 0,
  LAMPORT_DTYPE_F32 = 1,
  LAMPORT_DTYPE_I32 = 2,
} LamportDType;

/** A caller's buffer for one argument of the program: a device pointer on
    the rank's GPU, its element type, and its shape; `strides` (elements, one
    per dimension) may be null for a row-major contiguous buffer and must
    otherwise describe one. */
typedef struct {
  uint64_t pointer;
  int dtype;
  int ndim;
  const int64_t *shape;
  const int64_t *strides;
} LamportBuffer;

/** Opens rank `rank` of the `tp`-rank group of the bundle directory `bundle`
    on CUDA device `device`: loads its kernels, meets the other ranks at
    `rendezvous` ("tcp://HOST:PORT", rank 0 serving it, or "file://DIR"),
    waiting at most `rendezvousSeconds`, allocates its mailbox copies and
    maps every other rank's. `pdl` nonzero launches kernels whose manifest
    says pdl with programmatic stream serialization. A rank that never comes
    fails the others within `rendezvousSeconds`, naming it. */
LAMPORT_RUNTIME_EXPORTED LamportStatus lamportRankCreate(
    const char *bundle, int rank, int tp, int device, const char *rendezvous,
    double rendezvousSeconds, int pdl, LamportRank *result,
    LamportErrorCallback errorCallback, void *userData);

/** lamportRankCreate with a choice of `transport`: "mailbox" (what
    lamportRankCreate opens: the compiled kernels over mailbox copies shared
    between the rank processes) or "nccl" (each publish_rows + all_reduce
    pair of the program as one ncclAllReduce on a communicator bootstrapped
    through the same rendezvous, every other kernel as compiled; it needs
    libnccl.so.2 at run time, runs only programs of that unfused form, and
    sums in NCCL's order). Null is "mailbox"; any other name is an error. */
LAMPORT_RUNTIME_EXPORTED LamportStatus lamportRankCreateWithTransport(
    const char *bundle, int rank, int tp, int device, const char *rendezvous,
    double rendezvousSeconds, int pdl, const char *transport,
    LamportRank *result, LamportErrorCallback errorCallback, void *userData);
/** Releases the rank: its mapped copies, modules and context. Null is a
    no-op. Work still queued on a caller's stream must be complete. */
LAMPORT_RUNTIME_EXPORTED void lamportRankDestroy(LamportRank rank);

/** The number of arguments of the program: a step takes this many buffers
    (a mailbox argument's entry is ignored). */
LAMPORT_RUNTIME_EXPORTED LamportStatus
lamportRankGetArgumentCount(LamportRank rank, int *count,
                            LamportErrorCallback errorCallback, void *userData);

/** Enqueues one decode step of `tokens` tokens (1..capacity) on `stream` (a
    CUstream of the device's primary context; null is its legacy default
    stream) over `buffers[0..count)`, one per argument in the manifest's
    order. Each buffer is checked first (pointer, 16-byte alignment, dtype,
    shape, contiguity), with an error naming the rank and the argument.
    Returns without waiting. */
LAMPORT_RUNTIME_EXPORTED LamportStatus lamportRankStep(
    LamportRank rank, void *stream, int tokens, const LamportBuffer *buffers,
    int count, LamportErrorCallback errorCallback, void *userData);

/** Waits for everything on `stream`, at most `watchdogSeconds`. A poll that
    timed out (another rank never published: it died or diverged) gives
    LAMPORT_STATUS_KERNEL_FAILURE with a message naming that rank. */
LAMPORT_RUNTIME_EXPORTED LamportStatus
lamportRankWait(LamportRank rank, void *stream, double watchdogSeconds,
                LamportErrorCallback errorCallback, void *userData);

/** Sets how long each poll of the rank's kernels waits after its first miss
    before it traps: `timeoutNs` (at most INT64_MAX), or with 0 each poll's
    compiled timeout again (the manifest's `timeout_ns`). The write is
    enqueued on `stream` (null: the legacy default stream), so the steps
    enqueued after it there see it, as do replays of CUDA graphs captured
    before; call it between steps, outside a capture (e.g. a long timeout
    for a first step that waits out the other ranks' warm-up, a short one
    after). A bundle compiled before the override gives an error naming its
    polling kernel, and so does a call while `stream` captures a CUDA graph
    (nothing is enqueued; the capture goes on). The watchdog given to
    lamportRankWait should exceed it. */
LAMPORT_RUNTIME_EXPORTED LamportStatus
lamportRankSetPollTimeout(LamportRank rank, void *stream, uint64_t timeoutNs,
                          LamportErrorCallback errorCallback, void *userData);

#ifdef __cplusplus
}
#endif

#endif /* LAMPORT_C_RUNTIMERANK_H */
