/*===- HostRuntime.h - C API: what host-lowered programs call -----*- C -*-===*\
|*                                                                            *|
|* Part of the Lamport project.                                               *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
/*
 * The runtime side of a program lowered by `lamport-lower-host`
 * (docs/c-api.md, "Host-lowered programs"): instead of a bundle, the program
 * is host code that embeds its kernels and launches them itself. The runtime
 * still owns the TP group and its mailboxes; the lowered code reaches them
 * through the handles below, and its launches (upstream's mgpu* calls,
 * forwarded by libLamportCudaRuntime.so) through lamportLaunchKernel.
 *
 * A step: lamportRuntimeBeginStep, then the program function once per rank
 * (with that rank's buffers and mailbox handles), then lamportRuntimeEndStep,
 * which issues the launches every rank's call made, every rank's first
 * launch before any rank's second (the order lamportRuntimeStep uses, so
 * publishers reach the GPU before the consumers that wait for them), and
 * waits for them.
 *
 * A runtime is driven by one thread. The entry points a lowered program
 * calls (lamportMailboxDescriptor, lamportMailboxStream, lamportLaunchKernel)
 * have no error callback: a failure there is kept by the runtime, and
 * lamportRuntimeEndStep then runs none of the step's launches and reports it.
 */

#ifndef LAMPORT_C_HOSTRUNTIME_H
#define LAMPORT_C_HOSTRUNTIME_H

#include "lamport-c/Runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One rank's view of one mailbox of a runtime; owned by the runtime. */
typedef struct LamportMailbox_ *LamportMailbox;
/** One rank's stream of a runtime; owned by the runtime. */
typedef struct LamportStream_ *LamportStream;
/** A kernel image a program embeds (a cubin, a fatbin or PTX). */
typedef struct LamportModule_ *LamportModule;
/** One kernel of a LamportModule, by name. */
typedef struct LamportFunction_ *LamportFunction;

/** A mailbox of a runtime made without a bundle: its rows and width (the
    TP group's tp is the runtime's). `name` (null: "mailbox<i>") is what
    errors and timeout reports call it. */
typedef struct {
  const char *name;
  int capacity;
  int width;
} LamportMailboxShape;

/** Brings up `tp` ranks with `transport` ("loopback" or "peer", as
    lamportRuntimeCreate) and the `count` mailboxes of `mailboxes`, ids 0 to
    count - 1, with no bundle: for host-lowered programs, which carry their
    kernels. lamportRuntimeBind and lamportRuntimeStep refuse such a
    runtime; Allocate, Upload, Download and GetDevice work as on any. */
LAMPORT_RUNTIME_EXPORTED LamportStatus lamportRuntimeCreateWithMailboxes(
    int tp, const char *transport, int firstDevice,
    const LamportMailboxShape *mailboxes, int count, LamportRuntime *runtime,
    LamportErrorCallback errorCallback, void *userData);

/** Rank `rank`'s handle of mailbox `mailbox` (its id: its index in the
    manifest's `mailboxes`, which lamport-compile numbers in the order of the
    program's mailbox arguments; or in lamportRuntimeCreateWithMailboxes'
    list). Pass it where the lowered program takes that mailbox. Valid
    until the runtime is destroyed. */
LAMPORT_RUNTIME_EXPORTED LamportStatus lamportRuntimeGetMailbox(
    LamportRuntime runtime, int rank, int mailbox, LamportMailbox *handle,
    LamportErrorCallback errorCallback, void *userData);

/** Starts a step: the launches of the lowered program's calls are held
    until lamportRuntimeEndStep. */
LAMPORT_RUNTIME_EXPORTED LamportStatus lamportRuntimeBeginStep(
    LamportRuntime runtime, LamportErrorCallback errorCallback, void *userData);

/** Issues the step's held launches, every rank's i-th launch before any
    rank's (i+1)-th, each on its rank's stream, and waits for them at most
    `watchdogSeconds`. Reports the first error the step's calls kept (and
    then launches nothing), or the GPU's failure (KERNEL_FAILURE, with the
    timeout records of the polls that trapped). */
LAMPORT_RUNTIME_EXPORTED LamportStatus
lamportRuntimeEndStep(LamportRuntime runtime, double watchdogSeconds,
                      LamportErrorCallback errorCallback, void *userData);

/** Called by lowered code at each launch that takes `mailbox`: the packed
    descriptor (docs/bundle.md, 40 + 8 * tp bytes) the kernel takes by value.
    `tp`, `capacity` and `width` are the mailbox type the kernel was
    compiled for; a mailbox of another shape is kept as the step's error
    (and the bytes returned are zeros). Aborts on a null handle. */
LAMPORT_RUNTIME_EXPORTED const void *
lamportMailboxDescriptor(LamportMailbox mailbox, int tp, int capacity,
                         int width);

/** Called by lowered code at each launch of a kernel that reads a weight by
    tensor copies: the 128-byte CUtensorMap (docs/bundle.md, `tensor_map`)
    the kernel takes by value, of the `rows` x `cols` BF16 buffer at device
    address `base`, in boxes of `boxInner` x `boxOuter` elements. `mailbox`
    names the runtime (the launch's, or the function's first). A buffer the
    driver cannot describe (not 16-byte aligned) is kept as the step's
    error (and the bytes returned are zeros). The bytes stay valid until
    the next call. Aborts on a null handle. */
LAMPORT_RUNTIME_EXPORTED const void *
lamportTensorMap(LamportMailbox mailbox, const void *base, int64_t rows,
                 int64_t cols, int boxInner, int boxOuter);

/** Called by lowered code: the stream of the mailbox's rank, which the
    launches of that rank's call go on. Aborts on a null handle. */
LAMPORT_RUNTIME_EXPORTED LamportStream
lamportMailboxStream(LamportMailbox mailbox);

/** A kernel image, loaded into a rank's context when a launch first needs
    it there. `image` must stay valid until lamportModuleUnload (a program's
    embedded constant does). With `bytes` 0 the image is NUL-terminated
    PTX, JIT-compiled by the driver at `optLevel` (0-4); otherwise a cubin
    or fatbin of `bytes` bytes. Never fails: errors surface at the launch. */
LAMPORT_RUNTIME_EXPORTED LamportModule lamportModuleLoad(const void *image,
                                                         size_t bytes,
                                                         int optLevel);

/** Forgets `module`; runtimes unload their copies when destroyed. Null is a
    no-op. */
LAMPORT_RUNTIME_EXPORTED void lamportModuleUnload(LamportModule module);

/** The kernel `name` of `module` (looked up in the image at its first
    launch). The handle lives as long as the module. */
LAMPORT_RUNTIME_EXPORTED LamportFunction
lamportModuleGetFunction(LamportModule module, const char *name);

/** Launches `function` on `stream` within the runtime's current step:
    loads it on the rank's device, copies the parameters (`params[i]`
    points at parameter i's bytes; the sizes come from the driver, CUDA
    12.4+) and holds the launch for lamportRuntimeEndStep. `cluster` (null:
    none) is the cluster shape; `paramCount` is checked against the
    kernel's unless negative. A failure is returned, reported through
    `errorCallback`, and kept as the step's error. */
LAMPORT_RUNTIME_EXPORTED LamportStatus lamportLaunchKernel(
    LamportFunction function, LamportStream stream, const unsigned grid[3],
    const unsigned block[3], const unsigned *cluster, unsigned sharedBytes,
    void **params, int paramCount, LamportErrorCallback errorCallback,
    void *userData);

#ifdef __cplusplus
}
#endif

#endif /* LAMPORT_C_HOSTRUNTIME_H */
