//===- InputsTest.cpp - The inputs of a step, by role ---------------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#include "lamport/Check/Inputs.h"
#include "lamport/Check/Reference.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <set>

using namespace lamport::runtime;
using namespace lamport::check;

namespace {

InputSpec spec(InputKind kind, const std::string &role, int64_t k = 0) {
  InputSpec s;
  s.kind = kind;
  s.role = role;
  s.dtype = inputDType(kind);
  s.rowLength = k;
  return s;
}

std::vector<uint16_t> bf16Input(const InputSpec &s, uint32_t set, int rank,
                                std::size_t count, uint64_t seed = 5) {
  std::vector<uint16_t> v(count);
  generateInput(s, seed, set, rank, v.data(), count);
  return v;
}

std::vector<float> f32Input(const InputSpec &s, uint32_t set, int rank,
                            std::size_t count) {
  std::vector<float> v(count);
  generateInput(s, 5, set, rank, v.data(), count);
  return v;
}

TEST(Inputs, GemmXHasFourNonzerosPerRowAtQuarterStrides) {
  const int64_t k = 64, rows = 16;
  InputSpec x = spec(InputKind::GemmX, "x", k);
  std::set<int64_t> offsets;
  for (int rank = 0; rank < 4; ++rank) {
    std::vector<uint16_t> v = bf16Input(x, 3, rank, rows * k);
    uint64_t key = inputKey(x, 5, 3, rank);
    for (int64_t row = 0; row < rows; ++row) {
      std::vector<int64_t> columns;
      for (int64_t c = 0; c < k; ++c) {
        float f = bf16ToFloat(v[row * k + c]);
        if (f != 0.0f) {
          columns.push_back(c);
          EXPECT_TRUE(f == -2 || f == -1 || f == 1 || f == 2) << f;
        } else {
          EXPECT_EQ(v[row * k + c], 0x0000); // zeros are +0.0
        }
      }
      ASSERT_EQ(columns.size(), 4u) << "row " << row;
      int64_t o = columns[0];
      offsets.insert(o);
      EXPECT_LT(o, k / 4);
      for (int q = 0; q < 4; ++q)
        EXPECT_EQ(columns[q], o + q * k / 4);
      // gemmXRow names the same nonzeros.
      GemmXRow nz = gemmXRow(key, row, k);
      for (int q = 0; q < 4; ++q) {
        EXPECT_EQ(nz.column[q], columns[q]);
        EXPECT_EQ(nz.value[q], bf16ToFloat(v[row * k + columns[q]]));
      }
    }
  }
  EXPECT_GT(offsets.size(), 8u); // o varies with rank and row
}

TEST(Inputs, WeightsAreSmallIntegersWithNegativeZeros) {
  InputSpec w = spec(InputKind::GemmWeight, "weight");
  const std::size_t count = 1 << 20; // many threads' worth
  std::vector<uint16_t> v = bf16Input(w, 1, 2, count + 3);
  uint64_t key = inputKey(w, 5, 1, 2);
  std::set<float> values;
  int negativeZeros = 0, positiveZeros = 0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    float f = bf16ToFloat(v[i]);
    EXPECT_EQ(f, std::nearbyint(f));
    EXPECT_LE(std::fabs(f), 2.0f);
    values.insert(f);
    negativeZeros += v[i] == 0x8000;
    positiveZeros += v[i] == 0x0000;
    // Random access gives the bits the parallel fill wrote.
    if (i % 4099 == 0 || i + 8 > v.size())
      EXPECT_EQ(gemmWeightBits(key, i), v[i]) << i;
  }
  EXPECT_EQ(values.size(), 5u);
  EXPECT_GT(negativeZeros, 1000);
  EXPECT_GT(positiveZeros, 1000);
}

TEST(Inputs, GemmOutputsAreSmallExactIntegers) {
  // y = x W^T over x's four nonzeros: |y| <= 4 * 2 * 2 = 16, an integer.
  const int64_t n = 256, k = 64, rows = 16;
  InputSpec x = spec(InputKind::GemmX, "x", k);
  InputSpec w = spec(InputKind::GemmWeight, "weight");
  std::vector<uint16_t> xv = bf16Input(x, 0, 0, rows * k);
  std::vector<uint16_t> wv = bf16Input(w, 0, 0, n * k);
  bool sixteen = false;
  double largest = 0;
  for (int64_t row = 0; row < rows; ++row)
    for (int64_t col = 0; col < n; ++col) {
      double sum = 0;
      for (int64_t c = 0; c < k; ++c)
        sum +=
            double(bf16ToFloat(xv[row * k + c])) * bf16ToFloat(wv[col * k + c]);
      EXPECT_EQ(sum, std::nearbyint(sum));
      EXPECT_LE(std::fabs(sum), 16.0);
      EXPECT_EQ(double(bf16ToFloat(floatToBf16(float(sum)))), sum);
      largest = std::max(largest, std::fabs(sum));
      sixteen |= std::fabs(sum) >= 8;
    }
  EXPECT_TRUE(sixteen) << largest;
}

