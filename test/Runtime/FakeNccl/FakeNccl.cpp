//===- FakeNccl.cpp - A host-only libnccl.so.2 for testing the runtime ----===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// Exports the NCCL symbols the runtime binds (lamport/Runtime/Nccl.h),
// implemented on the host over the fake libcuda of test/Runtime/FakeDriver
// (device pointers are host pointers there), so the nccl transport runs in
// CI across real processes without a GPU:
//
//   - ncclGetUniqueId (rank 0) creates a POSIX shared-memory segment and
//     puts its name in the id; ncclCommInitRank maps it and waits, bounded,
//     until every rank has; rank 0 then unlinks the name, so nothing is left
//     in /dev/shm whatever happens to the processes later;
//   - ncclAllReduce enqueues itself with cuLaunchHostFunc on the caller's
//     stream (the fake driver runs it in stream order, and a capture records
//     it). Call n of a rank copies its BF16 rows into its slot, marks n as
//     arrived, waits for every rank's n, sums the slots in rank order in
//     FP32 (starting from rank 0's value, so -0.0 sums stay -0.0 as a GPU's
//     would), rounds to nearest even BF16, then waits for every rank to have
//     read before the slots are reused;
//   - every wait polls with a short sleep for at most FAKE_NCCL_TIMEOUT_MS
//     (default 5000); a rank that never arrives fails the call with
//     ncclRemoteError (also the communicator's async error), and
//     ncclGetLastError names the ranks missing.
// FAKE_NCCL_FAIL=WHAT[@RANK] injects a failure (on every rank, or on RANK):
//   id          ncclGetUniqueId returns ncclSystemError;
//   init        ncclCommInitRank returns ncclSystemError;
//   all_reduce  ncclAllReduce returns ncclInvalidUsage when called;
//   async       the all-reduce, when it runs, sets ncclInternalError as the
//               communicator's async error and writes nothing;
//   wrong       the all-reduce adds 1 to the first element it writes (a
//               wrong sum, for the checks to catch).
// A test double, not an NCCL: it checks the runtime's side of the calls.
//
//===----------------------------------------------------------------------===//

#include "lamport/Runtime/BFloat16.h"
#include "lamport/Runtime/Nccl.h"

#include <cuda.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

using namespace lamport::runtime::nccl;

namespace {

constexpr int kMaxRanks = 16;
/// Bytes of one rank's slot: the most one call carries (a sparse mapping).
constexpr std::size_t kSlotBytes = std::size_t(16) << 20;
constexpr uint32_t kMagic = 0x4e43434c; // "NCCL"
constexpr const char *kIdPrefix = "lamport-fake-nccl:";

struct Segment {
  uint32_t magic;
  std::atomic<int32_t> attached;
  std::atomic<uint64_t> arrived[kMaxRanks];
  std::atomic<uint64_t> left[kMaxRanks];
};

constexpr std::size_t kHeaderBytes = 4096;
constexpr std::size_t kSegmentBytes = kHeaderBytes + kMaxRanks * kSlotBytes;

} // namespace

/// What ncclComm_t points at.
struct lamport::runtime::nccl::Communicator {
  Segment *segment = nullptr;
  int rank = 0, size = 0;
  uint64_t calls = 0; ///< All-reduces run so far.
  std::atomic<int> asyncError{Success};
  std::string lastError;
};

