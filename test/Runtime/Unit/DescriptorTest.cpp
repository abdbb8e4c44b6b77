//===- DescriptorTest.cpp - Descriptor packing and the timeout record -----===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#include "lamport/Runtime/Descriptor.h"
#include "lamport/Runtime/Error.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace lamport::runtime;

namespace {

template <typename T> T at(const std::vector<uint8_t> &bytes, std::size_t o) {
  T v;
  std::memcpy(&v, bytes.data() + o, sizeof(T));
  return v;
}

DescriptorFields fieldsTp4(int rank) {
  DescriptorFields f;
  f.peers = {0x7f0000001000, 0x7f0000101000, 0x7f0000201000, 0x7f0000301000};
  f.local = f.peers[rank];
  f.multicast = 0;
  f.stage = 0x7f00000a0010;
  f.diagnostics = 0x7f00000b0020;
  f.rank = rank;
  f.mailboxId = 3;
  return f;
}

TEST(Descriptor, ByteOffsetsFollowBundleMd) {
  std::vector<uint8_t> bytes = packDescriptor(fieldsTp4(2));
  ASSERT_EQ(bytes.size(), 40u + 8 * 4);
  EXPECT_EQ(descriptor::bytes(8), 104u);
  EXPECT_EQ(at<uint64_t>(bytes, 0), 0x7f0000201000u);  // local
  EXPECT_EQ(at<uint64_t>(bytes, 8), 0u);               // multicast
  EXPECT_EQ(at<uint64_t>(bytes, 16), 0x7f00000a0010u); // stage
  EXPECT_EQ(at<uint64_t>(bytes, 24), 0x7f00000b0020u); // diagnostics
  EXPECT_EQ(at<int32_t>(bytes, 32), 2);                // rank
  EXPECT_EQ(at<int32_t>(bytes, 36), 3);                // mailbox_id
  for (int r = 0; r < 4; ++r)
    EXPECT_EQ(at<uint64_t>(bytes, 40 + 8 * r), fieldsTp4(0).peers[r]);
}

TEST(Descriptor, RoundTrips) {
  DescriptorFields f = fieldsTp4(1);
  f.multicast = 0x7e0000000000;
  DescriptorFields back = unpackDescriptor(packDescriptor(f));
  EXPECT_EQ(back.local, f.local);
  EXPECT_EQ(back.multicast, f.multicast);
  EXPECT_EQ(back.stage, f.stage);
  EXPECT_EQ(back.diagnostics, f.diagnostics);
  EXPECT_EQ(back.rank, 1);
  EXPECT_EQ(back.mailboxId, 3);
  EXPECT_EQ(back.peers, f.peers);
}

TEST(Descriptor, RejectsInconsistentFields) {
  DescriptorFields f = fieldsTp4(1);
  f.local = f.peers[0];
  EXPECT_THROW(packDescriptor(f), Error);
  f = fieldsTp4(1);
  f.rank = 4;
  EXPECT_THROW(packDescriptor(f), Error);
  f = fieldsTp4(1);
  f.peers[3] += 8;
  try {
    packDescriptor(f);
    FAIL() << "packed";
  } catch (const Error &e) {
    EXPECT_EQ(std::string(e.what()), "descriptor of rank 1, mailbox 3: copy "
                                     "of rank 3 is not 16-byte aligned");
  }
  EXPECT_THROW(unpackDescriptor(std::vector<uint8_t>(44)), Error);
}

TEST(Descriptor, ElementOffsets) {
  // [stage, slot, row, col] of a [3, tp, C, W] BF16 copy.
  EXPECT_EQ(mailboxByteOffset(0, 0, 0, 0, 8, 16, 8192), 0u);
  EXPECT_EQ(mailboxByteOffset(0, 0, 0, 8, 8, 16, 8192), 16u);
  EXPECT_EQ(mailboxByteOffset(0, 0, 1, 0, 8, 16, 8192), 2u * 8192);
  EXPECT_EQ(mailboxByteOffset(0, 1, 0, 0, 8, 16, 8192), 2u * 16 * 8192);
  EXPECT_EQ(mailboxByteOffset(2, 7, 15, 8191, 8, 16, 8192),
            2u * 3 * 8 * 16 * 8192 - 2);
}

TEST(TimeoutRecord, DescribesEveryField) {
  TimeoutRecord r{};
  r.claimed = 1;
  r.rank = 3;
  r.mailboxId = 0;
  r.stage = 2;
  r.slot = 5;
  r.row = 7;
  r.column = 4088;
  r.block = 12;
  r.elapsedNs = 2000123456;
  r.timeoutNs = 2000000000;
  EXPECT_EQ(describeTimeout(r, "attn"),
            "rank 3 timed out polling mailbox 'attn' (id 0): stage 2, slot 5 "
            "(data of rank 5 never came), row 7, column 4088, block 12, after "
            "2000.123 ms (timeout 2000.000 ms)");
}

} // namespace