TEST(Inputs, SaltedByRoleAndReplicatedAcrossRanks) {
  // The same role gives the same values, another role others.
  InputSpec alpha = spec(InputKind::Gate, "alpha");
  InputSpec beta = spec(InputKind::Gate, "beta");
  EXPECT_EQ(f32Input(alpha, 2, 0, 64), f32Input(alpha, 2, 0, 64));
  EXPECT_NE(f32Input(alpha, 2, 0, 64), f32Input(beta, 2, 0, 64));
  // Replicated kinds ignore the rank; sets differ.
  for (InputKind kind : {InputKind::Stream, InputKind::Gate,
                         InputKind::NormWeight, InputKind::Reduced}) {
    InputSpec s = spec(kind, "r");
    EXPECT_TRUE(s.replicated()) << inputKindName(kind);
    std::vector<uint8_t> a = inputBytes(s, 9, 4, 0, 1024);
    EXPECT_EQ(a, inputBytes(s, 9, 4, 3, 1024)) << inputKindName(kind);
    EXPECT_NE(a, inputBytes(s, 9, 5, 0, 1024)) << inputKindName(kind);
    EXPECT_NE(a, inputBytes(s, 10, 4, 0, 1024)) << inputKindName(kind);
  }
  // Sharded kinds differ per rank.
  for (InputKind kind : {InputKind::GemmX, InputKind::GemmWeight,
                         InputKind::Bits, InputKind::Integers}) {
    InputSpec s = spec(kind, "r", 64);
    EXPECT_FALSE(s.replicated());
    EXPECT_NE(inputBytes(s, 9, 4, 0, 1024), inputBytes(s, 9, 4, 1, 1024))
        << inputKindName(kind);
  }
}

TEST(Inputs, BitsAndIntegersKeepTheirPatternsUnsalted) {
  // Rows of publish_rows: the patterns of before roles, whatever the role.
  InputSpec bits = spec(InputKind::Bits, "");
  InputSpec named = spec(InputKind::Bits, "rows");
  std::vector<uint16_t> v = bf16Input(bits, 3, 1, 512, 7);
  EXPECT_EQ(v, bf16Input(named, 3, 1, 512, 7));
  for (std::size_t i = 0; i < v.size(); ++i)
    EXPECT_EQ(v[i], patternValue(PatternKind::Bits, 7, 3, 1, i));
  std::vector<uint16_t> n =
      bf16Input(spec(InputKind::Integers, ""), 3, 1, 512, 7);
  for (std::size_t i = 0; i < n.size(); ++i)
    EXPECT_EQ(n[i], patternValue(PatternKind::Integers, 7, 3, 1, i));
}

TEST(Inputs, StreamGatesAndNormWeightsStayInTheirRanges) {
  std::vector<float> stream =
      f32Input(spec(InputKind::Stream, "stream"), 1, 0, 1 << 16);
  std::set<int> exponents;
  int zeros = 0;
  for (float f : stream) {
    ASSERT_TRUE(std::isfinite(f));
    EXPECT_LT(std::fabs(f), 4.0f);
    if (f == 0.0f) {
      ++zeros;
      continue;
    }
    exponents.insert(std::ilogb(f));
  }
  EXPECT_EQ(exponents.size(), 14u); // 2^-12 .. 2^1
  EXPECT_GT(zeros, 0);
  for (float f : f32Input(spec(InputKind::Gate, "alpha"), 1, 0, 4096)) {
    EXPECT_GE(f, 0.25f);
    EXPECT_LE(f, 1.5f);
  }
  for (uint16_t v :
       bf16Input(spec(InputKind::NormWeight, "next_weight"), 1, 0, 4096)) {
    EXPECT_GE(bf16ToFloat(v), 0.5f);
    EXPECT_LE(bf16ToFloat(v), 1.5f);
  }
  for (uint16_t v :
       bf16Input(spec(InputKind::Reduced, "reduced"), 1, 0, 4096)) {
    float f = bf16ToFloat(v);
    EXPECT_EQ(f, std::nearbyint(f));
    EXPECT_LE(std::fabs(f), 64.0f);
  }
}

TEST(Inputs, BytesCountTheKindsElements) {
  EXPECT_EQ(inputElements(spec(InputKind::Stream, "s"), 64), 16u);
  EXPECT_EQ(inputElements(spec(InputKind::GemmWeight, "w"), 64), 32u);
  // Bits count 16-bit words whatever the buffer's dtype.
  InputSpec bits = spec(InputKind::Bits, "");
  bits.dtype = DType::F32;
  EXPECT_EQ(inputElements(bits, 64), 32u);
  std::vector<uint8_t> v = inputBytes(spec(InputKind::Gate, "a"), 1, 0, 0, 6);
  EXPECT_EQ(v[4], 0); // past the one whole FP32: zero
  EXPECT_EQ(v[5], 0);
}

TEST(Inputs, ParallelForCoversEveryIndexOnce) {
  std::vector<int> hits(100003, 0);
  parallelFor(hits.size(), 1000, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i)
      ++hits[i];
  });
  for (int h : hits)
    ASSERT_EQ(h, 1);
  int calls = 0;
  parallelFor(0, 10, [&](std::size_t, std::size_t) { ++calls; });
  EXPECT_LE(calls, 1);
}

} // namespace
