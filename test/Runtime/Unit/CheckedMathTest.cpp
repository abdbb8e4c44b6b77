//===- CheckedMathTest.cpp - Sizes computed without wrapping --------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#include "lamport/Runtime/CheckedMath.h"
#include "lamport/Runtime/Manifest.h"

#include <gtest/gtest.h>

#include <limits>

using namespace lamport::runtime;

namespace {

constexpr std::size_t kMax = std::numeric_limits<std::size_t>::max();

/// The message \p body throws, or "" where it throws nothing.
template <typename Body> std::string errorOf(Body &&body) {
  try {
    body();
  } catch (const Error &e) {
    return e.what();
  }
  return "";
}

TEST(CheckedMath, ExactWhereItFits) {
  EXPECT_EQ(multiplyExact(1u << 20, 1u << 20), std::size_t(1) << 40);
  EXPECT_EQ(multiplyExact(kMax, 1), kMax);
  EXPECT_EQ(multiplyExact(kMax, 0), 0u);
  EXPECT_EQ(addExact(kMax - 1, 1), kMax);
  EXPECT_EQ(checkedProduct({3, 64, 65536, 1 << 24, 2}, "x"), std::size_t(3)
                                                                 << 47);
  EXPECT_EQ(checkedRoundUp(17, 16, "x"), 32u);
  EXPECT_EQ(checkedRoundUp(32, 16, "x"), 32u);
  EXPECT_TRUE(rangeFits(kMax - 8, 8));
}

TEST(CheckedMath, OverflowIsAnErrorNamingWhat) {
  EXPECT_FALSE(multiplyExact(std::size_t(1) << 32, std::size_t(1) << 32));
  EXPECT_FALSE(addExact(kMax, 1));
  EXPECT_EQ(errorOf([] {
              checkedProduct({65536, 65536, 65536, 65536}, "argument 'x'");
            }),
            "argument 'x': 65536 x 65536 x 65536 x 65536 is more than "
            "2^64 - 1");
  // A factor of 0 after the overflow does not hide it.
  EXPECT_NE(errorOf([] { checkedProduct({kMax, 2, 0}, "y"); }), "");
  EXPECT_EQ(errorOf([] { checkedSum(kMax, 1, "z"); }),
            "z: 18446744073709551615 + 1 is more than 2^64 - 1");
  EXPECT_NE(errorOf([] { checkedRoundUp(kMax - 3, 16, "w"); }), "");
  EXPECT_FALSE(rangeFits(kMax - 8, 9));
}

ArgumentSpec buffer(std::vector<int64_t> shape, DType dtype = DType::BF16) {
  ArgumentSpec arg;
  arg.name = "extra";
  arg.dtype = dtype;
  arg.shape = std::move(shape);
  return arg;
}

TEST(CheckedMath, ArgumentSizes) {
  EXPECT_EQ(buffer({-1, 1024}).bytes(16), 32768u);
  // Each dimension fits an int32; the product does not fit 64 bits (it
  // wrapped to 0 before).
  EXPECT_EQ(errorOf([] { buffer({65536, 65536, 65536, 65536}).elements(1); }),
            "argument 'extra' [65536, 65536, 65536, 65536] bf16: its element "
            "count is more than 2^64 - 1");
  EXPECT_EQ(errorOf([] { buffer({-1, 1 << 30, 1 << 30, 1 << 30}).bytes(16); }),
            "argument 'extra' [16, 1073741824, 1073741824, 1073741824] "
            "bf16: its element count is more than 2^64 - 1");
  // The elements fit, the bytes do not.
  EXPECT_EQ(
      errorOf([] { buffer({2147483647, 2147483647, 4}, DType::F32).bytes(1); }),
      "argument 'extra' [2147483647, 2147483647, 4] f32: its byte count "
      "is more than 2^64 - 1");
  MailboxSpec mailbox;
  mailbox.name = "mb";
  mailbox.tp = 64;
  mailbox.capacity = 1 << 16;
  mailbox.width = 1 << 24;
  EXPECT_EQ(mailbox.copyBytes(), std::size_t(3) << 47);
}

} // namespace
