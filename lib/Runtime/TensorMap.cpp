//===- TensorMap.cpp - Tensor map parameters of a kernel ------------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#include "lamport/Runtime/TensorMap.h"
#include "lamport/Runtime/Driver.h"
#include "lamport/Runtime/Error.h"

#include <cstdio>

namespace lamport {
namespace runtime {

void encodeTensorMap(const std::string &name, int64_t rows, int64_t cols,
                     int64_t boxInner, int64_t boxOuter, CUdeviceptr address,
                     TensorMapSlot &slot, const std::string &context) {
  if (slot.encodedFor == address && address)
    return;
  const cuuint64_t dims[2] = {cuuint64_t(cols), cuuint64_t(rows)};
  const cuuint64_t strides[1] = {cuuint64_t(cols) * 2};
  const cuuint32_t box[2] = {cuuint32_t(boxInner), cuuint32_t(boxOuter)};
  const cuuint32_t elementStrides[2] = {1, 1};
  CUresult result = api().cuTensorMapEncodeTiled(
      &slot.map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2,
      reinterpret_cast<void *>(address), dims, strides, box, elementStrides,
      CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
      CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (result != CUDA_SUCCESS) {
    slot.encodedFor = 0;
    char at[32];
    std::snprintf(at, sizeof at, "0x%llx", (unsigned long long)address);
    throw Error(concat(context, ": encoding the tensor map of buffer '", name,
                       "' (", rows, " x ", cols, " bf16 at ", at, ", box ",
                       boxInner, " x ", boxOuter, "): ", describeResult(result),
                       " (the buffer must be 16-byte aligned)"));
  }
  slot.encodedFor = address;
}

void encodeTensorMap(const Manifest &m, const ParamSpec &param,
                     CUdeviceptr address, TensorMapSlot &slot,
                     const std::string &context) {
  // The manifest reader checked: a 2-D BF16 buffer of static shape, a box
  // of at most 256 x 256 elements within it.
  const ArgumentSpec &buffer = m.arguments[param.argument];
  encodeTensorMap(buffer.name, buffer.shape[0], buffer.shape[1], param.box[0],
                  param.box[1], address, slot, context);
}

void encodeTensorMaps(const Manifest &m, int kernel, void **params,
                      const std::string &context) {
  const std::vector<ParamSpec> &specs = m.kernels[kernel].params;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    if (specs[i].kind != ParamKind::TensorMap)
      continue;
    // The reader checked that the kernel takes the buffer itself too.
    for (std::size_t j = 0; j < specs.size(); ++j)
      if (specs[j].kind == ParamKind::Buffer &&
          specs[j].argument == specs[i].argument) {
        encodeTensorMap(m, specs[i], *static_cast<CUdeviceptr *>(params[j]),
                        *static_cast<TensorMapSlot *>(params[i]), context);
        break;
      }
  }
}

} // namespace runtime
} // namespace lamport
