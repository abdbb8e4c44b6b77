//===- TensorMap.h - Tensor map parameters of a kernel ----------*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// A kernel parameter of kind `tensor_map` (docs/bundle.md) is the 128-byte
// CUtensorMap of one of the kernel's 2-D buffers, which the kernel reads by
// tensor copies (cp.async.bulk.tensor). The runtime encodes it from the
// buffer's address when it launches the kernel, since a buffer's address
// may change from step to step.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_RUNTIME_TENSORMAP_H
#define LAMPORT_RUNTIME_TENSORMAP_H

#include "lamport/Runtime/Manifest.h"

#include <cuda.h>

#include <string>

namespace lamport {
namespace runtime {

/// The bytes a tensor map parameter passes (CUtensorMap carries the
/// alignment the driver asks of it), and the buffer address they were
/// encoded for.
struct TensorMapSlot {
  CUtensorMap map{};
  CUdeviceptr encodedFor = 0;
};

/// Encodes into \p slot the tensor map of the \p rows x \p cols BF16
/// buffer \p name at \p address, in boxes of \p boxInner x \p boxOuter
/// elements. Skipped where \p slot holds the map of \p address already.
/// Throws an Error naming \p context, the buffer and why the driver refused
/// it.
void encodeTensorMap(const std::string &name, int64_t rows, int64_t cols,
                     int64_t boxInner, int64_t boxOuter, CUdeviceptr address,
                     TensorMapSlot &slot, const std::string &context);

/// The same for the tensor map that \p param (of kind TensorMap) of \p m
/// describes: its buffer argument's [outer, inner] shape, its box.
void encodeTensorMap(const Manifest &m, const ParamSpec &param,
                     CUdeviceptr address, TensorMapSlot &slot,
                     const std::string &context);

/// Encodes every tensor map parameter of kernel \p kernel in \p params (as
/// kernelParamList gives them) from the address its buffer's parameter
/// holds.
void encodeTensorMaps(const Manifest &m, int kernel, void **params,
                      const std::string &context);

} // namespace runtime
} // namespace lamport

#endif // LAMPORT_RUNTIME_TENSORMAP_H
