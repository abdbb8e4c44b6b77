//===- Driver.h - The CUDA driver API, loaded at run time -------*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// The runtime opens libcuda.so.1 with dlopen instead of linking it: a machine
// with no NVIDIA driver (CI, the compile machines) then runs lamport-run far
// enough to say "no GPU" instead of failing in the dynamic loader. Each entry
// point is the symbol cuda.h's macros name (cuMemAlloc -> cuMemAlloc_v2), the
// one a linked program would bind. (cuGetProcAddress is avoided on purpose:
// at CUDA_VERSION 13000 it hands out newer signatures than cuda.h declares,
// e.g. cuCtxSynchronize(CUcontext).)
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_RUNTIME_DRIVER_H
#define LAMPORT_RUNTIME_DRIVER_H

#include <cuda.h>

#include <string>

namespace lamport {
namespace runtime {

/// The driver entry points the runtime calls. The names are cuda.h's, so a
/// call reads `api().cuMemAlloc(...)`; versioned names (cuMemAlloc_v2) come
/// from cuda.h's macros on both sides. cuGraphInstantiate is named by its
/// real function, cuGraphInstantiateWithFlags, which cuda.h maps it to.
#define LAMPORT_DRIVER_FUNCTIONS(X)                                            \
  X(cuInit)                                                                    \
  X(cuDriverGetVersion)                                                        \
  X(cuGetErrorName)                                                            \
  X(cuGetErrorString)                                                          \
  X(cuDeviceGetCount)                                                          \
  X(cuDeviceGet)                                                               \
  X(cuDeviceGetName)                                                           \
  X(cuDeviceGetAttribute)                                                      \
  X(cuDeviceCanAccessPeer)                                                     \
  X(cuDevicePrimaryCtxRetain)                                                  \
  X(cuDevicePrimaryCtxRelease)                                                 \
  X(cuCtxSetCurrent)                                                           \
  X(cuCtxSynchronize)                                                          \
  X(cuModuleLoadData)                                                          \
  X(cuModuleLoadDataEx)                                                        \
  X(cuModuleUnload)                                                            \
  X(cuModuleGetFunction)                                                       \
  X(cuModuleGetGlobal)                                                         \
  X(cuFuncGetAttribute)                                                        \
  X(cuFuncSetAttribute)                                                        \
  X(cuMemAlloc)                                                                \
  X(cuMemFree)                                                                 \
  X(cuMemHostAlloc)                                                            \
  X(cuMemHostGetDevicePointer)                                                 \
  X(cuMemFreeHost)                                                             \
  X(cuMemsetD16)                                                               \
  X(cuMemsetD32)                                                               \
  X(cuMemsetD16Async)                                                          \
  X(cuMemcpyHtoD)                                                              \
  X(cuMemcpyHtoDAsync)                                                         \
  X(cuMemcpyDtoH)                                                              \
  X(cuMemcpyDtoDAsync)                                                         \
  X(cuMemCreate)                                                               \
  X(cuMemRelease)                                                              \
  X(cuMemAddressReserve)                                                       \
  X(cuMemAddressFree)                                                          \
  X(cuMemMap)                                                                  \
  X(cuMemUnmap)                                                                \
  X(cuMemSetAccess)                                                            \
  X(cuMemGetAllocationGranularity)                                             \
  X(cuMemExportToShareableHandle)                                              \
  X(cuMemImportFromShareableHandle)                                            \
  X(cuStreamCreate)                                                            \
  X(cuStreamDestroy)                                                           \
  X(cuStreamQuery)                                                             \
  X(cuStreamSynchronize)                                                       \
  X(cuStreamWaitEvent)                                                         \
  X(cuStreamBeginCapture)                                                      \
  X(cuStreamIsCapturing)                                                       \
  X(cuStreamEndCapture)                                                        \
  X(cuThreadExchangeStreamCaptureMode)                                         \
  X(cuEventCreate)                                                             \
  X(cuEventDestroy)                                                            \
  X(cuEventRecord)                                                             \
  X(cuEventQuery)                                                              \
  X(cuEventElapsedTime)                                                        \
  X(cuLaunchKernel)                                                            \
  X(cuLaunchKernelEx)                                                          \
  X(cuGraphInstantiateWithFlags)                                               \
  X(cuGraphLaunch)                                                             \
  X(cuGraphDestroy)                                                            \
  X(cuGraphExecDestroy)                                                        \
  X(cuTensorMapEncodeTiled)

/// The loaded entry points. cuFuncGetParamInfo and cuFuncLoad (CUDA 12.4+)
/// are optional: null on an older driver, and what needs them is skipped.
struct DriverApi {
#define LAMPORT_DECLARE_DRIVER_FUNCTION(name) decltype(&::name) name = nullptr;
  LAMPORT_DRIVER_FUNCTIONS(LAMPORT_DECLARE_DRIVER_FUNCTION)
#undef LAMPORT_DECLARE_DRIVER_FUNCTION
  decltype(&::cuFuncGetParamInfo) cuFuncGetParamInfo = nullptr;
  /// Optional too (CUDA 12.4+): loads a function now rather than at its
  /// first launch.
  decltype(&::cuFuncLoad) cuFuncLoad = nullptr;
  /// Optional: how many clusters of a launch fit on the GPU at once (the
  /// loopback residency check of kernels that publish and then wait).
  decltype(&::cuOccupancyMaxActiveClusters) cuOccupancyMaxActiveClusters =
      nullptr;
};

/// Loads libcuda.so.1 and calls cuInit(0) once. Throws NoDeviceError when
/// there is no driver, cuInit fails, or no device is present.
const DriverApi &api();

/// "CUDA_ERROR_LAUNCH_FAILED (unspecified launch failure)".
std::string describeResult(CUresult result);

/// Throws Error "<context>: <call> failed: <name> (<string>)" unless
/// \p result is CUDA_SUCCESS.
void check(CUresult result, const char *call, const std::string &context);

/// Checks a driver call, naming the call's text and a context string.
#define LAMPORT_CU(call, context)                                              \
  ::lamport::runtime::check(::lamport::runtime::api().call, #call, (context))

} // namespace runtime
} // namespace lamport

#endif // LAMPORT_RUNTIME_DRIVER_H
