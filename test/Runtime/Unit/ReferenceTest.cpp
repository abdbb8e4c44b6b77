//===- ReferenceTest.cpp - BF16 helpers and host references ---------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#include "lamport/Check/Reference.h"
#include "lamport/Runtime/Error.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

using namespace lamport::runtime;
using namespace lamport::check;

namespace {

TEST(Bf16, RoundsToNearestEven) {
  EXPECT_EQ(floatToBf16(1.0f), 0x3F80);
  EXPECT_EQ(floatToBf16(-2.0f), 0xC000);
  // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties to even (1.0).
  EXPECT_EQ(floatToBf16(1.0f + std::ldexp(1.0f, -8)), 0x3F80);
  // 1 + 3 * 2^-8 is halfway between 1 + 2^-7 and 1 + 2^-6: ties to even.
  EXPECT_EQ(floatToBf16(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3F82);
  // Just above halfway rounds up.
  EXPECT_EQ(floatToBf16(1.0f + std::ldexp(1.0f, -8) + std::ldexp(1.0f, -20)),
            0x3F81);
  // Overflow rounds to infinity; the largest BF16 stays.
  EXPECT_EQ(floatToBf16(3.4e38f), 0x7F80);
  EXPECT_EQ(floatToBf16(bf16ToFloat(0x7F7F)), 0x7F7F);
  EXPECT_EQ(floatToBf16(-0.0f), 0x8000);
  EXPECT_EQ(floatToBf16(INFINITY), 0x7F80);
  // NaN stays NaN, quiet, with its sign.
  EXPECT_EQ(floatToBf16(std::nanf("")) & 0x7FC0, 0x7FC0);
  EXPECT_EQ(floatToBf16(-std::nanf("")) & 0x8000, 0x8000);
}

TEST(Bf16, WidensExactly) {
  EXPECT_EQ(bf16ToFloat(0x3F80), 1.0f);
  EXPECT_EQ(bf16ToFloat(0x0001), std::ldexp(1.0f, -133)); // subnormal
  EXPECT_TRUE(std::signbit(bf16ToFloat(0x8000)));
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    if ((bits & 0x7FFF) > 0x7F80)
      continue; // NaN payloads are quieted
    EXPECT_EQ(floatToBf16(bf16ToFloat(uint16_t(bits))), bits);
  }
}

TEST(Sentinel, OnlyNegativeZeroChanges) {
  EXPECT_EQ(canonicalizeSentinel(0x8000), 0x0000);
  for (uint16_t bits : {0x0000, 0x7F80, 0xFF80, 0x7FC0, 0x7F81, 0xFFC1, 0x0001,
                        0x807F, 0x8001, 0x3F80})
    EXPECT_EQ(canonicalizeSentinel(bits), bits);
}

TEST(Sum, OrdersDiffer) {
  EXPECT_EQ(parseSumOrder("rank_ascending"), SumOrder::RankAscending);
  EXPECT_EQ(parseSumOrder("pairwise"), SumOrder::Pairwise);
  EXPECT_THROW(parseSumOrder("tree"), Error);
  // ((1e8 + 1) + -1e8) + 1 == 1 but (1e8 + 1) + (-1e8 + 1) == 0 in FP32.
  std::vector<float> partials = {1e8f, 1.0f, -1e8f, 1.0f};
  EXPECT_EQ(sumPartials(partials, SumOrder::RankAscending), 1.0f);
  EXPECT_EQ(sumPartials(partials, SumOrder::Pairwise), 0.0f);
  // Odd counts: the last element passes up a level unchanged.
  EXPECT_EQ(sumPartials({1e8f, 1.0f, -1e8f}, SumOrder::Pairwise), 0.0f);
  EXPECT_EQ(sumPartials({1e8f, -1e8f, 1.0f}, SumOrder::Pairwise), 1.0f);
  EXPECT_EQ(sumPartials({5.0f}, SumOrder::Pairwise), 5.0f);
}

TEST(Reference, PollRowsCopiesAndCanonicalizes) {
  // tp = 2, m = 2, width = 8; out laid out [2, 3, 8] (rowsPerSlot 3).
  std::vector<std::vector<uint16_t>> rows(2, std::vector<uint16_t>(16));
  for (int i = 0; i < 16; ++i) {
    rows[0][i] = uint16_t(0x3F80 + i);
    rows[1][i] = uint16_t(0x4000 + i);
  }
  rows[0][3] = 0x8000;
  rows[1][9] = 0x7F81;
  std::vector<uint16_t> out(2 * 3 * 8, kPoison);
  referencePollRows(rows, 2, 8, OutputLayout{3, 8}, out);
  EXPECT_EQ(out[0], 0x3F80);
  EXPECT_EQ(out[3], 0x0000);          // -0.0 arrives as +0.0
  EXPECT_EQ(out[8 + 7], 0x3F80 + 15); // row 1 of slot 0
  EXPECT_EQ(out[16], kPoison);        // row 2 of slot 0: not written
  EXPECT_EQ(out[24 + 9], 0x7F81);     // slot 1, row 1, col 1: sNaN kept
  EXPECT_EQ(out[40], kPoison);
}

TEST(Reference, AllReduceSumsInOrderAndRounds) {
  // Three ranks, one row of 8; column 0 exercises RNE, column 1 the order.
  std::vector<std::vector<uint16_t>> rows(4, std::vector<uint16_t>(8, 0));
  rows[0][0] = floatToBf16(1.0f);
  rows[1][0] = floatToBf16(std::ldexp(1.0f, -8)); // exactly half an ulp
  rows[0][1] = floatToBf16(1e8f);
  rows[1][1] = floatToBf16(1.0f);
  rows[2][1] = floatToBf16(-1e8f);
  rows[3][1] = floatToBf16(1.0f);
  rows[0][2] = 0x8000; // every partial -0.0: published as +0.0
  rows[1][2] = 0x8000;
  rows[2][2] = 0x8000;
  rows[3][2] = 0x8000;
  std::vector<uint16_t> out(8, kPoison);
  referenceAllReduce(rows, 1, 8, SumOrder::RankAscending, out);
  EXPECT_EQ(out[0], 0x3F80); // 1 + 2^-8 ties to even: 1.0
  // ((V + 1) - V) + 1 with V = BF16(1e8): V + 1 rounds to V, so 1.
  EXPECT_EQ(out[1], floatToBf16(1.0f));
  EXPECT_EQ(out[2], 0x0000);
  referenceAllReduce(rows, 1, 8, SumOrder::Pairwise, out);
  EXPECT_EQ(out[1], floatToBf16(0.0f));
}

TEST(Tolerance, StreamJustInsidePassesJustOutsideFails) {
  // |alpha s| + |beta h| = 2: bound 2^-15 + 2^-126.
  double bound = streamTolerance(1.5, -0.5);
  EXPECT_EQ(bound, std::ldexp(1.0, -15) + std::ldexp(1.0, -126));
  EXPECT_EQ(streamTolerance(-1.5, 0.5), bound); // sizes, not signs
  double ref = 1.0;
  EXPECT_TRUE(withinTolerance(ref + std::ldexp(1.0, -15), ref, bound));
  EXPECT_TRUE(withinTolerance(ref - std::ldexp(1.0, -15), ref, bound));
  EXPECT_FALSE(withinTolerance(
      ref + std::ldexp(1.0, -15) + std::ldexp(1.0, -30), ref, bound));
  EXPECT_FALSE(withinTolerance(ref - std::ldexp(1.0, -14), ref, bound));
  // Near underflow the absolute term holds.
  EXPECT_TRUE(
      withinTolerance(std::ldexp(1.0, -127), 0.0, streamTolerance(0.0, 0.0)));
  EXPECT_FALSE(
      withinTolerance(std::ldexp(1.0, -125), 0.0, streamTolerance(0.0, 0.0)));
}

TEST(Tolerance, OutJustInsidePassesJustOutsideFails) {
  double ref = 0.75, w = 1.25, inv2 = 0.5;
  double bound = outTolerance(ref, w, inv2, 1.0, -1.0);
  double expected =
      std::ldexp(0.75, -8) +
      (1 + std::ldexp(1.0, -8)) * std::ldexp(1.0, -16) * 1.25 * 0.5 * 2.0 +
      std::ldexp(1.0, -133);
  EXPECT_DOUBLE_EQ(bound, expected);
  EXPECT_TRUE(withinTolerance(ref + bound * (1 - 1e-9), ref, bound));
  EXPECT_TRUE(withinTolerance(ref - bound * (1 - 1e-9), ref, bound));
  EXPECT_FALSE(withinTolerance(ref + bound * (1 + 1e-9), ref, bound));
  EXPECT_FALSE(withinTolerance(ref - bound * (1 + 1e-9), ref, bound));
  // NaN and infinities never pass.
  EXPECT_FALSE(withinTolerance(std::nan(""), ref, bound));
  EXPECT_FALSE(withinTolerance(INFINITY, ref, bound));
  EXPECT_FALSE(withinTolerance(-INFINITY, ref, 1e300));
}

TEST(Tolerance, OutAdmitsEitherBf16NeighbourOfAHalfway) {
  // 1 + 2^-8 lies halfway between the BF16 values 1 and 1 + 2^-7: an FP32
  // result a hair off rounds to either, and both must pass; the next BF16
  // value out must not.
  double ref = 1.0 + std::ldexp(1.0, -8);
  double bound = outTolerance(ref, 1.0, 1.0, 1.0, 0.0);
  EXPECT_TRUE(withinTolerance(bf16ToFloat(0x3F80), ref, bound));
  EXPECT_TRUE(withinTolerance(bf16ToFloat(0x3F81), ref, bound));
  EXPECT_FALSE(withinTolerance(bf16ToFloat(0x3F82), ref, bound));
  EXPECT_FALSE(withinTolerance(bf16ToFloat(0x3F7F), ref, bound));
  // The smallest subnormal passes where the reference is 0.
  EXPECT_TRUE(withinTolerance(bf16ToFloat(0x0001), 0.0,
                              outTolerance(0.0, 1.0, 1.0, 0.0, 0.0)));
}

TEST(Reference, DualNormRowIsTheFormulaInFp64) {
  const int h = 4;
  double reduced[h] = {1, -2, 3, 0};
  float stream[h] = {0.5f, -1.0f, 2.0f, 0.25f};
  float alpha[h] = {1.0f, 0.5f, 1.5f, 0.25f};
  float beta[1] = {0.75f};
  uint16_t post[h] = {floatToBf16(1.0f), floatToBf16(0.5f), floatToBf16(1.5f),
                      floatToBf16(1.25f)};
  uint16_t next[h] = {floatToBf16(0.5f), floatToBf16(1.0f), floatToBf16(1.25f),
                      floatToBf16(1.5f)};
  DualNormRowInputs in;
  in.width = h;
  in.reduced = reduced;
  in.stream = stream;
  in.alpha = alpha;
  in.alphaCount = h;
  in.beta = beta;
  in.betaCount = 1;
  in.postWeight = post;
  in.nextWeight = next;
  in.eps = 1e-6;
  double sRef[h], sBound[h], oRef[h], oBound[h];
  referenceDualNormRow(in, sRef, sBound, oRef, oBound);
  double inv1 = 1 / std::sqrt((1 + 4 + 9 + 0) / 4.0 + 1e-6);
  double s2[h], squares = 0;
  for (int c = 0; c < h; ++c) {
    double hv = reduced[c] * inv1 * bf16ToFloat(post[c]);
    s2[c] = double(alpha[c]) * stream[c] + 0.75 * hv;
    squares += s2[c] * s2[c];
    EXPECT_DOUBLE_EQ(sRef[c], s2[c]);
    EXPECT_DOUBLE_EQ(sBound[c],
                     streamTolerance(double(alpha[c]) * stream[c], 0.75 * hv));
  }
  double inv2 = 1 / std::sqrt(squares / h + 1e-6);
  for (int c = 0; c < h; ++c) {
    double hv = reduced[c] * inv1 * bf16ToFloat(post[c]);
    double out = s2[c] * inv2 * bf16ToFloat(next[c]);
    EXPECT_DOUBLE_EQ(oRef[c], out);
    EXPECT_DOUBLE_EQ(oBound[c],
                     outTolerance(out, bf16ToFloat(next[c]), inv2,
                                  double(alpha[c]) * stream[c], 0.75 * hv));
  }
  // Without a post-norm weight, h is the plain norm.
  in.postWeight = nullptr;
  referenceDualNormRow(in, sRef, sBound, oRef, oBound);
  EXPECT_DOUBLE_EQ(sRef[1], 0.5 * -1.0 + 0.75 * (-2 * inv1));
}

TEST(Pattern, DeterministicStepDependentAndSpecial) {
  std::set<uint16_t> seen;
  int differ = 0;
  for (uint64_t i = 0; i < 4096; ++i) {
    uint16_t v = patternValue(PatternKind::Bits, 7, 3, 1, i);
    EXPECT_EQ(v, patternValue(PatternKind::Bits, 7, 3, 1, i));
    EXPECT_NE(v, kPoison);
    differ += v != patternValue(PatternKind::Bits, 7, 4, 1, i);
    seen.insert(v);
  }
  EXPECT_GT(differ, 4000); // another step (set) gives other data
  for (uint16_t special : {0x8000, 0x7F80, 0xFF80, 0x7FC0, 0x7F81, 0x0001})
    EXPECT_TRUE(seen.count(special)) << std::hex << special;
  bool negativeZero = false;
  for (uint64_t i = 0; i < 4096; ++i) {
    uint16_t v = patternValue(PatternKind::Integers, 7, 3, 1, i);
    float f = bf16ToFloat(v);
    EXPECT_EQ(f, std::nearbyint(f));
    EXPECT_LE(std::fabs(f), 64.0f);
    negativeZero |= v == 0x8000;
  }
  EXPECT_TRUE(negativeZero);
}

} // namespace
