//===- OutputChecksTest.cpp - The comparisons every step checker makes ----===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#include "lamport/Check/OutputChecks.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

using namespace lamport::runtime;
using namespace lamport::check;

namespace {

std::vector<uint8_t> bf16Bytes(const std::vector<float> &values) {
  std::vector<uint8_t> bytes(values.size() * 2);
  for (std::size_t i = 0; i < values.size(); ++i) {
    uint16_t bits = floatToBf16(values[i]);
    std::memcpy(&bytes[2 * i], &bits, 2);
  }
  return bytes;
}

} // namespace

TEST(OutputChecks, CountsBitMismatchesAndNamesTheFirst) {
  std::vector<uint8_t> want = bf16Bytes({1, 2, 3, 4});
  std::vector<uint8_t> got = bf16Bytes({1, 2, -3, 5});
  std::size_t first = 99;
  EXPECT_EQ(countMismatches(2, got, want, &first), 2u);
  EXPECT_EQ(first, 2u);
  EXPECT_EQ(countMismatches(2, want, want), 0u);
  // -0.0 and +0.0 differ bit for bit.
  EXPECT_EQ(countMismatches(2, bf16Bytes({-0.0f}), bf16Bytes({0.0f})), 1u);
}

TEST(OutputChecks, WithinBoundAndUnchangedPastTheWrittenRows) {
  NormExpectation norm;
  norm.rows = 1;
  norm.rowLength = 2;
  norm.reference = {10, -4};
  norm.bound = {0.5, 0.25};
  norm.base =
      std::make_shared<const std::vector<uint8_t>>(bf16Bytes({0, 0, 7, 7}));
  BoundCheck ok =
      checkWithinBound(DType::BF16, bf16Bytes({10.25, -4, 7, 7}), norm);
  EXPECT_TRUE(ok.pass());
  EXPECT_DOUBLE_EQ(ok.worst, 0.5);
  BoundCheck far =
      checkWithinBound(DType::BF16, bf16Bytes({10, -3, 7, 7}), norm);
  EXPECT_EQ(far.violations, 1u);
  EXPECT_EQ(far.worstAt, 1u);
  EXPECT_DOUBLE_EQ(far.worstViolation, 4);
  BoundCheck nan =
      checkWithinBound(DType::BF16, bf16Bytes({NAN, -4, 7, 7}), norm);
  EXPECT_EQ(nan.violations, 1u);
  BoundCheck outside =
      checkWithinBound(DType::BF16, bf16Bytes({10, -4, 7, 8}), norm);
  EXPECT_EQ(outside.violations, 0u);
  EXPECT_EQ(outside.outside, 1u);
  EXPECT_EQ(outside.firstOutside, 3u);
  EXPECT_FALSE(outside.pass());
}

TEST(OutputChecks, ElementValuesByDtype) {
  float f = 1.5f;
  int32_t i = -7;
  uint8_t bytes[4];
  std::memcpy(bytes, &f, 4);
  EXPECT_EQ(elementValue(DType::F32, bytes, 0), 1.5);
  std::memcpy(bytes, &i, 4);
  EXPECT_EQ(elementValue(DType::I32, bytes, 0), -7);
  std::vector<uint8_t> bf = bf16Bytes({2.5f});
  EXPECT_EQ(elementValue(DType::BF16, bf.data(), 0), 2.5);
}
