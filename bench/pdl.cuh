//===- pdl.cuh - PDL and the timer of the plain CUDA tools -----*- CUDA -*-===//
//-*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// What the plain CUDA tools of bench/ share on the device side: the
// nanosecond clock their bounded spins read, the two griddepcontrol
// instructions of programmatic dependent launch (PDL), and a launch with
// PDL allowed (lamport-pdl-depth, lamport-handover-chain,
// lamport-stream-floor).
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_BENCH_PDL_CUH
#define LAMPORT_BENCH_PDL_CUH

#include "cuda_check.h"

#include <cuda_runtime.h>

#include <cstdint>
#include <string>

namespace lamport::bench {

/// The GPU's nanosecond clock (%globaltimer), for spins bounded in time.
__device__ __forceinline__ uint64_t globalTimerNs() {
  uint64_t now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  return now;
}

/// Lets the grid after this one launch once every CTA of this one has run
/// it (or exited).
__device__ __forceinline__ void launchDependents() {
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
}

/// Waits until the grids before this one have completed and their memory
/// operations are visible.
__device__ __forceinline__ void waitForPredecessor() {
  asm volatile("griddepcontrol.wait;" ::: "memory");
}

/// Launches `kernel` on `stream` with programmatic stream serialization
/// allowed (it may start before the kernel before it completes), failing
/// with `what` where the launch does.
template <typename... Params, typename... Args>
void launchWithPdl(cudaStream_t stream, void (*kernel)(Params...), dim3 grid,
                   dim3 block, size_t sharedBytes, const std::string &what,
                   Args... args) {
  cudaLaunchConfig_t config = {};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = sharedBytes;
  config.stream = stream;
  cudaLaunchAttribute attribute = {};
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  config.attrs = &attribute;
  config.numAttrs = 1;
  CHECK(cudaLaunchKernelEx(&config, kernel, args...), what);
}

} // namespace lamport::bench

#endif // LAMPORT_BENCH_PDL_CUH
