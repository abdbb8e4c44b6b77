//===- RankTest.cpp - Rank processes over the host-only driver ------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// Every test forks one process per rank. Run with the fake libcuda on
// LD_LIBRARY_PATH and FAKE_CUDA_POLL_WAIT_MS set (rank-processes.test), so
// the ranks' cuMem copies are shared memfds and a poll waits for another
// process's publish.
//
//===----------------------------------------------------------------------===//

#include "RankProcesses.h"

#include "lamport-c/RuntimeRank.h"
#include "lamport/Runtime/RankRuntime.h"
#include "lamport/Runtime/Session.h"

#include <gtest/gtest.h>

using namespace lamport::runtime;
using namespace ranktest;

namespace {

/// Rank \p rank of a group of \p tp on device 0, meeting at \p rendezvous
/// within \p seconds.
RankConfig rankConfig(int rank, int tp, const std::string &rendezvous,
                      double seconds) {
  RankConfig config;
  config.rank = rank;
  config.tp = tp;
  config.device = 0;
  config.rendezvous = rendezvous;
  config.rendezvousSeconds = seconds;
  return config;
}

/// The handle type this run's fake driver leads every rank to.
CopyHandle expectedHandles() {
  const char *fabric = std::getenv("FAKE_CUDA_FABRIC");
  return fabric && std::string(fabric) == "1" ? CopyHandle::Fabric
                                              : CopyHandle::PosixFd;
}

TEST(RankMailboxes, EveryRankSeesWhatEveryRankWrote) {
  StoreDirectory scratch;
  const std::string &directory = scratch.path;
  const int tp = 3;
  MailboxSpec spec = smallMailbox(tp);
  std::vector<int> statuses = runRanks(tp, [&](int rank) {
    openContext();
    auto store = openRendezvous(directory, rank, tp, 5);
    RankMailboxes mailboxes({spec}, rank, 0, *store, 5);
    if (rank == 0)
      std::cerr << "rank 0 shared its mailbox copies as "
                << copyHandleName(mailboxes.handleType()) << " handles\n";
    if (mailboxes.handleType() != expectedHandles())
      return 5;
    return writeEveryCopy(mailboxes, spec, rank, *store);
  });
  EXPECT_EQ(statuses, std::vector<int>(tp, 0));
}

/// Rows of rank \p rank at step \p step: a distinct pattern per element.
uint16_t rowValue(int rank, int step, std::size_t element) {
  return uint16_t(0x3F80 + (rank * 977 + step * 131 + element) % 0x3F00);
}

/// One rank of publish_poll_tp2: eager steps, then a captured step replayed
/// with new rows each time; every rank's rows must arrive in every slot.
int publishPollRank(const std::string &address, int rank) {
  RankConfig config = rankConfig(rank, 2, address, 10);
  RankRuntime runtime(kInputs + "/publish_poll_tp2", config);
  const int width = 1024, capacity = 16;
  CUdeviceptr rows = 0, out = 0;
  LAMPORT_CU(cuMemAlloc(&rows, capacity * width * 2), "rows");
  LAMPORT_CU(cuMemAlloc(&out, 2 * capacity * width * 2), "out");
  CUstream stream;
  LAMPORT_CU(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "stream");
  auto buffers = [&](int m) {
    return std::vector<BufferView>{
        {rows, DType::BF16, {m, width}}, {}, {out, DType::BF16, {2, m, width}}};
  };
  // The checks name the rank and the argument.
  try {
    runtime.step(stream, 3,
                 {{rows, DType::F32, {3, width}},
                  {},
                  {out, DType::BF16, {2, 3, width}}});
    return 10;
  } catch (const Error &error) {
    if (std::string(error.what()) !=
        concat("rank ", rank, ", argument 'rows': expected bf16, got f32"))
      return 11;
  }
  try {
    runtime.step(stream, 3, buffers(2));
    return 12;
  } catch (const Error &error) {
    if (std::string(error.what())
            .find("argument 'rows': expected shape [3, 1024] for 3 token(s)") ==
        std::string::npos)
      return 13;
  }
  auto upload = [&](int step, int m) {
    std::vector<uint16_t> host(std::size_t(m) * width);
    for (std::size_t i = 0; i < host.size(); ++i)
      host[i] = rowValue(rank, step, i);
    LAMPORT_CU(cuMemcpyHtoD(rows, host.data(), host.size() * 2), "rows");
  };
  auto check = [&](int step, int m) {
    std::vector<uint16_t> host(std::size_t(2) * m * width);
    LAMPORT_CU(cuMemcpyDtoH(host.data(), out, host.size() * 2), "out");
    for (int slot = 0; slot < 2; ++slot)
      for (std::size_t i = 0; i < std::size_t(m) * width; ++i)
        if (host[slot * m * width + i] != rowValue(slot, step, i))
          return false;
    return true;
  };
  int step = 0;
  for (int m : {1, 5, 16, 2}) {
    upload(step, m);
    runtime.step(stream, m, buffers(m));
    runtime.wait(stream, 10, concat("step ", step));
    if (!check(step, m))
      return 20 + step;
    runtime.store().barrier(concat("checked/", step), 10);
    ++step;
  }
  // A captured step: its launches' parameters and the device's stage words
  // carry it through every replay.
  LAMPORT_CU(cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_RELAXED),
             "capture");
  // Refused, and the capture goes on: CUDA would end it for a host copy.
  try {
    runtime.setPollTimeout(5000000000, stream);
    return 30;
  } catch (const Error &error) {
    if (std::string(error.what())
                .find(concat("rank ", rank,
                             ": the poll timeout cannot be set while its "
                             "stream is capturing "
                             "a CUDA graph")) != 0 ||
        runtime.pollTimeout() != 0)
      return 31;
  }
  runtime.step(stream, 4, buffers(4));
  CUgraph graph;
  CUgraphExec exec;
  LAMPORT_CU(cuStreamEndCapture(stream, &graph), "capture");
  LAMPORT_CU(cuGraphInstantiateWithFlags(&exec, graph, 0), "instantiate");
  for (int replay = 0; replay < 5; ++replay, ++step) {
    upload(step, 4);
    LAMPORT_CU(cuGraphLaunch(exec, stream), "replay");
    runtime.wait(stream, 10, concat("replay ", replay));
    if (!check(step, 4))
      return 40 + replay;
    runtime.store().barrier(concat("checked/", step), 10);
  }
  return 0;
}

