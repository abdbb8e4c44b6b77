//===- BFloat16.h - BF16 bit conversions on the host -----------*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// The one host definition of BF16 <-> FP32, header-only so that the checker,
// the benches and the host-only test libraries (the fake libcuda and
// libnccl, which link nothing of Lamport's) round the same way the kernels
// do: round to nearest even, NaN kept NaN.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_RUNTIME_BFLOAT16_H
#define LAMPORT_RUNTIME_BFLOAT16_H

#include <cstdint>
#include <cstring>

namespace lamport {
namespace runtime {

/// The BF16 value of the high half of an FP32.
inline float bf16ToFloat(uint16_t bits) {
  uint32_t word = uint32_t(bits) << 16;
  float value;
  std::memcpy(&value, &word, 4);
  return value;
}

/// FP32 to BF16, round to nearest even; NaN stays NaN (quiet, sign kept).
inline uint16_t floatToBf16(float value) {
  uint32_t word;
  std::memcpy(&word, &value, 4);
  if ((word & 0x7FFFFFFFu) > 0x7F800000u)
    return uint16_t((word >> 16) | 0x0040);
  // Round to nearest, ties to even: add 0x7FFF plus the kept LSB.
  word += 0x7FFFu + ((word >> 16) & 1);
  return uint16_t(word >> 16);
}

} // namespace runtime
} // namespace lamport

#endif // LAMPORT_RUNTIME_BFLOAT16_H
