//===- HostMemoryTest.cpp - How much host memory a run may use ------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#include "lamport/Check/HostMemory.h"

#include <gtest/gtest.h>

using namespace lamport::check;

namespace {

TEST(HostMemory, MemAvailable) {
  EXPECT_EQ(parseMemAvailable("MemTotal:       32768000 kB\n"
                              "MemFree:         1000000 kB\n"
                              "MemAvailable:   20000000 kB\n"),
            uint64_t(20000000) * 1024);
  EXPECT_FALSE(parseMemAvailable("MemTotal: 1 kB\n"));
  EXPECT_FALSE(parseMemAvailable("MemAvailable: lots\n"));
  EXPECT_FALSE(parseMemAvailable("MemAvailable: 99999999999999999999 kB\n"));
}

TEST(HostMemory, CgroupHeadroom) {
  EXPECT_EQ(cgroupHeadroom("8589934592\n", "1073741824\n"), uint64_t(7) << 30);
  EXPECT_EQ(cgroupHeadroom("1024\n", "4096\n"), 0u);
  EXPECT_FALSE(cgroupHeadroom("max\n", "4096\n"));
  EXPECT_FALSE(cgroupHeadroom("", ""));
}

TEST(HostMemory, ThisHostHasSome) {
  // Every Linux build machine has /proc/meminfo.
  std::optional<HostMemory> host = availableHostMemory();
  ASSERT_TRUE(host);
  EXPECT_GT(host->bytes, 0u);
  EXPECT_FALSE(host->source.empty());
}

} // namespace