TEST(RankRuntime, PublishPollAcrossProcessesEagerAndReplayed) {
  // Rank 0 serves the store on a port picked now and handed to rank 1.
  int ports[2];
  ASSERT_EQ(::pipe(ports), 0);
  std::vector<int> statuses = runRanks(2, [&](int rank) {
    if (rank == 0) {
      // Serve first, then tell rank 1 where.
      auto probe = openRendezvous("tcp://127.0.0.1:0", 0, 2, 10);
      int port = probe->port();
      probe.reset();
      (void)!::write(ports[1], &port, sizeof(port));
      return publishPollRank(concat("tcp://127.0.0.1:", port), 0);
    }
    int port = 0;
    if (::read(ports[0], &port, sizeof(port)) != sizeof(port))
      return 9;
    return publishPollRank(concat("tcp://127.0.0.1:", port), 1);
  });
  EXPECT_EQ(statuses, (std::vector<int>{0, 0}));
  ::close(ports[0]);
  ::close(ports[1]);
}

TEST(RankRuntime, ARankThatNeverArrivesIsNamed) {
  StoreDirectory scratch;
  const std::string &directory = scratch.path;
  auto start = std::chrono::steady_clock::now();
  std::vector<int> statuses = runRanks(1, [&](int) {
    RankConfig config = rankConfig(0, 2, directory, 0.5);
    try {
      RankRuntime runtime(kInputs + "/publish_poll_tp2", config);
    } catch (const RendezvousTimeout &error) {
      std::cerr << error.what() << "\n";
      return error.missing == std::vector<int>{1} ? 0 : 2;
    }
    return 3;
  });
  EXPECT_EQ(statuses, std::vector<int>{0});
  EXPECT_LT(
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count(),
      1.5);
}

/// Rank \p rank of publish_poll_tp2: rank 1 dies after the exchange, before
/// publishing anything; rank 0, its polls' timeout set to \p pollTimeoutNs
/// first unless that is 0, steps once. Returns 0 where rank 0's
/// KernelFailure holds \p expected.
int stepAfterPeerDied(const std::string &directory, int rank,
                      uint64_t pollTimeoutNs, const std::string &expected) {
  RankConfig config = rankConfig(rank, 2, directory, 10);
  RankRuntime runtime(kInputs + "/publish_poll_tp2", config);
  if (rank == 1)
    ::_exit(0);
  CUdeviceptr rows = 0, out = 0;
  LAMPORT_CU(cuMemAlloc(&rows, 1024 * 2), "rows");
  LAMPORT_CU(cuMemAlloc(&out, 2 * 1024 * 2), "out");
  CUstream stream;
  LAMPORT_CU(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "stream");
  if (runtime.pollTimeout() != 0)
    return 4;
  if (pollTimeoutNs) {
    runtime.setPollTimeout(pollTimeoutNs, stream);
    if (runtime.pollTimeout() != pollTimeoutNs)
      return 5;
  }
  try {
    runtime.step(
        stream, 1,
        {{rows, DType::BF16, {1, 1024}}, {}, {out, DType::BF16, {2, 1, 1024}}});
    runtime.wait(stream, 10, "the step after rank 1 died");
  } catch (const KernelFailure &error) {
    std::string message = error.what();
    std::cerr << message << "\n";
    return message.find(expected) != std::string::npos ? 0 : 2;
  }
  return 3;
}