namespace {

struct Call {
  Communicator *comm;
  const uint16_t *send;
  uint16_t *receive;
  std::size_t count;
};

int timeoutMs() {
  const char *text = std::getenv("FAKE_NCCL_TIMEOUT_MS");
  return text ? std::atoi(text) : 5000;
}

/// Whether FAKE_NCCL_FAIL asks \p what of rank \p rank (-1: any rank).
bool failing(const char *what, int rank) {
  const char *text = std::getenv("FAKE_NCCL_FAIL");
  if (!text)
    return false;
  std::string fail = text;
  std::size_t at = fail.find('@');
  if (fail.substr(0, at) != what)
    return false;
  return at == std::string::npos || rank < 0 ||
         std::atoi(fail.c_str() + at + 1) == rank;
}

char *slot(Segment *segment, int rank) {
  return reinterpret_cast<char *>(segment) + kHeaderBytes + rank * kSlotBytes;
}

/// Waits until every rank's \p counters reach \p target; false (naming the
/// missing ranks in \p comm's last error, for \p what) after the timeout.
bool waitAll(Communicator *comm, std::atomic<uint64_t> *counters,
             uint64_t target, const char *what) {
  auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs());
  for (;;) {
    std::string missing;
    for (int r = 0; r < comm->size; ++r)
      if (counters[r].load(std::memory_order_acquire) < target)
        missing += (missing.empty() ? "" : ", ") + std::to_string(r);
    if (missing.empty())
      return true;
    if (std::chrono::steady_clock::now() > deadline) {
      comm->lastError = "fake NCCL: rank " + std::to_string(comm->rank) +
                        " of " + std::to_string(comm->size) + ": rank(s) " +
                        missing + " never reached " + what + " " +
                        std::to_string(target) + " within " +
                        std::to_string(timeoutMs()) + " ms";
      std::fprintf(stderr, "%s\n", comm->lastError.c_str());
      return false;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

using lamport::runtime::bf16ToFloat;
using lamport::runtime::floatToBf16;

/// One all-reduce, in stream order (a host function of the fake driver).
void runAllReduce(void *data) {
  Call *call = static_cast<Call *>(data);
  Communicator *comm = call->comm;
  uint64_t n = ++comm->calls;
  if (comm->asyncError != Success)
    return;
  if (failing("async", comm->rank)) {
    comm->lastError = "fake NCCL: FAKE_NCCL_FAIL=async";
    comm->asyncError = InternalError;
    return;
  }
  Segment *segment = comm->segment;
  std::memcpy(slot(segment, comm->rank), call->send, call->count * 2);
  segment->arrived[comm->rank].store(n, std::memory_order_release);
  if (!waitAll(comm, segment->arrived, n, "all-reduce")) {
    comm->asyncError = RemoteError;
    return;
  }
  for (std::size_t i = 0; i < call->count; ++i) {
    const auto *first = reinterpret_cast<const uint16_t *>(slot(segment, 0));
    float sum = bf16ToFloat(first[i]);
    for (int r = 1; r < comm->size; ++r)
      sum +=
          bf16ToFloat(reinterpret_cast<const uint16_t *>(slot(segment, r))[i]);
    if (i == 0 && failing("wrong", comm->rank))
      sum += 1;
    call->receive[i] = floatToBf16(sum);
  }
  segment->left[comm->rank].store(n, std::memory_order_release);
  if (!waitAll(comm, segment->left, n, "the end of all-reduce"))
    comm->asyncError = RemoteError;
}

using LaunchHostFunc = CUresult (*)(CUstream, CUhostFn, void *);

/// The fake driver's cuLaunchHostFunc, or null (then calls run at once).
LaunchHostFunc launchHostFunc() {
  static LaunchHostFunc function = [] {
    void *driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    return driver ? reinterpret_cast<LaunchHostFunc>(
                        dlsym(driver, "cuLaunchHostFunc"))
                  : nullptr;
  }();
  return function;
}

} // namespace

extern "C" {

Result ncclGetVersion(int *version) {
  *version = 22809;
  return Success;
}

Result ncclGetUniqueId(UniqueId *id) {
  if (failing("id", 0))
    return SystemError;
  static std::atomic<int> made{0};
  std::string name = "/lamport-fake-nccl-" + std::to_string(::getpid()) + "-" +
                     std::to_string(made++);
  int fd = ::shm_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
  if (fd < 0)
    return SystemError;
  bool sized = ::ftruncate(fd, off_t(kSegmentBytes)) == 0;
  ::close(fd);
  if (!sized) {
    ::shm_unlink(name.c_str());
    return SystemError;
  }
  std::memset(id->internal, 0, sizeof(id->internal));
  std::snprintf(id->internal, sizeof(id->internal), "%s%s", kIdPrefix,
                name.c_str());
  return Success;
}

Result ncclCommInitRank(Comm *out, int nranks, UniqueId id, int rank) {
  *out = nullptr;
  if (nranks < 1 || nranks > kMaxRanks || rank < 0 || rank >= nranks)
    return InvalidArgument;
  if (failing("init", rank))
    return SystemError;
  std::size_t prefix = std::strlen(kIdPrefix);
  id.internal[sizeof(id.internal) - 1] = 0;
  if (std::strncmp(id.internal, kIdPrefix, prefix) != 0)
    return InvalidArgument;
  const char *name = id.internal + prefix;
  int fd = ::shm_open(name, O_RDWR, 0600);
  if (fd < 0)
    return SystemError;
  void *mapped =
      ::mmap(nullptr, kSegmentBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ::close(fd);
  if (mapped == MAP_FAILED)
    return SystemError;
  auto *comm = new Communicator;
  comm->segment = static_cast<Segment *>(mapped);
  comm->rank = rank;
  comm->size = nranks;
  comm->segment->attached.fetch_add(1);
  // Every rank has mapped the segment (or the time is up): its name can go.
  auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs());
  while (comm->segment->attached.load() < nranks &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  bool everyone = comm->segment->attached.load() >= nranks;
  if (rank == 0)
    ::shm_unlink(name);
  if (!everyone) {
    ::munmap(mapped, kSegmentBytes);
    delete comm;
    return RemoteError;
  }
  *out = comm;
  return Success;
}

Result ncclAllReduce(const void *send, void *receive, std::size_t count,
                     DataType type, RedOp op, Comm comm, CUstream stream) {
  if (!comm || type != Bfloat16 || op != Sum || count * 2 > kSlotBytes)
    return InvalidArgument;
  if (failing("all_reduce", comm->rank)) {
    comm->lastError = "fake NCCL: FAKE_NCCL_FAIL=all_reduce";
    return InvalidUsage;
  }
  // Kept for the lifetime of the process: a captured graph replays it.
  auto *call = new Call{comm, static_cast<const uint16_t *>(send),
                        static_cast<uint16_t *>(receive), count};
  LaunchHostFunc launch = launchHostFunc();
  if (!launch)
    runAllReduce(call);
  else if (launch(stream, runAllReduce, call) != CUDA_SUCCESS)
    return UnhandledCudaError;
  // As NCCL's, a failure of the operation itself is the communicator's
  // async error (ncclCommGetAsyncError), not this call's result.
  return Success;
}

Result ncclCommGetAsyncError(Comm comm, Result *error) {
  *error = Result(comm->asyncError.load());
  return Success;
}

Result ncclCommAbort(Comm comm) {
  // The mapping goes; the communicator stays, as a captured call may still
  // name it.
  if (comm && comm->segment)
    ::munmap(comm->segment, kSegmentBytes);
  if (comm) {
    comm->segment = nullptr;
    comm->asyncError = InvalidUsage;
  }
  return Success;
}

Result ncclCommDestroy(Comm comm) { return ncclCommAbort(comm); }

const char *ncclGetErrorString(Result result) {
  switch (result) {
  case Success:
    return "no error";
  case UnhandledCudaError:
    return "unhandled cuda error (run with NCCL_DEBUG=INFO for details)";
  case SystemError:
    return "unhandled system error (run with NCCL_DEBUG=INFO for details)";
  case InternalError:
    return "internal error - please report this issue to the NCCL developers";
  case InvalidArgument:
    return "invalid argument (run with NCCL_DEBUG=WARN for details)";
  case InvalidUsage:
    return "invalid usage (run with NCCL_DEBUG=WARN for details)";
  case RemoteError:
    return "remote process exited or there was a network error";
  case InProgress:
    return "NCCL operation in progress";
  }
  return "unknown result code";
}

const char *ncclGetLastError(Comm comm) {
  return comm ? comm->lastError.c_str() : "";
}

} // extern "C"
