//===- FabricTest.cpp - Mailbox copies shared as fabric handles -----------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// The fake driver offers fabric handles when FAKE_CUDA_FABRIC=1. Each rank
// process here sets it, or clears it, for itself before its first driver
// call, so these tests mean the same in either run of rank-processes.test:
// fabric handles through the store when every rank offers them, file
// descriptors for all when one does not, and a foreign handle refused with
// an error naming the rank and the mailbox, with nothing left behind.
//
//===----------------------------------------------------------------------===//

#include "RankProcesses.h"

#include <gtest/gtest.h>

using namespace lamport::runtime;
using namespace ranktest;

namespace {

/// Makes this process's fake driver offer fabric handles, or not.
void offerFabric(bool offer) {
  if (offer)
    ::setenv("FAKE_CUDA_FABRIC", "1", 1);
  else
    ::unsetenv("FAKE_CUDA_FABRIC");
}

/// Two ranks, rank r offering fabric handles when \p offers[r]: every rank
/// shares its copies as \p expected, sees every rank's writes, and holds no
/// more descriptors or mappings once its mailboxes are gone.
void shareAndRelease(const std::vector<bool> &offers, CopyHandle expected) {
  StoreDirectory scratch;
  const std::string &directory = scratch.path;
  int tp = int(offers.size());
  MailboxSpec spec = smallMailbox(tp);
  std::vector<int> statuses = runRanks(tp, [&](int rank) {
    offerFabric(offers[rank]);
    openContext();
    auto store = openRendezvous(directory, rank, tp, 5);
    int fds = openDescriptors(), maps = fakeCopyMappings();
    {
      RankMailboxes mailboxes({spec}, rank, 0, *store, 5);
      if (mailboxes.handleType() != expected)
        return 5;
      // Its own copy and every peer's, mapped.
      if (fakeCopyMappings() != maps + tp)
        return 6;
      // Fabric handles need no socket.
      bool socket = store->tryGet("lamport/mailboxes/socket/0").has_value();
      if (socket != (expected == CopyHandle::PosixFd))
        return 7;
      if (int status = writeEveryCopy(mailboxes, spec, rank, *store))
        return status;
    }
    if (openDescriptors() != fds || fakeCopyMappings() != maps)
      return 8;
    return 0;
  });
  EXPECT_EQ(statuses, std::vector<int>(tp, 0));
}

TEST(FabricHandles, SharedThroughTheStoreAndReleased) {
  shareAndRelease({true, true}, CopyHandle::Fabric);
}

TEST(FabricHandles, OneRankWithoutThemMeansFileDescriptorsForAll) {
  shareAndRelease({true, false}, CopyHandle::PosixFd);
  shareAndRelease({false, true}, CopyHandle::PosixFd);
}

/// Rank 0 meets a rank 1 that says it shares fabric handles and stores
/// \p handles (hex) after its copies' sizes; true when rank 0's error holds
/// every one of \p pieces and rank 0 holds nothing of the exchange after it.
bool foreignHandleRefused(const std::string &handles,
                          const std::vector<std::string> &pieces) {
  StoreDirectory scratch;
  const std::string &directory = scratch.path;
  MailboxSpec spec = smallMailbox(2);
  std::vector<int> statuses = runRanks(2, [&](int rank) {
    offerFabric(true);
    openContext();
    auto store = openRendezvous(directory, rank, 2, 5);
    if (rank == 1) {
      std::size_t bytes =
          MappedAllocation::mappedBytes(0, spec.copyBytes(), "rank 1");
      store->set("lamport/mailboxes/handles/1", "fabric");
      store->set("lamport/mailboxes/fabric/1",
                 concat("0:", bytes, "|", handles));
      return 0;
    }
    int fds = openDescriptors(), maps = fakeCopyMappings();
    try {
      RankMailboxes mailboxes({spec}, 0, 0, *store, 5);
      return 2;
    } catch (const Error &error) {
      std::string message = error.what();
      std::cerr << message << "\n";
      for (const std::string &piece : pieces)
        if (message.find(piece) == std::string::npos)
          return 3;
    }
    return openDescriptors() == fds && fakeCopyMappings() == maps ? 0 : 4;
  });
  return statuses == std::vector<int>{0, 0};
}

TEST(FabricHandles, AForeignHandleNamesRankAndMailbox) {
  // 64 bytes of another driver's handle: the import fails.
  EXPECT_TRUE(foreignHandleRefused(
      std::string(128, '0'),
      {"mailbox 'mb' (id 0), rank 1, mapped by rank 0: importing its copy "
       "from fabric handle 0000000000000000...",
       "CUDA_ERROR_INVALID_VALUE"}));
  // Not a handle at all.
  EXPECT_TRUE(foreignHandleRefused(
      std::string(128, 'z'), {"mailbox 'mb' (id 0), rank 1, mapped by rank "
                              "0: rank 1's fabric handle is not hex"}));
  EXPECT_TRUE(foreignHandleRefused(
      "abc", {"rank 0: rank 1 shared 3 hex digits of fabric handles for 1 "
              "mailbox(es), not 128"}));
}

} // namespace