TEST(RankRuntime, ARankThatDiesFailsItsPeersPollNamingIt) {
  StoreDirectory scratch;
  std::vector<int> statuses = runRanks(2, [&](int rank) {
    return stepAfterPeerDied(scratch.path, rank, 0,
                             "slot 1 (data of rank 1 never came)");
  });
  EXPECT_EQ(statuses, (std::vector<int>{0, 0}));
}

TEST(RankRuntime, APollTimeoutSetAtRunTimeIsTheOneThatTraps) {
  StoreDirectory scratch;
  // The poll waits the 5 s set, not the bundle's 1 s.
  std::vector<int> statuses = runRanks(2, [&](int rank) {
    return stepAfterPeerDied(scratch.path, rank, 5000000000,
                             "(timeout 5000.000 ms)");
  });
  EXPECT_EQ(statuses, (std::vector<int>{0, 0}));
}

void keepMessage(const char *message, size_t, void *userData) {
  *static_cast<std::string *>(userData) = message;
}

/// One rank through the C API: a refused step, then a real one.
int capiRank(const std::string &directory, int rank) {
  std::string message;
  LamportRank handle = nullptr;
  if (lamportRankCreate((kInputs + "/publish_poll_tp2").c_str(), rank, 2, 0,
                        ("file://" + directory).c_str(), 10, 1, &handle,
                        keepMessage, &message) != LAMPORT_STATUS_OK) {
    std::cerr << message << "\n";
    return 2;
  }
  int count = 0;
  if (lamportRankGetArgumentCount(handle, &count, nullptr, nullptr) !=
          LAMPORT_STATUS_OK ||
      count != 3)
    return 3;
  CUdeviceptr rows = 0, out = 0;
  LAMPORT_CU(cuMemAlloc(&rows, 1024 * 2), "rows");
  LAMPORT_CU(cuMemAlloc(&out, 2 * 1024 * 2), "out");
  std::vector<uint16_t> host(1024, uint16_t(0x3F80 + rank));
  LAMPORT_CU(cuMemcpyHtoD(rows, host.data(), 2048), "rows");
  int64_t rowsShape[2] = {1, 1024}, outShape[3] = {2, 1, 1024};
  int64_t transposed[3] = {1, 2, 2};
  LamportBuffer buffers[3] = {
      {rows, LAMPORT_DTYPE_BF16, 2, rowsShape, nullptr},
      {0, 0, 0, nullptr, nullptr},
      {out, LAMPORT_DTYPE_BF16, 3, outShape, transposed}};
  if (lamportRankStep(handle, nullptr, 1, buffers, 3, keepMessage, &message) !=
          LAMPORT_STATUS_ERROR ||
      message.find(concat("rank ", rank, ", argument 'out': not contiguous")) !=
          0)
    return 4;
  buffers[2].strides = nullptr;
  if (lamportRankStep(handle, nullptr, 1, buffers, 2, keepMessage, &message) !=
          LAMPORT_STATUS_ERROR ||
      message.find("takes 3 argument(s), got 2 buffer(s)") == std::string::npos)
    return 5;
  if (lamportRankStep(handle, nullptr, 1, buffers, 3, keepMessage, &message) !=
          LAMPORT_STATUS_OK ||
      lamportRankWait(handle, nullptr, 10, keepMessage, &message) !=
          LAMPORT_STATUS_OK) {
    std::cerr << message << "\n";
    return 6;
  }
  std::vector<uint16_t> got(2048);
  LAMPORT_CU(cuMemcpyDtoH(got.data(), out, 4096), "out");
  for (int slot = 0; slot < 2; ++slot)
    for (int i = 0; i < 1024; ++i)
      if (got[slot * 1024 + i] != 0x3F80 + slot)
        return 7;
  lamportRankDestroy(handle);
  return 0;
}

TEST(RankCApi, StepsAndRefusals) {
  StoreDirectory scratch;
  const std::string &directory = scratch.path;
  std::vector<int> statuses =
      runRanks(2, [&](int rank) { return capiRank(directory, rank); });
  EXPECT_EQ(statuses, (std::vector<int>{0, 0}));
}

