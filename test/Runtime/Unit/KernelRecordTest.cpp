//===- KernelRecordTest.cpp - ABI records from manifests, and their diffs -===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#include "lamport/Runtime/KernelRecord.h"
#include "lamport/Runtime/Manifest.h"

#include "TestManifests.h"

#include <gtest/gtest.h>

using namespace lamport::runtime;

namespace {

/// The shared tp = 2 publish/poll manifest with an f32 output, each kernel's
/// mailbox use, and buffers that say their io; the publish's names its role.
Manifest publishPoll() {
  nlohmann::json m = lamport::test::publishPollManifest();
  m["arguments"][2]["dtype"] = "f32";
  nlohmann::json &publish = m["kernels"][0], &poll = m["kernels"][1];
  publish["mailbox_use"] = "publish";
  poll["mailbox_use"] = "poll";
  publish.erase("attributes");
  poll.erase("attributes");
  publish["params"][1]["io"] = "in";
  publish["params"][1]["role"] = "rows";
  poll["params"][1]["io"] = "out";
  return parseManifest(m.dump());
}

const char *kPublish =
    "lamport-abi 1; kernel publish_rows_0; mailbox tp=2 capacity=16 "
    "width=1024 stages=3; buffer role=rows io=in dtype=bf16 "
    "shape=[-1,1024]; tokens";

TEST(KernelRecordTest, ManifestRecordFollowsTheDocumentedText) {
  Manifest m = publishPoll();
  EXPECT_EQ(manifestKernelRecord(m, m.kernels[0]), kPublish);
  // No role: the field is left out.
  EXPECT_EQ(manifestKernelRecord(m, m.kernels[1]),
            "lamport-abi 1; kernel poll_rows_0; mailbox tp=2 capacity=16 "
            "width=1024 stages=3; buffer io=out dtype=f32 "
            "shape=[2,-1,1024]; tokens");
  EXPECT_EQ(kernelRecordSymbol("poll_rows_0"), "lamport_abi_poll_rows_0");
}

TEST(KernelRecordTest, FirstDifferenceNamesParameterAndField) {
  Manifest m = publishPoll();
  std::string expected = manifestKernelRecord(m, m.kernels[0]);
  EXPECT_EQ(diffKernelRecords(kPublish, expected), "");

  m.mailboxes[0].capacity = 32;
  EXPECT_EQ(diffKernelRecords(kPublish, manifestKernelRecord(m, m.kernels[0])),
            "parameter 0 (mailbox): capacity is 32 in the manifest but 16 in "
            "the kernel");
  m = publishPoll();
  m.mailboxes[0].width = 512;
  EXPECT_EQ(diffKernelRecords(kPublish, manifestKernelRecord(m, m.kernels[0])),
            "parameter 0 (mailbox): width is 512 in the manifest but 1024 in "
            "the kernel");

  // Parameters in another order: the first position that differs.
  m = publishPoll();
  std::swap(m.kernels[0].params[0], m.kernels[0].params[1]);
  EXPECT_EQ(diffKernelRecords(kPublish, manifestKernelRecord(m, m.kernels[0])),
            "parameter 0: kind is buffer in the manifest but mailbox in the "
            "kernel");

  m = publishPoll();
  m.kernels[0].params[1].role.clear();
  EXPECT_EQ(diffKernelRecords(kPublish, manifestKernelRecord(m, m.kernels[0])),
            "parameter 1 (buffer): the manifest says io=in where the kernel "
            "was compiled for role=rows");

  m = publishPoll();
  m.kernels[0].params.pop_back();
  EXPECT_EQ(diffKernelRecords(kPublish, manifestKernelRecord(m, m.kernels[0])),
            "the manifest lists 2 parameters, the kernel was compiled for 3");
}

TEST(KernelRecordTest, ForeignBytesAreADifferenceNotACrash) {
  Manifest m = publishPoll();
  std::string expected = manifestKernelRecord(m, m.kernels[0]);
  EXPECT_EQ(diffKernelRecords("lamport-abi 2; kernel publish_rows_0", expected),
            "its ABI record is of another format ('lamport-abi 2'; this "
            "runtime reads 'lamport-abi 1')");
  EXPECT_EQ(diffKernelRecords("lamport-abi 1", expected),
            "its ABI record names '', not the kernel publish_rows_0");
  EXPECT_EQ(diffKernelRecords("lamport-abi 1; kernel poll_rows_0", expected),
            "its ABI record names 'kernel poll_rows_0', not the kernel "
            "publish_rows_0");
  std::string garbage(std::string(kPublish) + std::string(200, 'x'));
  std::string diff = diffKernelRecords(garbage, expected);
  EXPECT_EQ(diff.find("parameter 2: kind is tokens in the manifest but "
                      "tokensxxx"),
            0u)
      << diff;
  EXPECT_LT(diff.size(), 200u) << diff;
  EXPECT_NE(diffKernelRecords(std::string("\0\xff;; ", 5), expected), "");
}

} // namespace
