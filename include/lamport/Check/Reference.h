//===- Reference.h - Host references of what kernels must write -*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// BF16 bit helpers, the Bits and Integers input patterns, and the host
// references the simulation of a step (Simulator.h) is built from:
//   poll_rows   an exact copy of every rank's rows, -0.0 arriving as +0.0;
//   all_reduce  the FP32 sum in the op's fixed order, rounded to BF16 (RNE);
//   dual norm   the FP64 value of one token row and the bound each output
//               element must meet (docs/runtime.md explains the bounds).
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_CHECK_REFERENCE_H
#define LAMPORT_CHECK_REFERENCE_H

#include "lamport/Runtime/BFloat16.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace lamport {
namespace check {

/// BF16 <-> FP32 (lamport/Runtime/BFloat16.h).
using runtime::bf16ToFloat;
using runtime::floatToBf16;

/// What a publish stores for \p bits: -0.0 (the sentinel) becomes +0.0,
/// every other pattern (NaN payloads, Inf, subnormals) is kept bit for bit.
inline uint16_t canonicalizeSentinel(uint16_t bits) {
  return bits == 0x8000 ? 0 : bits;
}

/// The fixed orders in which an all-reduce adds the ranks' partials.
enum class SumOrder {
  /// ((p0 + p1) + p2) + ...
  RankAscending,
  /// A balanced tree over rank order: adjacent pairs, then pairs of pairs;
  /// an odd element at the end of a level passes up unchanged.
  Pairwise,
};

/// Parses a sum_order attribute ("rank_ascending", "pairwise"). Throws Error.
SumOrder parseSumOrder(const std::string &text);

/// Sums \p partials (one per rank, in rank order) in FP32 in \p order.
float sumPartials(const std::vector<float> &partials, SumOrder order);

/// Where a consumer writes: out[slot][row][col] lives at element
/// (slot * rowsPerSlot + row) * width + col.
struct OutputLayout {
  int rowsPerSlot = 0;
  int width = 0;
};

/// poll_rows: \p rows[r] is rank r's published [m, width] BF16; \p out gets
/// every rank's rows with the sentinel canonicalised, in \p layout. Elements
/// of \p out the op does not write are left as they are.
void referencePollRows(const std::vector<std::vector<uint16_t>> &rows, int m,
                       int width, const OutputLayout &layout,
                       std::vector<uint16_t> &out);

/// all_reduce: out[row][col] = bf16(sum over ranks of rows[r][row][col]) with
/// each partial canonicalised as published. \p out is [m, width] (or longer,
/// the rest left as is).
void referenceAllReduce(const std::vector<std::vector<uint16_t>> &rows, int m,
                        int width, SumOrder order, std::vector<uint16_t> &out);

/// The inputs of one token row of a dual norm (all_reduce_dual_norm,
/// dual_norm), width H: the reduced row r (exact FP32 values), this row of
/// the FP32 stream, the gates (one value, or H), the optional post-norm
/// weight and the next norm's weight (BF16 bits), and eps.
struct DualNormRowInputs {
  int width = 0;
  const double *reduced = nullptr;
  const float *stream = nullptr;
  const float *alpha = nullptr;
  int alphaCount = 1;
  const float *beta = nullptr;
  int betaCount = 1;
  const uint16_t *postWeight = nullptr; ///< Null: no post-norm weight.
  const uint16_t *nextWeight = nullptr;
  double eps = 1e-6;
};

/// The FP64 reference of one row of a dual norm and the bound each output
/// element must meet (see streamTolerance and outTolerance):
///   h       = r / sqrt(mean(r^2) + eps) [* post_weight]
///   stream' = alpha * stream + beta * h
///   out     = stream' / sqrt(mean(stream'^2) + eps) * next_weight
/// Each output array holds \p in.width values.
void referenceDualNormRow(const DualNormRowInputs &in, double *streamRef,
                          double *streamBound, double *outRef,
                          double *outBound);

/// The largest |got - ref| allowed for an FP32 element of the updated stream
/// whose terms are alpha * s and beta * h (FP64): 2^-16 of the terms' size,
/// plus 2^-126 for results near FP32's underflow.
double streamTolerance(double alphaS, double betaH);

/// The largest |got - ref| allowed for a BF16 element of out whose FP64
/// value is \p ref = stream'_ref * inv2 * w: half a BF16 ulp of rounding
/// (2^-8 |ref|), plus the FP32 error of stream' carried through the scale,
/// enlarged by the rounding that follows it ((1 + 2^-8) * 2^-16 * |w| *
/// inv2 * (|alpha s| + |beta h|)), plus 2^-133 (the smallest BF16
/// subnormal).
double outTolerance(double ref, double nextWeight, double inv2, double alphaS,
                    double betaH);

/// The largest |got - ref| allowed for a BF16 sum of \p tp partials in an
/// order not known here (NCCL's ring or tree, which may round each partial
/// sum to BF16 on its way): \p tp roundings, each at most half a BF16 ulp of
/// a partial sum, so tp * 2^-8 * (sum of the partials' magnitudes), plus
/// 2^-133 (the smallest BF16 subnormal).
double sumTolerance(double magnitudes, int tp);
/// |got - ref| <= bound; false for a NaN or infinite \p got.
bool withinTolerance(double got, double ref, double bound);

/// What an input pattern exercises.
enum class PatternKind {
  /// Any BF16 bits, with -0.0, +0.0, +-Inf, NaNs (quiet, signalling, negative)
  /// and subnormals mixed in: for copies, which must be exact.
  Bits,
  /// Small integers (and -0.0): for sums, whose FP32 value is then exact in
  /// any order.
  Integers,
};

/// The value lamport-run writes into outputs before a step so an element no
/// kernel wrote is caught: a signalling NaN that patterns never produce.
inline constexpr uint16_t kPoison = 0x7FBD;

/// The splitmix64 finalizer: the mix every input pattern hashes with.
uint64_t splitmix64(uint64_t x);

/// 64-bit FNV-1a of \p count bytes: how reports name an output's bytes
/// (lamport-run --json, lamport-boundary-bench) and how inputs are salted
/// by role.
uint64_t fnv1a(const void *bytes, std::size_t count);

/// Element \p index of the input of \p rank in input set \p set, for
/// \p seed: a hash, so every set, rank and element differs.
uint16_t patternValue(PatternKind kind, uint64_t seed, uint32_t set, int rank,
                      uint64_t index);

} // namespace check
} // namespace lamport

#endif // LAMPORT_CHECK_REFERENCE_H