/// One rank of all_reduce_tp4 over the nccl transport through the C API: an
/// eager step, then a captured one replayed with new rows. Rank r's rows
/// are r + 1 (then 2r + 2), so every out element is 10 (then 20).
int ncclRank(const std::string &directory, int rank) {
  std::string message;
  LamportRank handle = nullptr;
  std::string bundle = kInputs + "/all_reduce_tp4";
  std::string store = "file://" + directory;
  if (lamportRankCreateWithTransport(bundle.c_str(), rank, 4, 0, store.c_str(),
                                     10, 1, "ucx", &handle, keepMessage,
                                     &message) != LAMPORT_STATUS_ERROR ||
      message.find("unknown transport 'ucx'") == std::string::npos || handle)
    return 2;
  if (lamportRankCreateWithTransport(bundle.c_str(), rank, 4, 0, store.c_str(),
                                     10, 1, "nccl", &handle, keepMessage,
                                     &message) != LAMPORT_STATUS_OK) {
    std::cerr << message << "\n";
    return 3;
  }
  const int m = 3;
  CUdeviceptr rows = 0, out = 0;
  LAMPORT_CU(cuMemAlloc(&rows, m * 256 * 2), "rows");
  LAMPORT_CU(cuMemAlloc(&out, m * 256 * 2), "out");
  auto fill = [&](float value) {
    uint32_t bits;
    std::memcpy(&bits, &value, 4);
    std::vector<uint16_t> host(m * 256, uint16_t(bits >> 16));
    LAMPORT_CU(cuMemcpyHtoD(rows, host.data(), host.size() * 2), "rows");
  };
  auto check = [&](uint16_t want) {
    std::vector<uint16_t> got(m * 256);
    LAMPORT_CU(cuMemcpyDtoH(got.data(), out, got.size() * 2), "out");
    for (uint16_t v : got)
      if (v != want)
        return false;
    return true;
  };
  int64_t shape[2] = {m, 256};
  LamportBuffer buffers[3] = {{rows, LAMPORT_DTYPE_BF16, 2, shape, nullptr},
                              {0, 0, 0, nullptr, nullptr},
                              {out, LAMPORT_DTYPE_BF16, 2, shape, nullptr}};
  fill(float(rank + 1));
  if (lamportRankStep(handle, nullptr, m, buffers, 3, keepMessage, &message) !=
          LAMPORT_STATUS_OK ||
      lamportRankWait(handle, nullptr, 10, keepMessage, &message) !=
          LAMPORT_STATUS_OK) {
    std::cerr << message << "\n";
    return 4;
  }
  if (!check(0x4120)) // 10.0
    return 5;
  CUstream stream = nullptr;
  CUgraph graph = nullptr;
  CUgraphExec exec = nullptr;
  LAMPORT_CU(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "stream");
  LAMPORT_CU(cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_RELAXED),
             "capture");
  if (lamportRankStep(handle, stream, m, buffers, 3, keepMessage, &message) !=
      LAMPORT_STATUS_OK)
    return 6;
  LAMPORT_CU(cuStreamEndCapture(stream, &graph), "capture");
  LAMPORT_CU(cuGraphInstantiateWithFlags(&exec, graph, 0), "instantiate");
  fill(float(2 * rank + 2));
  LAMPORT_CU(cuGraphLaunch(exec, stream), "replay");
  if (lamportRankWait(handle, stream, 10, keepMessage, &message) !=
      LAMPORT_STATUS_OK) {
    std::cerr << message << "\n";
    return 7;
  }
  if (!check(0x41A0)) // 20.0
    return 8;
  lamportRankDestroy(handle);
  return 0;
}

TEST(RankCApi, NcclTransportEagerAndReplayed) {
  StoreDirectory scratch;
  const std::string &directory = scratch.path;
  std::vector<int> statuses =
      runRanks(4, [&](int rank) { return ncclRank(directory, rank); });
  EXPECT_EQ(statuses, (std::vector<int>{0, 0, 0, 0}));
}

TEST(RankRuntime, NcclTransportHasNoMailboxes) {
  StoreDirectory scratch;
  const std::string &directory = scratch.path;
  std::vector<int> statuses = runRanks(2, [&](int rank) {
    RankConfig config = rankConfig(rank, 2, "file://" + directory, 10);
    config.transport = RankTransport::Nccl;
    RankRuntime runtime(kInputs + "/attention_unfused_tp2", config);
    try {
      runtime.mailboxes();
    } catch (const Error &error) {
      return std::string(error.what()).find("no mailbox copies") !=
                     std::string::npos
                 ? 0
                 : 2;
    }
    return 3;
  });
  EXPECT_EQ(statuses, (std::vector<int>{0, 0}));
}

} // namespace
