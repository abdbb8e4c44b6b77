//===- RendezvousTest.cpp - The rendezvous store over TCP and files -------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#include "lamport/Runtime/Rendezvous.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <thread>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace lamport::runtime;

namespace {

std::string freshDirectory() {
  char pattern[] = "/tmp/lamport-rendezvous-XXXXXX";
  const char *made = ::mkdtemp(pattern);
  EXPECT_NE(made, nullptr);
  return made ? made : "";
}

/// Runs \p body in a child process; returns its exit status.
template <typename Body> pid_t forkRank(Body body) {
  pid_t pid = ::fork();
  if (pid == 0) {
    int status = 1;
    try {
      status = body();
    } catch (...) {
    }
    ::_exit(status);
  }
  return pid;
}

int exitStatus(pid_t pid) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

TEST(Rendezvous, TcpRanksGatherEachOthersValues) {
  auto root = openRendezvous("tcp://127.0.0.1:0", 0, 4, 5);
  ASSERT_GT(root->port(), 0);
  std::string address = "127.0.0.1:" + std::to_string(root->port());
  std::vector<std::vector<std::string>> seen(4);
  std::vector<std::thread> threads;
  for (int r = 1; r < 4; ++r)
    threads.emplace_back([&, r] {
      auto store = openRendezvous(address, r, 4, 5);
      store->set("socket/" + std::to_string(r), "path-" + std::to_string(r));
      seen[r] = store->gather("socket", 5);
    });
  root->set("socket/0", "path-0");
  seen[0] = root->gather("socket", 5);
  for (auto &thread : threads)
    thread.join();
  for (int r = 0; r < 4; ++r)
    EXPECT_EQ(seen[r], (std::vector<std::string>{"path-0", "path-1", "path-2",
                                                 "path-3"}))
        << "rank " << r;
}

TEST(Rendezvous, TcpBetweenProcessesCarriesBinaryValues) {
  auto root = openRendezvous("tcp://127.0.0.1:0", 0, 2, 5);
  std::string address = "tcp://127.0.0.1:" + std::to_string(root->port());
  std::string id(128, '\0');
  for (int i = 0; i < 128; ++i)
    id[i] = char(i * 7);
  pid_t child = forkRank([&] {
    auto store = openRendezvous(address, 1, 2, 5);
    store->set("nccl-id", id);
    return store->get("ack", 0, 5) == "yes" ? 0 : 3;
  });
  EXPECT_EQ(root->get("nccl-id", 1, 5), id);
  root->set("ack", "yes");
  EXPECT_EQ(exitStatus(child), 0);
}

TEST(Rendezvous, GatherNamesEveryMissingRank) {
  auto root = openRendezvous("tcp://127.0.0.1:0", 0, 4, 5);
  auto one =
      openRendezvous("127.0.0.1:" + std::to_string(root->port()), 1, 4, 5);
  one->set("ready/1", "1");
  root->set("ready/0", "1");
  auto start = std::chrono::steady_clock::now();
  try {
    root->gather("ready", 0.3);
    FAIL() << "gather returned without ranks 2 and 3";
  } catch (const RendezvousTimeout &error) {
    EXPECT_EQ(error.missing, (std::vector<int>{2, 3}));
    EXPECT_NE(std::string(error.what()).find("ranks 2, 3 never set it"),
              std::string::npos)
        << error.what();
  }
  double waited = secondsSince(start);
  EXPECT_GE(waited, 0.29);
  EXPECT_LT(waited, 1.3);
}

TEST(Rendezvous, GetNamesTheOwner) {
  auto root = openRendezvous("tcp://127.0.0.1:0", 0, 3, 5);
  try {
    root->get("socket/2", 2, 0.1);
    FAIL() << "get returned a key no rank set";
  } catch (const RendezvousTimeout &error) {
    EXPECT_EQ(error.missing, std::vector<int>{2});
    std::string message = error.what();
    EXPECT_NE(message.find("'socket/2' from rank 2"), std::string::npos)
        << message;
    EXPECT_NE(message.find("rank 2 died or never reached the rendezvous"),
              std::string::npos)
        << message;
  }
}

TEST(Rendezvous, ClientWithoutServerNamesRankZero) {
  int port = 0;
  {
    // A port that was free a moment ago: nothing serves it now.
    auto probe = openRendezvous("tcp://127.0.0.1:0", 0, 2, 5);
    port = probe->port();
  }
  auto start = std::chrono::steady_clock::now();
  try {
    openRendezvous("tcp://127.0.0.1:" + std::to_string(port), 1, 2, 0.3);
    FAIL() << "connected to a store nobody serves";
  } catch (const RendezvousTimeout &error) {
    EXPECT_EQ(error.missing, std::vector<int>{0});
    EXPECT_NE(std::string(error.what()).find("rank 0 died or never reached"),
              std::string::npos)
        << error.what();
  }
  EXPECT_LT(secondsSince(start), 1.3);
}

TEST(Rendezvous, ServerThatDiesFailsTheWaiters) {
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  pid_t server = forkRank([&] {
    auto root = openRendezvous("tcp://127.0.0.1:0", 0, 2, 5);
    int port = root->port();
    (void)!::write(ready[1], &port, sizeof(port));
    ::pause();
    return 0;
  });
  int port = 0;
  ASSERT_EQ(::read(ready[0], &port, sizeof(port)), ssize_t(sizeof(port)));
  auto store =
      openRendezvous("tcp://127.0.0.1:" + std::to_string(port), 1, 2, 5);
  store->set("here/1", "1");
  ::kill(server, SIGKILL);
  exitStatus(server);
  try {
    store->get("never", 0, 5);
    FAIL() << "a get outlived the store's server";
  } catch (const RendezvousTimeout &error) {
    EXPECT_EQ(error.missing, std::vector<int>{0});
    EXPECT_NE(std::string(error.what()).find("rank 0 died"), std::string::npos)
        << error.what();
  }
  ::close(ready[0]);
  ::close(ready[1]);
}

TEST(Rendezvous, FileStoreBetweenProcesses) {
  std::string directory = freshDirectory();
  auto zero = openRendezvous("file://" + directory, 0, 3, 5);
  std::vector<pid_t> children;
  for (int r = 1; r < 3; ++r)
    children.push_back(forkRank([&, r] {
      auto store = openRendezvous(directory, r, 3, 5);
      store->set("socket/" + std::to_string(r), "s" + std::to_string(r));
      store->barrier("opened", 5);
      return store->gather("socket", 5)[0] == "s0" ? 0 : 4;
    }));
  zero->set("socket/0", "s0");
  zero->barrier("opened", 5);
  EXPECT_EQ(zero->gather("socket", 5),
            (std::vector<std::string>{"s0", "s1", "s2"}));
  for (pid_t child : children)
    EXPECT_EQ(exitStatus(child), 0);
  std::system(("rm -rf " + directory).c_str());
}

TEST(Rendezvous, FileStoreBarrierNamesTheAbsentRank) {
  std::string directory = freshDirectory();
  auto zero = openRendezvous(directory, 0, 2, 5);
  try {
    zero->barrier("opened", 0.2);
    FAIL() << "a barrier passed without rank 1";
  } catch (const RendezvousTimeout &error) {
    EXPECT_EQ(error.missing, std::vector<int>{1});
    EXPECT_NE(std::string(error.what()).find("rank 1 never set it"),
              std::string::npos)
        << error.what();
  }
  std::system(("rm -rf " + directory).c_str());
}

TEST(Rendezvous, RefusesBadAddressesAndRanks) {
  EXPECT_THROW(openRendezvous("/nonexistent/lamport-store", 0, 2, 1), Error);
  EXPECT_THROW(openRendezvous("tcp://localhost", 0, 2, 1), Error);
  EXPECT_THROW(openRendezvous("tcp://localhost:0", 1, 2, 1), Error);
  EXPECT_THROW(openRendezvous("127.0.0.1:1234", 2, 2, 1), Error);
  EXPECT_THROW(openRendezvous("127.0.0.1:1234", 0, 2, 0), Error);
}

} // namespace
