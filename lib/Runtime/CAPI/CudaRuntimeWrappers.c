/*===- CudaRuntimeWrappers.c - mgpu* entry points over the C API ----------===*\
|*                                                                            *|
|* Part of the Lamport project.                                               *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
/*
 * libLamportCudaRuntime.so: the entry points that upstream MLIR's
 * gpu-to-llvm lowering and the gpu.binary / gpu.launch_func translation
 * call (those of upstream's libmlir_cuda_runtime), for a program lowered
 * with `lamport-lower-host`, whose launches carry a rank's LamportStream.
 * Each forwards to one documented entry point of lamport-c/HostRuntime.h;
 * a launch's failure is printed here and kept by the runtime, whose
 * lamportRuntimeEndStep reports it. Only what lowered Lamport programs
 * call is provided: launches without a stream (mgpuStreamCreate) are not.
 */

#include "lamport-c/HostRuntime.h"

#include <stdint.h>
#include <stdio.h>

#if defined(_WIN32)
#define LAMPORT_MGPU_EXPORTED __declspec(dllexport)
#else
#define LAMPORT_MGPU_EXPORTED __attribute__((visibility("default")))
#endif

static void printError(const char *message, size_t length, void *userData) {
  (void)userData;
  fprintf(stderr, "lamport: %.*s\n", (int)length, message);
}

/* A launch dimension, or 0 (which the launch refuses) when out of range. */
static unsigned dimension(intptr_t value) {
  return value > 0 && (uintmax_t)value <= 0xFFFFFFFFu ? (unsigned)value : 0;
}

LAMPORT_MGPU_EXPORTED void *mgpuModuleLoad(void *data, size_t bytes) {
  return lamportModuleLoad(data, bytes, 0);
}

LAMPORT_MGPU_EXPORTED void *mgpuModuleLoadJIT(void *data, int optLevel) {
  return lamportModuleLoad(data, 0, optLevel);
}

LAMPORT_MGPU_EXPORTED void mgpuModuleUnload(void *module) {
  lamportModuleUnload((LamportModule)module);
}

LAMPORT_MGPU_EXPORTED void *mgpuModuleGetFunction(void *module,
                                                  const char *name) {
  return lamportModuleGetFunction((LamportModule)module, name);
}

LAMPORT_MGPU_EXPORTED void
mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY, intptr_t gridZ,
                 intptr_t blockX, intptr_t blockY, intptr_t blockZ,
                 int32_t sharedBytes, void *stream, void **params, void **extra,
                 size_t paramCount) {
  (void)extra;
  unsigned grid[3] = {dimension(gridX), dimension(gridY), dimension(gridZ)};
  unsigned block[3] = {dimension(blockX), dimension(blockY), dimension(blockZ)};
  lamportLaunchKernel((LamportFunction)function, (LamportStream)stream, grid,
                      block, NULL, (unsigned)sharedBytes, params,
                      (int)paramCount, printError, NULL);
}

LAMPORT_MGPU_EXPORTED void
mgpuLaunchClusterKernel(void *function, intptr_t clusterX, intptr_t clusterY,
                        intptr_t clusterZ, intptr_t gridX, intptr_t gridY,
                        intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                        intptr_t blockZ, int32_t sharedBytes, void *stream,
                        void **params, void **extra) {
  (void)extra;
  unsigned cluster[3] = {dimension(clusterX), dimension(clusterY),
                         dimension(clusterZ)};
  unsigned grid[3] = {dimension(gridX), dimension(gridY), dimension(gridZ)};
  unsigned block[3] = {dimension(blockX), dimension(blockY), dimension(blockZ)};
  lamportLaunchKernel((LamportFunction)function, (LamportStream)stream, grid,
                      block, cluster, (unsigned)sharedBytes, params, -1,
                      printError, NULL);
}
