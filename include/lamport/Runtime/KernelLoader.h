//===- KernelLoader.h - One bundle kernel, loaded and checked ---*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// Loading a bundle's kernel into the current context, the way every program
// that launches one needs it: the image the device runs (cubin, else PTX by
// the driver's JIT with its log), the entry point, the checks of the image
// against its manifest entry, and the opt-in to its shared memory. One
// place, so lamport-run and the benchmarks agree on each rule.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_RUNTIME_KERNELLOADER_H
#define LAMPORT_RUNTIME_KERNELLOADER_H

#include "lamport/Runtime/DeviceCheck.h"
#include "lamport/Runtime/Manifest.h"

#include <cuda.h>

#include <cstddef>
#include <string>
#include <vector>

namespace lamport {
namespace runtime {

/// A bundle kernel loaded into the current context. The caller owns the
/// module and unloads it.
struct LoadedKernel {
  CUmodule module = nullptr;
  CUfunction function = nullptr;
  /// The image the driver took: "cubin", "PTX (driver JIT)", or the latter
  /// followed by why the cubin was refused.
  std::string image;
  /// Whether the image carried an ABI record (KernelRecord.h), which then
  /// matched the manifest; false for a bundle written before records.
  bool recordChecked = false;
  /// The image's override of its polls' timeout (kPollTimeoutSymbol, 8
  /// bytes), 0 where it has none: a kernel that does not poll, or one
  /// compiled before the override.
  CUdeviceptr pollTimeout = 0;
};

/// Loads kernel \p k of \p bundle into the current context for \p device:
/// its cubin where that runs there (chooseImage), else its PTX through the
/// driver's JIT. Then checks that the image has the manifest's entry point,
/// that its ABI record (where it has one) matches the manifest's parameters
/// and mailboxes, that its thread limit (registers) admits the manifest's block
/// and, on drivers that can say (12.4+), that its parameters are the manifest's
/// in number and size; and opts into the kernel's shared memory. Throws Error
/// starting with \p who; the module is unloaded first.
LoadedKernel loadKernel(const Bundle &bundle, std::size_t k,
                        const DeviceProperties &device, const std::string &who);

/// The address of \p module's override of its polls' timeout
/// (kPollTimeoutSymbol), 0 where it has none: it does not poll, or was
/// compiled before the override. Throws Error starting with \p who for a
/// symbol of that name that is not 8 bytes.
CUdeviceptr findPollTimeout(CUmodule module, const std::string &who);

/// Checks \p ns as a poll timeout: at most INT64_MAX (a compiled
/// timeout_ns's limit, so that no deadline wraps). Throws Error starting
/// with \p who.
void checkPollTimeout(uint64_t ns, const std::string &who);

/// Checks that \p bundle's loaded kernels can take a poll timeout set at run
/// time: \p overrides holds each kernel's LoadedKernel::pollTimeout, in the
/// manifest's order. Throws Error starting with \p who where a kernel the
/// manifest says polls (its `timeout_ns`) has no override, or none has one
/// (compiled before the override).
void checkPollTimeoutOverrides(const Bundle &bundle,
                               const std::vector<CUdeviceptr> &overrides,
                               const std::string &who);

/// Sets how long the polls of \p bundle's loaded kernels wait: \p ns, or with
/// 0 each poll's compiled timeout (docs/bundle.md, "The polls' timeout
/// override"), the writes enqueued on \p stream in the current context.
/// Throws Error starting with \p who, before writing any, where
/// checkPollTimeout or checkPollTimeoutOverrides refuses, or \p stream
/// captures a CUDA graph (a copy from the host cannot be captured).
void setPollTimeouts(const Bundle &bundle,
                     const std::vector<CUdeviceptr> &overrides, uint64_t ns,
                     CUstream stream, const std::string &who);

/// Writes \p ns into every nonzero address of \p overrides in the current
/// context and waits for those writes alone: on a stream of its own, in the
/// relaxed capture mode, so a CUDA graph another stream of the process is
/// capturing goes on undisturbed (a context-wide wait would end it). Throws
/// Error starting with \p who.
void writePollTimeoutsNow(const std::vector<CUdeviceptr> &overrides,
                          uint64_t ns, const std::string &who);

/// Lets \p function launch with \p bytes of dynamic shared memory. Static
/// and dynamic shared memory past 48 KiB together need the opt-in, so any
/// dynamic memory at all opts in. Throws Error starting with \p who.
void optIntoSharedMemory(CUfunction function, std::size_t bytes,
                         const std::string &who);

} // namespace runtime
} // namespace lamport

#endif // LAMPORT_RUNTIME_KERNELLOADER_H
