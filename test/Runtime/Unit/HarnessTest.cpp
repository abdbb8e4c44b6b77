//===- HarnessTest.cpp - Latency summary and reference coverage -----------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#include "lamport/Check/Harness.h"

#include <gtest/gtest.h>

using namespace lamport::runtime;
using namespace lamport::check;

namespace {

TEST(Latency, MedianP99MinMean) {
  RunReport report;
  for (int i = 100; i >= 1; --i) // 1..100 us, in any order
    report.stepMicros.push_back(i);
  summarizeLatency(report);
  EXPECT_EQ(report.medianMicros, 50); // the 50th of 100
  EXPECT_EQ(report.p99Micros, 99);
  EXPECT_EQ(report.minMicros, 1);
  EXPECT_DOUBLE_EQ(report.meanMicros, 50.5);

  RunReport one;
  one.stepMicros = {7.5};
  summarizeLatency(one);
  EXPECT_EQ(one.medianMicros, 7.5);
  EXPECT_EQ(one.p99Micros, 7.5);

  RunReport none;
  summarizeLatency(none);
  EXPECT_EQ(none.medianMicros, 0);
}

TEST(Harness, SimulatesEveryOpOfTheDialect) {
  // Every program-level op of the dialect (ProgramOpInterface) has a host
  // simulation, so --check covers every program lamport-compile writes.
  for (const char *op :
       {"publish_rows", "poll_rows", "all_reduce", "all_reduce_dual_norm",
        "dual_norm", "all_gather", "gemm_publish"})
    EXPECT_TRUE(hasReference(op)) << op;
  EXPECT_TRUE(hasReference("poll_rows"));
  EXPECT_TRUE(hasReference("all_reduce"));
  EXPECT_TRUE(hasReference("all_gather"));
  EXPECT_TRUE(hasReference("all_reduce_dual_norm"));
  EXPECT_FALSE(hasReference("all_to_all"));
  EXPECT_FALSE(hasReference(""));
}

} // namespace
