//===- Reference.cpp - Host references of what kernels must write ---------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#include "lamport/Check/Reference.h"
#include "lamport/Runtime/Error.h"

#include <cmath>
#include <cstring>

namespace lamport {
namespace check {

using namespace runtime;

SumOrder parseSumOrder(const std::string &text) {
  if (text == "rank_ascending")
    return SumOrder::RankAscending;
  if (text == "pairwise")
    return SumOrder::Pairwise;
  throw Error(concat("unknown sum_order '", text,
                     "' (expected 'rank_ascending' or 'pairwise')"));
}

float sumPartials(const std::vector<float> &partials, SumOrder order) {
  if (partials.empty())
    return 0.0f;
  if (order == SumOrder::RankAscending) {
    float sum = partials[0];
    for (std::size_t r = 1; r < partials.size(); ++r)
      sum += partials[r];
    return sum;
  }
  std::vector<float> level = partials;
  while (level.size() > 1) {
    std::vector<float> next;
    for (std::size_t i = 0; i + 1 < level.size(); i += 2)
      next.push_back(level[i] + level[i + 1]);
    if (level.size() % 2)
      next.push_back(level.back());
    level.swap(next);
  }
  return level[0];
}

void referencePollRows(const std::vector<std::vector<uint16_t>> &rows, int m,
                       int width, const OutputLayout &layout,
                       std::vector<uint16_t> &out) {
  for (std::size_t slot = 0; slot < rows.size(); ++slot)
    for (int row = 0; row < m; ++row)
      for (int col = 0; col < width; ++col)
        out[(slot * layout.rowsPerSlot + row) * layout.width + col] =
            canonicalizeSentinel(rows[slot][std::size_t(row) * width + col]);
}

void referenceAllReduce(const std::vector<std::vector<uint16_t>> &rows, int m,
                        int width, SumOrder order, std::vector<uint16_t> &out) {
  std::vector<float> partials(rows.size());
  for (int row = 0; row < m; ++row)
    for (int col = 0; col < width; ++col) {
      std::size_t at = std::size_t(row) * width + col;
      for (std::size_t r = 0; r < rows.size(); ++r)
        partials[r] = bf16ToFloat(canonicalizeSentinel(rows[r][at]));
      out[at] = floatToBf16(sumPartials(partials, order));
    }
}

double streamTolerance(double alphaS, double betaH) {
  return std::ldexp(std::fabs(alphaS) + std::fabs(betaH), -16) +
         std::ldexp(1.0, -126);
}

double outTolerance(double ref, double nextWeight, double inv2, double alphaS,
                    double betaH) {
  double carried = (1.0 + std::ldexp(1.0, -8)) * std::ldexp(1.0, -16) *
                   std::fabs(nextWeight) * inv2 *
                   (std::fabs(alphaS) + std::fabs(betaH));
  return std::ldexp(std::fabs(ref), -8) + carried + std::ldexp(1.0, -133);
}

double sumTolerance(double magnitudes, int tp) {
  return tp * std::ldexp(magnitudes, -8) + std::ldexp(1.0, -133);
}

bool withinTolerance(double got, double ref, double bound) {
  if (!std::isfinite(got))
    return false;
  return std::fabs(got - ref) <= bound;
}

void referenceDualNormRow(const DualNormRowInputs &in, double *streamRef,
                          double *streamBound, double *outRef,
                          double *outBound) {
  int width = in.width;
  double squares = 0;
  for (int c = 0; c < width; ++c)
    squares += in.reduced[c] * in.reduced[c];
  double inv1 = 1.0 / std::sqrt(squares / width + in.eps);
  // streamBound holds |alpha s| + |beta h| until the second norm is known.
  double squares2 = 0;
  for (int c = 0; c < width; ++c) {
    double h = in.reduced[c] * inv1;
    if (in.postWeight)
      h *= double(bf16ToFloat(in.postWeight[c]));
    double alpha = in.alpha[in.alphaCount == 1 ? 0 : c];
    double beta = in.beta[in.betaCount == 1 ? 0 : c];
    double alphaS = alpha * double(in.stream[c]);
    double betaH = beta * h;
    streamRef[c] = alphaS + betaH;
    streamBound[c] = streamTolerance(alphaS, betaH);
    outBound[c] = std::fabs(alphaS) + std::fabs(betaH);
    squares2 += streamRef[c] * streamRef[c];
  }
  double inv2 = 1.0 / std::sqrt(squares2 / width + in.eps);
  for (int c = 0; c < width; ++c) {
    double w = double(bf16ToFloat(in.nextWeight[c]));
    outRef[c] = streamRef[c] * inv2 * w;
    // |alpha s| + |beta h| split as (terms, 0): the bound depends on the sum.
    outBound[c] = outTolerance(outRef[c], w, inv2, outBound[c], 0.0);
  }
}

uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

uint64_t fnv1a(const void *bytes, std::size_t count) {
  const uint8_t *p = static_cast<const uint8_t *>(bytes);
  uint64_t hash = 0xCBF29CE484222325ull;
  for (std::size_t i = 0; i < count; ++i) {
    hash ^= p[i];
    hash *= 0x100000001B3ull;
  }
  return hash;
}

namespace {

/// Bit patterns a transport must carry unchanged (or, for -0.0, as +0.0).
constexpr uint16_t kSpecials[] = {
    0x8000, // -0.0, the sentinel
    0x0000, // +0.0
    0x7F80, // +Inf
    0xFF80, // -Inf
    0x7FC0, // quiet NaN
    0xFFC1, // negative quiet NaN with a payload
    0x7F81, // signalling NaN
    0x0001, // smallest subnormal
    0x807F, // largest negative subnormal
    0x0080, // smallest normal
    0x7F7F, // largest finite
};

} // namespace

uint16_t patternValue(PatternKind kind, uint64_t seed, uint32_t set, int rank,
                      uint64_t index) {
  uint64_t h = splitmix64(seed ^ splitmix64((uint64_t(set) << 32) ^
                                            (uint64_t(uint32_t(rank)) << 56) ^
                                            splitmix64(index)));
  if (kind == PatternKind::Integers) {
    // 1 in 16 is -0.0; the rest integers in [-64, 64], exact in BF16 and in
    // any FP32 sum of up to 64 ranks.
    if ((h & 15) == 0)
      return 0x8000;
    int value = int((h >> 8) % 129) - 64;
    return floatToBf16(float(value));
  }
  // 1 in 8 is a special pattern, the rest any bits except the poison.
  if ((h & 7) == 0)
    return kSpecials[(h >> 8) % (sizeof(kSpecials) / sizeof(kSpecials[0]))];
  uint16_t bits = uint16_t(h >> 16);
  return bits == kPoison ? uint16_t(0x3F80) : bits;
}

} // namespace check
} // namespace lamport
