//===- RankProcesses.h - Forked rank processes ------------------*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// What every rank-process test needs: a fresh store directory, one forked
// process per rank, a current context on the fake device, the descriptors
// and fake cuMem mappings a process holds (to show nothing leaks), and the
// check that every rank sees what every rank wrote into the shared copies.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_TEST_RUNTIME_RANK_RANKPROCESSES_H
#define LAMPORT_TEST_RUNTIME_RANK_RANKPROCESSES_H

#include "lamport/Runtime/Driver.h"
#include "lamport/Runtime/RankMailboxes.h"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include <dirent.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

namespace ranktest {

using namespace lamport::runtime;

inline const std::string kInputs = LAMPORT_RUNTIME_TEST_INPUTS;

/// A fresh directory for a test's file store, removed with everything in
/// it when the test's scope ends (also on a failed assertion); forked ranks
/// leave by _exit and never remove it.
struct StoreDirectory {
  StoreDirectory() {
    char pattern[] = "/tmp/lamport-rank-test-XXXXXX";
    const char *made = ::mkdtemp(pattern);
    path = made ? made : "";
  }
  ~StoreDirectory() {
    if (!path.empty())
      std::system(("rm -rf " + path).c_str());
  }
  StoreDirectory(const StoreDirectory &) = delete;
  StoreDirectory &operator=(const StoreDirectory &) = delete;
  std::string path;
};

/// Runs \p body(rank) in one process per rank; returns each exit status
/// (-1 for a process killed by a signal or past 30 s). A body that throws
/// prints the message and exits 1.
inline std::vector<int> runRanks(int tp, const std::function<int(int)> &body) {
  std::vector<pid_t> pids;
  for (int r = 0; r < tp; ++r) {
    pid_t pid = ::fork();
    if (pid == 0) {
      int status = 1;
      try {
        status = body(r);
      } catch (const std::exception &error) {
        std::cerr << "rank " << r << ": " << error.what() << "\n";
      }
      std::cerr.flush();
      ::_exit(status);
    }
    pids.push_back(pid);
  }
  std::vector<int> statuses;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  for (pid_t pid : pids) {
    int status = 0;
    while (::waitpid(pid, &status, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() > deadline) {
        ::kill(pid, SIGKILL);
        ::waitpid(pid, &status, 0);
        break;
      }
      ::usleep(1000);
    }
    statuses.push_back(WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  }
  return statuses;
}

/// Retains device 0's primary context and makes it current.
inline void openContext() {
  CUdevice device;
  CUcontext context;
  LAMPORT_CU(cuDeviceGet(&device, 0), "test");
  LAMPORT_CU(cuDevicePrimaryCtxRetain(&context, device), "test");
  LAMPORT_CU(cuCtxSetCurrent(context), "test");
}

/// The file descriptors this process holds.
inline int openDescriptors() {
  int count = 0;
  if (DIR *fds = ::opendir("/proc/self/fd")) {
    while (::readdir(fds))
      ++count;
    ::closedir(fds);
  }
  return count;
}

/// The fake driver's cuMem allocations this process maps (its own copies
/// and the ones it imported: each a memfd mapping).
inline int fakeCopyMappings() {
  std::ifstream maps("/proc/self/maps");
  int count = 0;
  for (std::string line; std::getline(maps, line);)
    count += line.find("lamport-fake-cumem") != std::string::npos;
  return count;
}

/// A mailbox of \p tp ranks, 4 slots of 8 columns.
inline MailboxSpec smallMailbox(int tp) {
  MailboxSpec spec;
  spec.id = 0;
  spec.name = "mb";
  spec.tp = tp;
  spec.capacity = 4;
  spec.width = 8;
  return spec;
}

/// Rank \p rank stores rank + 1 at [stage 1, slot rank, row 2, column 5] of
/// every rank's copy of \p spec, through the address this process maps it
/// at, and checks, after \p store's barrier, that its own copy holds every
/// rank's value there and the sentinel everywhere else. 0 when it does.
inline int writeEveryCopy(RankMailboxes &mailboxes, const MailboxSpec &spec,
                          int rank, Rendezvous &store) {
  int tp = spec.tp;
  // The descriptor: this rank, its copy local, every copy a peer.
  std::vector<uint8_t> bytes(spec.descriptorBytes());
  std::memcpy(bytes.data(), mailboxes.descriptor(0), bytes.size());
  DescriptorFields fields = unpackDescriptor(bytes);
  if (fields.rank != rank || fields.local != mailboxes.copy(0, rank) ||
      fields.peers.size() != std::size_t(tp))
    return 2;
  for (int q = 0; q < tp; ++q) {
    uint64_t offset = mailboxByteOffset(1, rank, 2, 5, tp, 4, 8);
    uint16_t value = uint16_t(rank + 1);
    LAMPORT_CU(cuMemcpyHtoD(fields.peers[q] + offset, &value, 2), "store");
  }
  store.barrier("written", 5);
  std::vector<uint16_t> local(spec.copyBytes() / 2);
  LAMPORT_CU(cuMemcpyDtoH(local.data(), fields.local, spec.copyBytes()),
             "load");
  for (std::size_t i = 0; i < local.size(); ++i) {
    bool written = false;
    for (int q = 0; q < tp; ++q)
      if (i * 2 == mailboxByteOffset(1, q, 2, 5, tp, 4, 8)) {
        written = true;
        if (local[i] != q + 1)
          return 3;
      }
    if (!written && local[i] != kSentinel)
      return 4;
  }
  store.barrier("read", 5);
  return 0;
}

} // namespace ranktest

#endif // LAMPORT_TEST_RUNTIME_RANK_RANKPROCESSES_H
