//===- HandleExchangeTest.cpp - Descriptors between rank processes --------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#include "lamport/Runtime/HandleExchange.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <cstring>

#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace lamport::runtime;

namespace {

std::string freshDirectory() {
  char pattern[] = "/tmp/lamport-exchange-XXXXXX";
  const char *made = ::mkdtemp(pattern);
  return made ? made : "";
}

/// A memfd of one page holding "rank R, handle H".
int pageOf(int rank, int handle) {
  int fd = ::memfd_create("exchange-test", MFD_CLOEXEC);
  if (fd < 0 || ::ftruncate(fd, 4096) != 0)
    return -1;
  std::string text =
      "rank " + std::to_string(rank) + ", handle " + std::to_string(handle);
  if (::pwrite(fd, text.c_str(), text.size() + 1, 0) !=
      ssize_t(text.size() + 1))
    return -1;
  return fd;
}

/// What the page behind \p fd says, read through a shared mapping.
std::string readPage(int fd) {
  void *page = ::mmap(nullptr, 4096, PROT_READ, MAP_SHARED, fd, 0);
  if (page == MAP_FAILED)
    return "<unmappable>";
  std::string text(static_cast<const char *>(page));
  ::munmap(page, 4096);
  return text;
}

/// One rank: exchanges two pages and checks every peer's. 0 when all is
/// well, else a distinct failure code.
int runRank(const std::string &directory, int rank, int tp) {
  auto store = openRendezvous(directory, rank, tp, 5);
  std::vector<int> fds{pageOf(rank, 0), pageOf(rank, 1)};
  std::vector<PeerHandles> peers = exchangeHandles(
      *store, "mailboxes", fds, "payload of " + std::to_string(rank), 5);
  for (int fd : fds)
    ::close(fd);
  for (int q = 0; q < tp; ++q) {
    if (q == rank) {
      if (!peers[q].fds.empty())
        return 2;
      continue;
    }
    if (peers[q].payload != "payload of " + std::to_string(q))
      return 3;
    if (peers[q].fds.size() != 2)
      return 4;
    for (int h = 0; h < 2; ++h)
      if (readPage(peers[q].fds[h].get()) !=
          "rank " + std::to_string(q) + ", handle " + std::to_string(h))
        return 5;
  }
  return 0;
}

int exitStatus(pid_t pid) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(HandleExchange, EveryRankMapsEveryPeersPages) {
  std::string directory = freshDirectory();
  const int tp = 4;
  std::vector<pid_t> children;
  for (int r = 1; r < tp; ++r) {
    pid_t pid = ::fork();
    if (pid == 0) {
      int status = 9;
      try {
        status = runRank(directory, r, tp);
      } catch (...) {
      }
      ::_exit(status);
    }
    children.push_back(pid);
  }
  EXPECT_EQ(runRank(directory, 0, tp), 0);
  for (pid_t child : children)
    EXPECT_EQ(exitStatus(child), 0);
  std::system(("rm -rf " + directory).c_str());
}

TEST(HandleExchange, ARankThatNeverComesIsNamed) {
  std::string directory = freshDirectory();
  pid_t child = ::fork();
  if (child == 0) {
    int status = 9;
    try {
      auto store = openRendezvous(directory, 1, 3, 5);
      std::vector<int> fds{pageOf(1, 0)};
      exchangeHandles(*store, "mailboxes", fds, "", 0.4);
    } catch (const RendezvousTimeout &error) {
      status = error.missing == std::vector<int>{2} ? 0 : 8;
    } catch (...) {
    }
    ::_exit(status);
  }
  auto store = openRendezvous(directory, 0, 3, 5);
  std::vector<int> fds{pageOf(0, 0)};
  auto start = std::chrono::steady_clock::now();
  try {
    exchangeHandles(*store, "mailboxes", fds, "", 0.4);
    FAIL() << "the exchange finished without rank 2";
  } catch (const RendezvousTimeout &error) {
    EXPECT_EQ(error.missing, std::vector<int>{2});
    EXPECT_NE(std::string(error.what()).find("rank 2 never set it"),
              std::string::npos)
        << error.what();
  }
  EXPECT_LT(
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count(),
      1.4);
  EXPECT_EQ(exitStatus(child), 0);
  ::close(fds[0]);
  std::system(("rm -rf " + directory).c_str());
}

TEST(HandleExchange, ARankThatDiesAfterPublishingItsSocketIsNamed) {
  std::string directory = freshDirectory();
  pid_t child = ::fork();
  if (child == 0) {
    // Publishes a socket path, then dies without serving it.
    auto store = openRendezvous(directory, 1, 2, 5);
    store->set("mailboxes/socket/1", directory + "/gone.sock");
    ::_exit(0);
  }
  EXPECT_EQ(exitStatus(child), 0);
  auto store = openRendezvous(directory, 0, 2, 5);
  std::vector<int> fds{pageOf(0, 0)};
  try {
    exchangeHandles(*store, "mailboxes", fds, "", 2);
    FAIL() << "the exchange finished without rank 1";
  } catch (const RendezvousTimeout &error) {
    EXPECT_EQ(error.missing, std::vector<int>{1});
    EXPECT_NE(std::string(error.what()).find("rank 1 died"), std::string::npos)
        << error.what();
  }
  ::close(fds[0]);
  std::system(("rm -rf " + directory).c_str());
}

} // namespace
