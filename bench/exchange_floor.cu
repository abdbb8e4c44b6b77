//===- exchange_floor.cu - The latency floor of a cross-GPU decode step ---===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// What can one decode step that exchanges rows between GPUs cost at least,
// in the harness lamport-boundary-bench times the boundary in (one kernel a
// step, steps back to back in a CUDA graph, PDL between them)? This program
// measures it with the least kernel that does what a Lamport step must do,
// and nothing else (no reduction, no norm, no sentinel, no re-arm):
//
//   griddepcontrol.wait                  (the previous step's grid is done)
//   step = *counter + 1                  (the stage a real step reads)
//   griddepcontrol.launch_dependents
//   store `bytes` of {step} into every peer's inbox slot [rank] (NVLink)
//   spin on the own inbox slots of every peer until they hold >= step,
//     bounded by %globaltimer (trap past --timeout-ms)
//   *counter = step                      (one thread; read after the grid)
//
// Grid (M, 4) x 256 threads for a payload of M rows of 8192 BF16 (16 bytes
// a thread, the launch shape of the one-kernel boundary at H = 8192); M = 0
// is a flag exchange (one 16-byte word a rank). With one GPU (tp = 1) the
// kernel stores and polls nothing: the floor of a dependent launch alone.
//
//   lamport-exchange-floor [--tp N,...] [--rows M,...] [--short S]
//                          [--long L] [--replays R] [--timeout-ms T]
//
// For each tp (default: 1 and every one of 2, 4, 8 the peers allow; rank r
// on GPU r, peer access between all pairs) and M (default 0, 1, 4, 16), one
// CUDA graph a GPU of S and one of L steps, replayed R times on every GPU
// at once (the GPUs wait on each other's stores, so they run in lockstep).
// The per-step time is (median of the L replays - median of the S replays)
// / (L - S), which cancels the graph launch and the skew between the GPUs'
// launches. After the runs every GPU's counter must equal the steps it ran
// and the inboxes must hold the last step: a mismatch, a trap or any CUDA
// error fails the program with what and where.
//
// No NVLink multicast object is created (NCCL is not used either).
//
//===----------------------------------------------------------------------===//

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

/// Fragments (16 bytes) of one row of 8192 BF16.
constexpr int kFragmentsPerRow = 8192 * 2 / 16;
/// The one-kernel boundary's CTAs per row and threads per CTA at H = 8192.
constexpr int kCtasPerRow = 4;
constexpr int kThreadsPerCta = 256;
constexpr int kMaxRanks = 8;

