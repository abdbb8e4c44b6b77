//===- Inputs.h - The inputs of a decode step, by role ----------*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// What lamport-run writes into a program's input buffers. A buffer's values
// follow from the role the first kernel that reads it gives it (docs/
// bundle.md), not from its argument index, and are salted by that role's
// name: two programs that share role names (the fused and the unfused
// attention boundary) get identical inputs for the same seed. Every value is
// a hash of (seed, role, input set j, rank, element), so each batch position
// and rank differs, and the host simulation can recompute any element (a
// weight's included) without keeping it.
//
//   Bits        any BF16 bits with the specials mixed in (copies);
//   Integers    BF16 integers in [-64, 64] and -0.0 (rows that are summed);
//   GemmX       4 nonzeros per row in {-2, -1, 1, 2} at columns o + q * K / 4;
//   GemmWeight  BF16 integers in [-2, 2], -0.0 for some zeros;
//   Stream      FP32 in (-4, 4), exponents 2^-12 .. 2^1, some zeros;
//   Gate        FP32 in [0.25, 1.5] (alpha, beta);
//   NormWeight  BF16 in [0.5, 1.5] (post_weight, next_weight);
//   Reduced     BF16 integers in [-64, 64] (a dual_norm input that no launch
//               of the step writes).
// so every y of a GEMM is an integer with |y| <= 16, exact in BF16, and a
// sum of up to 16 ranks' y is exact in FP32 and BF16 in any order. The
// replicated kinds (Stream, Gate, NormWeight, Reduced) ignore the rank: in
// tensor parallelism every rank holds the same residual stream, gates and
// norm weights, which is what lets every rank's dual norm write the same
// bytes.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_CHECK_INPUTS_H
#define LAMPORT_CHECK_INPUTS_H

#include "lamport/Runtime/Manifest.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace lamport {
namespace check {

/// The value pattern of one input buffer.
enum class InputKind {
  Bits,
  Integers,
  GemmX,
  GemmWeight,
  Stream,
  Gate,
  NormWeight,
  Reduced,
};

const char *inputKindName(InputKind kind);

/// How one input buffer is filled.
struct InputSpec {
  InputKind kind = InputKind::Bits;
  /// The role whose name salts the values; Bits and Integers (the rows of
  /// publish_rows, and buffers without a role) are not salted, as before
  /// roles existed.
  std::string role;
  runtime::DType dtype = runtime::DType::BF16;
  /// GemmX: K, the length of a row.
  int64_t rowLength = 0;

  /// True when every rank gets the same values.
  bool replicated() const;
};

/// The dtype \p kind produces.
runtime::DType inputDType(InputKind kind);

/// The 64-bit key of one (seed, role, set, rank) buffer: every element is a
/// hash of the key and its index.
uint64_t inputKey(const InputSpec &spec, uint64_t seed, uint32_t set, int rank);

/// Fills \p elements elements of \p spec's dtype at \p out with the input of
/// \p rank in input set \p set. Large buffers are filled by several threads.
void generateInput(const InputSpec &spec, uint64_t seed, uint32_t set, int rank,
                   void *out, std::size_t elements);

/// Elements generateInput writes into \p bytes bytes: 16-bit words for Bits
/// and Integers (as before roles, whatever the dtype), else elements of the
/// kind's dtype.
std::size_t inputElements(const InputSpec &spec, std::size_t bytes);

/// Fills \p bytes bytes at \p out: inputElements of them generated, the
/// rest (at most one element's worth) zero.
void generateInputBytes(const InputSpec &spec, uint64_t seed, uint32_t set,
                        int rank, void *out, std::size_t bytes);

/// generateInputBytes into a new vector.
std::vector<uint8_t> inputBytes(const InputSpec &spec, uint64_t seed,
                                uint32_t set, int rank, std::size_t bytes);

/// GemmWeight element \p index (row-major [N, K]) of the buffer \p key names:
/// the same bits generateInput writes there.
uint16_t gemmWeightBits(uint64_t key, uint64_t index);

/// The nonzeros of row \p row of a GemmX buffer of rows of \p k (a multiple
/// of 4): column o + q * k / 4 holds value[q], q = 0..3.
struct GemmXRow {
  int64_t column[4];
  float value[4];
};
GemmXRow gemmXRow(uint64_t key, uint64_t row, int64_t k);

/// Calls \p body(begin, end) over [0, count) split across up to
/// hardware_concurrency threads (one thread below \p grain items).
void parallelFor(std::size_t count, std::size_t grain,
                 const std::function<void(std::size_t, std::size_t)> &body);

} // namespace check
} // namespace lamport

#endif // LAMPORT_CHECK_INPUTS_H