/// Fails the program with the call, its error and the context it ran in.
#define CHECK_CUDA(call, ...)                                                  \
  do {                                                                         \
    cudaError_t status_ = (call);                                              \
    if (status_ != cudaSuccess) {                                              \
      std::fprintf(stderr, "lamport-exchange-floor: %s failed: %s (", #call,   \
                   cudaGetErrorString(status_));                               \
      std::fprintf(stderr, __VA_ARGS__);                                       \
      std::fprintf(stderr, ")\n");                                             \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

/// The inboxes of every rank, as this rank's kernel sees them.
struct Inboxes {
  uint4 *slots[kMaxRanks]; ///< rank p's inbox: tp slots of `fragments` each
};

__device__ __forceinline__ uint64_t globalTimer() {
  uint64_t now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  return now;
}

/// A 16-byte store that is not cached away or merged (st.volatile).
__device__ __forceinline__ void storeVolatile(uint4 *address, uint4 value) {
  asm volatile(
      "st.volatile.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(address),
      "r"(value.x), "r"(value.y), "r"(value.z), "r"(value.w)
      : "memory");
}

/// Whether every word of a 16-byte fragment, read afresh (ld.volatile),
/// holds `step` or later (what a Lamport poll asks of a fragment).
__device__ __forceinline__ bool holdsStep(const uint4 *address, uint32_t step) {
  uint32_t x, y, z, w;
  asm volatile("ld.volatile.global.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(x), "=r"(y), "=r"(z), "=r"(w)
               : "l"(address)
               : "memory");
  return static_cast<int32_t>(x - step) >= 0 &&
         static_cast<int32_t>(y - step) >= 0 &&
         static_cast<int32_t>(z - step) >= 0 &&
         static_cast<int32_t>(w - step) >= 0;
}

/// One step of the least Lamport exchange (see the file header).
__global__ void exchangeStep(Inboxes inboxes, int rank, int tp, int fragments,
                             uint32_t *counter, uint64_t timeoutNs) {
  asm volatile("griddepcontrol.wait;" ::: "memory");
  const uint32_t step = *reinterpret_cast<volatile uint32_t *>(counter) + 1;
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  const int fragment = blockIdx.x * gridDim.y * blockDim.x +
                       blockIdx.y * blockDim.x + threadIdx.x;
  if (fragment < fragments) {
    const uint4 value = make_uint4(step, step, step, step);
    for (int peer = 0; peer < tp; ++peer) {
      if (peer == rank)
        continue;
      storeVolatile(inboxes.slots[peer] + size_t(rank) * fragments + fragment,
                    value);
    }
    const uint64_t deadline = globalTimer() + timeoutNs;
    for (int peer = 0; peer < tp; ++peer) {
      if (peer == rank)
        continue;
      const uint4 *slot =
          inboxes.slots[rank] + size_t(peer) * fragments + fragment;
      // A peer may already have stored the next step: it waits for this
      // rank's next store, not for this rank's reads.
      while (!holdsStep(slot, step)) {
        if (globalTimer() > deadline)
          __trap();
      }
    }
  }
  if (fragment == 0)
    *reinterpret_cast<volatile uint32_t *>(counter) = step;
}

std::vector<int> parseList(const char *text, const char *option) {
  std::vector<int> values;
  std::string rest = text;
  while (!rest.empty()) {
    size_t comma = rest.find(',');
    std::string item = rest.substr(0, comma);
    char *end = nullptr;
    long value = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || value < 0 || value > 1 << 20) {
      std::fprintf(stderr,
                   "lamport-exchange-floor: %s takes a comma-separated list "
                   "of non-negative integers, not '%s'\n",
                   option, text);
      std::exit(2);
    }
    values.push_back(int(value));
    rest = comma == std::string::npos ? "" : rest.substr(comma + 1);
  }
  return values;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

/// The buffers, streams and graphs of one (tp, M) point.
struct Point {
  int tp = 1, rows = 0, fragments = 1;
  std::vector<uint4 *> inbox;
  std::vector<uint32_t *> counter;
  std::vector<cudaStream_t> stream;
  std::vector<cudaEvent_t> start, stop;

  void setUp(int tpIn, int rowsIn) {
    tp = tpIn;
    rows = rowsIn;
    fragments = rows == 0 ? 1 : rows * kFragmentsPerRow;
    inbox.assign(tp, nullptr);
    counter.assign(tp, nullptr);
    stream.assign(tp, nullptr);
    start.assign(tp, nullptr);
    stop.assign(tp, nullptr);
    for (int rank = 0; rank < tp; ++rank) {
      CHECK_CUDA(cudaSetDevice(rank), "rank %d", rank);
      size_t bytes = size_t(tp) * fragments * sizeof(uint4);
      CHECK_CUDA(cudaMalloc(&inbox[rank], bytes), "rank %d, inbox of %zu bytes",
                 rank, bytes);
      CHECK_CUDA(cudaMemset(inbox[rank], 0, bytes), "rank %d", rank);
      CHECK_CUDA(cudaMalloc(&counter[rank], sizeof(uint32_t)), "rank %d", rank);
      CHECK_CUDA(cudaMemset(counter[rank], 0, sizeof(uint32_t)), "rank %d",
                 rank);
      CHECK_CUDA(
          cudaStreamCreateWithFlags(&stream[rank], cudaStreamNonBlocking),
          "rank %d", rank);
      CHECK_CUDA(cudaEventCreate(&start[rank]), "rank %d", rank);
      CHECK_CUDA(cudaEventCreate(&stop[rank]), "rank %d", rank);
      CHECK_CUDA(cudaDeviceSynchronize(), "rank %d", rank);
    }
  }

  /// A graph of `steps` PDL-chained steps for every rank.
  std::vector<cudaGraphExec_t> capture(int steps, uint64_t timeoutNs) {
    Inboxes inboxes{};
    for (int rank = 0; rank < tp; ++rank)
      inboxes.slots[rank] = inbox[rank];
    std::vector<cudaGraphExec_t> execs(tp, nullptr);
    for (int rank = 0; rank < tp; ++rank) {
      CHECK_CUDA(cudaSetDevice(rank), "rank %d", rank);
      cudaLaunchAttribute pdl{};
      pdl.id = cudaLaunchAttributeProgrammaticStreamSerialization;
      pdl.val.programmaticStreamSerializationAllowed = 1;
      cudaLaunchConfig_t config{};
      int active = tp == 1 ? 0 : fragments;
      int ctas = (std::max(active, 1) + kThreadsPerCta - 1) / kThreadsPerCta;
      config.gridDim = dim3((ctas + kCtasPerRow - 1) / kCtasPerRow,
                            std::min(ctas, kCtasPerRow), 1);
      config.blockDim = dim3(kThreadsPerCta, 1, 1);
      config.stream = stream[rank];
      config.attrs = &pdl;
      config.numAttrs = 1;
      CHECK_CUDA(cudaStreamBeginCapture(stream[rank],
                                        cudaStreamCaptureModeThreadLocal),
                 "rank %d", rank);
      for (int step = 0; step < steps; ++step)
        CHECK_CUDA(cudaLaunchKernelEx(&config, exchangeStep, inboxes, rank, tp,
                                      active, counter[rank], timeoutNs),
                   "rank %d, step %d of the capture", rank, step);
      cudaGraph_t graph;
      CHECK_CUDA(cudaStreamEndCapture(stream[rank], &graph), "rank %d", rank);
      CHECK_CUDA(cudaGraphInstantiate(&execs[rank], graph, 0), "rank %d", rank);
      CHECK_CUDA(cudaGraphDestroy(graph), "rank %d", rank);
    }
    return execs;
  }

  /// Replays every rank's graph at once `replays` times; the median time of
  /// rank 0's replays, in microseconds.
  double replay(const std::vector<cudaGraphExec_t> &execs, int replays) {
    std::vector<double> times;
    for (int replay = 0; replay < replays; ++replay) {
      for (int rank = 0; rank < tp; ++rank) {
        CHECK_CUDA(cudaSetDevice(rank), "rank %d", rank);
        CHECK_CUDA(cudaEventRecord(start[rank], stream[rank]), "rank %d", rank);
        CHECK_CUDA(cudaGraphLaunch(execs[rank], stream[rank]),
                   "rank %d, replay %d", rank, replay);
        CHECK_CUDA(cudaEventRecord(stop[rank], stream[rank]), "rank %d", rank);
      }
      for (int rank = 0; rank < tp; ++rank)
        CHECK_CUDA(cudaEventSynchronize(stop[rank]),
                   "rank %d, replay %d (a trap here: a poll passed "
                   "--timeout-ms)",
                   rank, replay);
      float ms = 0;
      CHECK_CUDA(cudaEventElapsedTime(&ms, start[0], stop[0]), "rank 0");
      times.push_back(ms * 1000.0);
    }
    return median(times);
  }

  /// Every counter holds `steps` and every inbox slot the last step.
  bool verify(uint32_t steps) {
    bool good = true;
    for (int rank = 0; rank < tp; ++rank) {
      CHECK_CUDA(cudaSetDevice(rank), "rank %d", rank);
      uint32_t value = 0;
      CHECK_CUDA(cudaMemcpy(&value, counter[rank], sizeof value,
                            cudaMemcpyDeviceToHost),
                 "rank %d", rank);
      if (value != steps) {
        std::fprintf(stderr,
                     "lamport-exchange-floor: tp %d, M %d: rank %d counted "
                     "%u steps, ran %u\n",
                     tp, rows, rank, value, steps);
        good = false;
      }
      if (tp == 1)
        continue;
      std::vector<uint4> host(size_t(tp) * fragments);
      CHECK_CUDA(cudaMemcpy(host.data(), inbox[rank],
                            host.size() * sizeof(uint4),
                            cudaMemcpyDeviceToHost),
                 "rank %d", rank);
      for (int peer = 0; peer < tp && good; ++peer)
        for (int f = 0; f < fragments && peer != rank; ++f) {
          const uint4 &v = host[size_t(peer) * fragments + f];
          if (v.x != steps || v.y != steps || v.z != steps || v.w != steps) {
            std::fprintf(stderr,
                         "lamport-exchange-floor: tp %d, M %d: rank %d's "
                         "slot of rank %d, fragment %d holds %u, not the "
                         "last step %u\n",
                         tp, rows, rank, peer, f, v.x, steps);
            good = false;
            break;
          }
        }
    }
    return good;
  }

  void tearDown() {
    for (int rank = 0; rank < tp; ++rank) {
      CHECK_CUDA(cudaSetDevice(rank), "rank %d", rank);
      CHECK_CUDA(cudaFree(inbox[rank]), "rank %d", rank);
      CHECK_CUDA(cudaFree(counter[rank]), "rank %d", rank);
      CHECK_CUDA(cudaStreamDestroy(stream[rank]), "rank %d", rank);
      CHECK_CUDA(cudaEventDestroy(start[rank]), "rank %d", rank);
      CHECK_CUDA(cudaEventDestroy(stop[rank]), "rank %d", rank);
    }
  }
};

} // namespace

int main(int argc, char **argv) {
  std::vector<int> tps, rowsList = {0, 1, 4, 16};
  int shortSteps = 64, longSteps = 320, replays = 21;
  double timeoutMs = 1000;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> const char * {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "lamport-exchange-floor: %s needs a value\n",
                     arg.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    auto single = [&](const char *text) {
      std::vector<int> values = parseList(text, arg.c_str());
      if (values.size() != 1 || values[0] == 0) {
        std::fprintf(stderr,
                     "lamport-exchange-floor: %s takes one positive "
                     "integer, not '%s'\n",
                     arg.c_str(), text);
        std::exit(2);
      }
      return values[0];
    };
    if (arg == "--tp")
      tps = parseList(value(), "--tp");
    else if (arg == "--rows")
      rowsList = parseList(value(), "--rows");
    else if (arg == "--short")
      shortSteps = single(value());
    else if (arg == "--long")
      longSteps = single(value());
    else if (arg == "--replays")
      replays = single(value());
    else if (arg == "--timeout-ms")
      timeoutMs = single(value());
    else if (arg == "--help" || arg == "-h") {
      std::printf("usage: lamport-exchange-floor [--tp N,...] [--rows M,...] "
                  "[--short S] [--long L] [--replays R] [--timeout-ms T]\n");
      return 0;
    } else {
      std::fprintf(stderr,
                   "lamport-exchange-floor: unknown argument '%s' "
                   "(--help lists them)\n",
                   arg.c_str());
      return 2;
    }
  }
  if (longSteps <= shortSteps) {
    std::fprintf(stderr,
                 "lamport-exchange-floor: --long (%d) must be more "
                 "than --short (%d)\n",
                 longSteps, shortSteps);
    return 2;
  }
  int devices = 0;
  CHECK_CUDA(cudaGetDeviceCount(&devices), "counting the GPUs");
  if (tps.empty()) {
    tps.push_back(1);
    for (int tp : {2, 4, 8})
      if (tp <= devices)
        tps.push_back(tp);
  }
  for (int tp : tps) {
    if (tp < 1 || tp > kMaxRanks || tp > devices) {
      std::fprintf(stderr,
                   "lamport-exchange-floor: tp %d needs %d GPUs (1 to %d); "
                   "this machine has %d\n",
                   tp, tp, kMaxRanks, devices);
      return 2;
    }
  }
  int maxTp = *std::max_element(tps.begin(), tps.end());
  for (int a = 0; a < maxTp; ++a)
    for (int b = 0; b < maxTp; ++b) {
      if (a == b)
        continue;
      int can = 0;
      CHECK_CUDA(cudaDeviceCanAccessPeer(&can, a, b), "GPU %d to %d", a, b);
      if (!can) {
        std::fprintf(stderr,
                     "lamport-exchange-floor: GPU %d cannot access GPU %d's "
                     "memory (no peer access): tp %d cannot run here\n",
                     a, b, maxTp);
        return 1;
      }
      CHECK_CUDA(cudaSetDevice(a), "GPU %d", a);
      cudaError_t status = cudaDeviceEnablePeerAccess(b, 0);
      if (status == cudaErrorPeerAccessAlreadyEnabled)
        cudaGetLastError();
      else
        CHECK_CUDA(status, "peer access from GPU %d to %d", a, b);
    }

  cudaDeviceProp prop{};
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0), "GPU 0");
  std::printf("lamport-exchange-floor: %s, %d GPU(s); per step = (median of "
              "%d-step replays - median of %d-step replays) / %d, %d "
              "replays each\n\n",
              prop.name, devices, longSteps, shortSteps, longSteps - shortSteps,
              replays);
  std::printf("| tp | M | bytes a rank stores | per step us |\n");
  std::printf("|---:|---:|---:|---:|\n");
  const uint64_t timeoutNs = uint64_t(timeoutMs * 1e6);
  bool good = true;
  for (int tp : tps) {
    for (int rows : rowsList) {
      if (tp == 1 && rows != rowsList.front())
        continue; // tp 1 stores nothing: one row is enough
      Point point;
      point.setUp(tp, rows);
      std::vector<cudaGraphExec_t> shortGraph =
          point.capture(shortSteps, timeoutNs);
      std::vector<cudaGraphExec_t> longGraph =
          point.capture(longSteps, timeoutNs);
      // Warm up, then alternate nothing: all short replays, then all long.
      point.replay(shortGraph, 3);
      point.replay(longGraph, 3);
      double shortUs = point.replay(shortGraph, replays);
      double longUs = point.replay(longGraph, replays);
      uint32_t ran = uint32_t((3 + replays) * (shortSteps + longSteps));
      good = point.verify(ran) && good;
      double perStep = (longUs - shortUs) / (longSteps - shortSteps);
      size_t bytes = tp == 1 ? 0 : size_t(point.fragments) * 16 * (tp - 1);
      std::printf("| %d | %d | %zu | %.2f |\n", tp, rows, bytes, perStep);
      std::fflush(stdout);
      for (int rank = 0; rank < tp; ++rank) {
        CHECK_CUDA(cudaSetDevice(rank), "rank %d", rank);
        CHECK_CUDA(cudaGraphExecDestroy(shortGraph[rank]), "rank %d", rank);
        CHECK_CUDA(cudaGraphExecDestroy(longGraph[rank]), "rank %d", rank);
      }
      point.tearDown();
    }
  }
  std::printf("\n%s\n", good ? "checks: PASS (every counter and inbox holds "
                               "the last step)"
                             : "checks: FAIL");
  return good ? 0 : 1;
}
