//===- handover_chain.cu - x by sentinel, its producer in the chain -------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// Whether a GEMM that polls its activations x for the BF16 -0.0 sentinel,
// instead of running griddepcontrol.wait before it reads them, finishes a
// decode layer sooner, with the kernel that writes x in the chain
// (docs/design/gemm.md, "Open gaps"). lamport-gemm-bench cannot say: its
// chain is GEMMs alone, x never changes, so a poll always finds x ready.
//
// One layer is two kernels under programmatic dependent launch (PDL), both
// triggering their dependents first, as the serving kernels do:
//   - the producer (the all-reduce and norm's stand-in): waits for the GEMM
//     before it (it reads that GEMM's y), then writes this layer's x, never
//     as -0.0 (volatile stores, or plain ones with --x-stores plain), and
//     rearms the previous layer's x slot with -0.0;
//   - the GEMM's skeleton: C CTAs of 256 threads, each thread holding H
//     16-byte words of this layer's own weight W (loaded before x, held in
//     registers), then x into shared memory, a dot product per token and
//     feature, the sums of each feature's threads in a fixed order, y.
// Each layer has its own x slot, so a slot is polled once a replay and
// rearmed in the same replay after the GEMM that read it completed (by the
// next producer, the last one by a kernel at the end of the replay, after
// its wait): the next poll of it comes in the next replay, which starts
// after this one completed, and never sees the previous replay's x.
//
// How the GEMM gets x (--modes, each a graph of L layers timed alone):
//   wait         griddepcontrol.wait, then plain loads (what the compiler's
//                kernels do);
//   pollvolatile 16-byte volatile loads until no BF16 lane is -0.0, the
//                wait at the exit (the mailbox polls' loads);
//   pollcg       the same with ld.global.cg;
//   pollrelaxed  the same with ld.relaxed.gpu;
//   pollbackoff  the volatile poll sleeping --backoff-ns (200) before each
//                retry, so that spinning GEMM CTAs leave the producer's
//                SMs their issue slots and L2 its bandwidth;
//   ready        plain loads at once, no wait before the exit either (not
//                valid: a bound, x possibly stale).
// Every valid mode must leave y bitwise as the wait does after the same
// replays (x mixes in a replay counter and the previous GEMM's y, so a
// stale or torn x changes y); every spin is bounded by %globaltimer and
// traps. Weights of all layers together exceed twice the 60 MB L2.
//
//   lamport-handover-chain [--k K] [--words H] [--ctas C] [--m M,...]
//       [--layers L] [--replays R] [--producer-ctas P] [--modes LIST]
//       [--backoff-ns NS] [--x-stores plain|volatile]
//
// Prints one row per (M, mode): the median time of a layer over the
// replays, against the wait's, and whether y matched it. Exit status 1 on
// a CUDA error, a poll that timed out or a valid mode whose y differs; 2
// on bad arguments.
//
//===----------------------------------------------------------------------===//

#include "pdl.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

const char *const lamport::bench::kToolName = "lamport-handover-chain";

namespace {

using lamport::bench::fail;
using lamport::bench::globalTimerNs;
using lamport::bench::launchDependents;
using lamport::bench::parseCount;
using lamport::bench::splitList;
using lamport::bench::waitForPredecessor;

constexpr int kThreads = 256;
/// The most tokens a launch takes.
constexpr int kMaxTokens = 16;
/// x's loads a thread has in flight at once.
constexpr int kLoadBatch = 4;
/// The held words a thread may take (--words): each a kernel of its own,
/// so that a thread holds only its own words in registers.
constexpr int kWordCounts[] = {4, 5, 8, 10, 11, 16};
/// A spin gives up after this long.
constexpr uint64_t kSpinTimeoutNs = 200'000'000;
constexpr uint32_t kSentinelPair = 0x80008000u;

enum class Mode { wait, pollVolatile, pollCg, pollRelaxed, pollBackoff, ready };

struct ModeInfo {
  const char *name;
  Mode mode;
  bool valid;
};

constexpr ModeInfo kModes[] = {{"wait", Mode::wait, true},
                               {"pollvolatile", Mode::pollVolatile, true},
                               {"pollcg", Mode::pollCg, true},
                               {"pollrelaxed", Mode::pollRelaxed, true},
                               {"pollbackoff", Mode::pollBackoff, true},
                               {"ready", Mode::ready, false}};

/// One layer's problem: y[m, n] = x[m, k] W[n, k]^T, n = ctas x features.
struct Problem {
  int m, k, words, ctas;
  /// pollbackoff's sleep before each retry, ns.
  unsigned backoffNs = 200;
  /// Whether the producer stores x with st.volatile (--x-stores volatile,
  /// as a mailbox publish is seen at once) rather than plain stores.
  bool volatileStores = true;
  /// Output features of a CTA: its 256 x H words of 8 K cover them x K.
  __host__ __device__ int features() const { return kThreads * 8 * words / k; }
  __host__ __device__ int64_t n() const { return int64_t(ctas) * features(); }
  __host__ __device__ int64_t xChunks() const { return int64_t(m) * k / 8; }
  size_t sharedBytes() const {
    return size_t(xChunks()) * 16 + size_t(m) * kThreads * sizeof(float);
  }
};

__device__ float bf16ToFloat(uint32_t bits) {
  return __uint_as_float(bits << 16);
}

/// Round to nearest even; NaN stays NaN.
__device__ uint32_t floatToBf16(float value) {
  uint32_t bits = __float_as_uint(value);
  if ((bits & 0x7fffffffu) > 0x7f800000u)
    return 0x7fc0;
  return (bits + 0x7fff + ((bits >> 16) & 1)) >> 16;
}

/// A value in [-0.5, 0.5) from the position and replay (not random, but
/// different at every one).
__device__ float hashUnit(uint32_t a, uint32_t b, uint32_t c) {
  uint32_t h = a * 0x9e3779b1u ^ (b + 0x7f4a7c15u) * 0x85ebca6bu ^
               (c + 0x165667b1u) * 0xc2b2ae35u;
  h ^= h >> 15;
  h *= 0x2c1b3c6du;
  h ^= h >> 12;
  return float(h & 0xffff) / 65536.0f - 0.5f;
}

/// The producer of layer `layer`: after the GEMM before it, x[t][c] from
/// the replay, the position and that GEMM's y (as -0.0 never: +0.0), and
/// -0.0 over the previous layer's slot `rearm` (null for the first).
__global__ void producerKernel(const uint16_t *previousY, int64_t n, uint4 *x,
                               uint4 *rearm, int m, int k,
                               const unsigned *replay, int layer,
                               bool volatileStores) {
  launchDependents();
  waitForPredecessor();
  unsigned r = *replay;
  int64_t chunks = int64_t(m) * k / 8;
  for (int64_t chunk = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
       chunk < chunks; chunk += int64_t(gridDim.x) * blockDim.x) {
    if (rearm)
      rearm[chunk] = make_uint4(kSentinelPair, kSentinelPair, kSentinelPair,
                                kSentinelPair);
    uint32_t lanes[8];
    for (int e = 0; e < 8; ++e) {
      int64_t element = chunk * 8 + e;
      int t = int(element / k), column = int(element % k);
      float carried = bf16ToFloat(previousY[t * n + column % n]);
      if (!(carried == carried))
        carried = 0; // the poisoned y before the first replay
      carried = fminf(fmaxf(carried, -1.0f), 1.0f);
      uint32_t bits =
          floatToBf16(hashUnit(column, t * 131 + layer, r) + 0.25f * carried);
      lanes[e] = bits == 0x8000 ? 0 : bits;
    }
    uint4 value =
        make_uint4(lanes[0] | lanes[1] << 16, lanes[2] | lanes[3] << 16,
                   lanes[4] | lanes[5] << 16, lanes[6] | lanes[7] << 16);
    if (volatileStores)
      asm volatile(
          "st.volatile.global.v4.b32 [%0], {%1, %2, %3, %4};" ::"l"(x + chunk),
          "r"(value.x), "r"(value.y), "r"(value.z), "r"(value.w)
          : "memory");
    else
      x[chunk] = value;
  }
}

/// After the last GEMM of a replay: rearms its slot, counts the replay.
__global__ void endOfReplayKernel(uint4 *lastSlot, int64_t chunks,
                                  unsigned *replay) {
  waitForPredecessor();
  for (int64_t chunk = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
       chunk < chunks; chunk += int64_t(gridDim.x) * blockDim.x)
    lastSlot[chunk] =
        make_uint4(kSentinelPair, kSentinelPair, kSentinelPair, kSentinelPair);
  if (blockIdx.x == 0 && threadIdx.x == 0)
    *replay += 1;
}

__device__ bool holdsSentinel(uint4 v) {
  uint32_t words[4] = {v.x, v.y, v.z, v.w};
  bool found = false;
  for (uint32_t word : words)
    found |= (word & 0xffffu) == 0x8000u || (word >> 16) == 0x8000u;
  return found;
}

template <Mode M> __device__ uint4 loadX(const uint4 *address) {
  uint4 v;
  if constexpr (M == Mode::pollVolatile || M == Mode::pollBackoff)
    asm volatile("ld.volatile.global.v4.b32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(address)
                 : "memory");
  else if constexpr (M == Mode::pollCg)
    asm volatile("ld.global.cg.v4.b32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(address)
                 : "memory");
  else if constexpr (M == Mode::pollRelaxed)
    asm volatile("ld.relaxed.gpu.global.v4.b32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(address)
                 : "memory");
  else
    v = *address;
  return v;
}

/// `sum` plus the dot product of 8 BF16 pairs, in a fixed order of fused
/// multiply-adds (so every mode's kernel rounds alike).
__device__ float dot8(uint4 x, uint4 w, float sum) {
  uint32_t xs[4] = {x.x, x.y, x.z, x.w}, ws[4] = {w.x, w.y, w.z, w.w};
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    sum = __fmaf_rn(bf16ToFloat(xs[i] & 0xffff), bf16ToFloat(ws[i] & 0xffff),
                    sum);
    sum = __fmaf_rn(bf16ToFloat(xs[i] >> 16), bf16ToFloat(ws[i] >> 16), sum);
  }
  return sum;
}

/// The GEMM's skeleton. Thread j's word q is feature j % F of the CTA at
/// K chunk j / F + q x 256 / F (8 K a chunk).
/// Three CTAs an SM up to 10 words a thread, two past it, in every mode
/// alike (ptxas gives the wait's plain loads more registers otherwise).
template <Mode M, int Words>
__global__ void __launch_bounds__(kThreads, Words <= 10 ? 3 : 2)
    gemmKernel(const uint4 *w, const uint4 *x, uint16_t *y, Problem p,
               unsigned *timedOut) {
  extern __shared__ uint4 shared[];
  launchDependents();
  uint4 held[Words];
#pragma unroll
  for (int q = 0; q < Words; ++q)
    held[q] = w[(int64_t(blockIdx.x) * Words + q) * kThreads + threadIdx.x];
  if constexpr (M == Mode::wait)
    waitForPredecessor();
  // x into shared memory, kLoadBatch loads in flight before any is checked
  // (as the mailbox polls issue theirs); while any of them holds the
  // sentinel, those that do are re-issued together, so a retry costs one
  // round trip however many of them are still armed.
  int64_t chunks = p.xChunks();
  uint64_t deadline = 0;
  for (int64_t base = threadIdx.x; base < chunks;
       base += int64_t(kThreads) * kLoadBatch) {
    uint4 loaded[kLoadBatch];
#pragma unroll
    for (int b = 0; b < kLoadBatch; ++b)
      if (base + b * kThreads < chunks)
        loaded[b] = loadX<M>(x + base + b * kThreads);
    if constexpr (M != Mode::wait && M != Mode::ready) {
      while (true) {
        bool armed = false;
#pragma unroll
        for (int b = 0; b < kLoadBatch; ++b)
          armed |= base + b * kThreads < chunks && holdsSentinel(loaded[b]);
        if (!armed)
          break;
        uint64_t now = globalTimerNs();
        if (!deadline)
          deadline = now + kSpinTimeoutNs;
        else if (now > deadline) {
          atomicExch(timedOut, 1u);
          __trap();
        }
        if constexpr (M == Mode::pollBackoff)
          __nanosleep(p.backoffNs);
#pragma unroll
        for (int b = 0; b < kLoadBatch; ++b)
          if (base + b * kThreads < chunks && holdsSentinel(loaded[b]))
            loaded[b] = loadX<M>(x + base + b * kThreads);
      }
    }
#pragma unroll
    for (int b = 0; b < kLoadBatch; ++b)
      if (base + b * kThreads < chunks)
        shared[base + b * kThreads] = loaded[b];
  }
  __syncthreads();
  int features = p.features(), slots = kThreads / features;
  int feature = threadIdx.x % features, slot = threadIdx.x / features;
  float sums[kMaxTokens] = {};
#pragma unroll
  for (int q = 0; q < Words; ++q) {
    int chunkOfK = slot + q * slots;
#pragma unroll
    for (int t = 0; t < kMaxTokens; ++t)
      if (t < p.m)
        sums[t] = dot8(shared[t * (p.k / 8) + chunkOfK], held[q], sums[t]);
  }
  float *partial = reinterpret_cast<float *>(shared + chunks);
#pragma unroll
  for (int t = 0; t < kMaxTokens; ++t)
    if (t < p.m)
      partial[(t * features + feature) * slots + slot] = sums[t];
  __syncthreads();
  for (int out = threadIdx.x; out < p.m * features; out += kThreads) {
    float sum = 0;
    for (int s = 0; s < slots; ++s)
      sum = __fadd_rn(sum, partial[out * slots + s]);
    int t = out / features, f = out % features;
    y[t * p.n() + int64_t(blockIdx.x) * features + f] =
        uint16_t(floatToBf16(sum));
  }
  // A valid hand-over keeps the wait before the exit, so that a grid's
  // completion implies its predecessors'.
  if constexpr (M != Mode::wait && M != Mode::ready)
    waitForPredecessor();
}

/// A kernel of the chain: 256 threads a CTA, launched with PDL.
template <typename... Params, typename... Args>
void launch(cudaStream_t stream, void (*kernel)(Params...), dim3 grid,
            size_t shared, const std::string &what, Args... args) {
  lamport::bench::launchWithPdl(stream, kernel, grid, dim3(kThreads), shared,
                                what, args...);
}

using GemmKernel = void (*)(const uint4 *, const uint4 *, uint16_t *, Problem,
                            unsigned *);

template <int Words> GemmKernel gemmKernelOf(Mode mode) {
  switch (mode) {
  case Mode::wait:
    return gemmKernel<Mode::wait, Words>;
  case Mode::pollVolatile:
    return gemmKernel<Mode::pollVolatile, Words>;
  case Mode::pollCg:
    return gemmKernel<Mode::pollCg, Words>;
  case Mode::pollRelaxed:
    return gemmKernel<Mode::pollRelaxed, Words>;
  case Mode::pollBackoff:
    return gemmKernel<Mode::pollBackoff, Words>;
  case Mode::ready:
    return gemmKernel<Mode::ready, Words>;
  }
  return nullptr;
}

/// The GEMM of `mode` whose threads hold `words` words (one of
/// kWordCounts).
GemmKernel gemmKernelOf(Mode mode, int words) {
  switch (words) {
  case 4:
    return gemmKernelOf<4>(mode);
  case 5:
    return gemmKernelOf<5>(mode);
  case 8:
    return gemmKernelOf<8>(mode);
  case 10:
    return gemmKernelOf<10>(mode);
  case 11:
    return gemmKernelOf<11>(mode);
  case 16:
    return gemmKernelOf<16>(mode);
  }
  return nullptr;
}

/// Every layer's buffers: weights, x slots, y.
struct Layers {
  int count = 0;
  std::vector<uint4 *> weights, slots;
  std::vector<uint16_t *> ys;
  unsigned *replay = nullptr, *timedOut = nullptr;
};

/// One replay's kernels: each layer's producer and GEMM, then the end.
void enqueueReplay(cudaStream_t stream, const Layers &layers, const Problem &p,
                   int producerCtas, GemmKernel gemm, const std::string &what) {
  for (int i = 0; i < layers.count; ++i) {
    const uint16_t *previousY =
        layers.ys[(i + layers.count - 1) % layers.count];
    launch(stream, producerKernel, dim3(producerCtas), 0, what + ", producer",
           previousY, p.n(), layers.slots[i],
           i ? layers.slots[i - 1] : static_cast<uint4 *>(nullptr), p.m, p.k,
           static_cast<const unsigned *>(layers.replay), i, p.volatileStores);
    launch(stream, gemm, dim3(p.ctas), p.sharedBytes(), what + ", GEMM",
           static_cast<const uint4 *>(layers.weights[i]),
           static_cast<const uint4 *>(layers.slots[i]), layers.ys[i], p,
           layers.timedOut);
  }
  launch(stream, endOfReplayKernel, dim3(producerCtas), 0, what + ", end",
         layers.slots[layers.count - 1], p.xChunks(), layers.replay);
}

__global__ void fillKernel(uint32_t *words, int64_t count, uint32_t value) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count;
       i += int64_t(gridDim.x) * blockDim.x)
    words[i] = value;
}

/// Weights: BF16 values in [-0.5, 0.5) from the position.
__global__ void weightKernel(uint32_t *words, int64_t count, int layer) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count;
       i += int64_t(gridDim.x) * blockDim.x) {
    uint32_t low = floatToBf16(hashUnit(uint32_t(i), 7, layer)),
             high = floatToBf16(hashUnit(uint32_t(i), 11, layer));
    words[i] = low | high << 16;
  }
}

/// Arms every slot, poisons every y (BF16 NaN), zeroes the counters.
void resetState(cudaStream_t stream, const Layers &layers, const Problem &p,
                const std::string &what) {
  for (int i = 0; i < layers.count; ++i) {
    fillKernel<<<132, kThreads, 0, stream>>>(
        reinterpret_cast<uint32_t *>(layers.slots[i]), p.xChunks() * 4,
        kSentinelPair);
    fillKernel<<<132, kThreads, 0, stream>>>(
        reinterpret_cast<uint32_t *>(layers.ys[i]), (p.m * p.n() + 1) / 2,
        0xffffffffu);
  }
  CHECK(cudaGetLastError(), what + ", reset");
  CHECK(cudaMemsetAsync(layers.replay, 0, sizeof(unsigned), stream), what);
  CHECK(cudaMemsetAsync(layers.timedOut, 0, sizeof(unsigned), stream), what);
}

} // namespace

int main(int argc, char **argv) {
  Problem base = {1, 1280, 10, 320};
  std::vector<int> tokens = {1, 8, 16};
  std::vector<ModeInfo> modes(std::begin(kModes), std::end(kModes));
  int layersWanted = 16, replays = 20, producerCtas = 32;
  const char *usage =
      "(--k K, --words H, --ctas C, --m M,..., --layers L, "
      "--replays R, --producer-ctas P, --modes LIST, --backoff-ns NS, "
      "--x-stores plain|volatile)";
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help") {
      std::printf("usage: lamport-handover-chain [--k K] [--words H] "
                  "[--ctas C] [--m M,...] [--layers L] [--replays R] "
                  "[--producer-ctas P] [--modes wait,pollvolatile,pollcg,"
                  "pollrelaxed,pollbackoff,ready] [--backoff-ns NS] "
                  "[--x-stores plain|volatile]\n");
      return 0;
    }
    if (i + 1 >= argc)
      fail("unknown or incomplete argument '" + arg + "' " + usage, 2);
    const char *value = argv[++i];
    if (arg == "--k")
      base.k = parseCount("--k", value, 8, 65536);
    else if (arg == "--words") {
      base.words = parseCount("--words", value, 1, 16);
      if (std::find(std::begin(kWordCounts), std::end(kWordCounts),
                    base.words) == std::end(kWordCounts))
        fail("--words takes 4, 5, 8, 10, 11 or 16, not '" + std::string(value) +
                 "'",
             2);
    } else if (arg == "--ctas")
      base.ctas = parseCount("--ctas", value, 1, 65535);
    else if (arg == "--layers")
      layersWanted = parseCount("--layers", value, 1, 1024);
    else if (arg == "--replays")
      replays = parseCount("--replays", value, 1, 10000);
    else if (arg == "--x-stores") {
      std::string kind = value;
      if (kind != "plain" && kind != "volatile")
        fail("--x-stores takes plain or volatile, not '" + kind + "'", 2);
      base.volatileStores = kind == "volatile";
    } else if (arg == "--backoff-ns")
      base.backoffNs = unsigned(parseCount("--backoff-ns", value, 0, 100000));
    else if (arg == "--producer-ctas")
      producerCtas = parseCount("--producer-ctas", value, 1, 65535);
    else if (arg == "--m") {
      tokens.clear();
      for (const std::string &item : splitList(value))
        tokens.push_back(parseCount("--m", item.c_str(), 1, kMaxTokens));
    } else if (arg == "--modes") {
      modes.clear();
      for (const std::string &item : splitList(value)) {
        auto known = std::find_if(
            std::begin(kModes), std::end(kModes),
            [&](const ModeInfo &mode) { return item == mode.name; });
        if (known == std::end(kModes))
          fail("--modes: '" + item +
                   "' is not one of wait, pollvolatile, pollcg, pollrelaxed, "
                   "pollbackoff, "
                   "ready",
               2);
        modes.push_back(*known);
      }
      if (modes.front().mode != Mode::wait)
        fail("--modes must start with wait: every other mode is checked "
             "against it",
             2);
    } else
      fail("unknown argument '" + arg + "' " + usage, 2);
  }
  if (base.k % 8 || (kThreads * 8 * base.words) % base.k ||
      kThreads * 8 * base.words < base.k || kThreads % base.features())
    fail("--k " + std::to_string(base.k) + " and --words " +
             std::to_string(base.words) +
             " do not tile a CTA: 2048 x H must be a multiple of K whose "
             "quotient (the CTA's features) divides 256",
         2);

  int device = 0;
  CHECK(cudaSetDevice(device), "device 0");
  cudaDeviceProp properties;
  CHECK(cudaGetDeviceProperties(&properties, device), "device 0");
  if (properties.major < 9)
    fail(std::string("PDL needs sm_90 or later; device 0 is ") +
             properties.name,
         1);
  int maxTokens = *std::max_element(tokens.begin(), tokens.end());
  Problem largest = base;
  largest.m = maxTokens;
  if (largest.sharedBytes() > size_t(properties.sharedMemPerBlockOptin))
    fail("x of " + std::to_string(maxTokens) +
             " tokens and K = " + std::to_string(base.k) + " takes " +
             std::to_string(largest.sharedBytes()) +
             " bytes of shared memory, past the " +
             std::to_string(properties.sharedMemPerBlockOptin) + " a CTA has",
         2);
  for (const ModeInfo &mode : kModes)
    CHECK(cudaFuncSetAttribute(gemmKernelOf(mode.mode, base.words),
                               cudaFuncAttributeMaxDynamicSharedMemorySize,
                               int(largest.sharedBytes())),
          std::string("shared memory of the ") + mode.name + " GEMM");

  // Enough layers that their weights exceed twice the L2.
  size_t weightBytes = size_t(base.ctas) * kThreads * base.words * 16;
  Layers layers;
  layers.count = std::max<int>(
      layersWanted, int((2 * size_t(properties.l2CacheSize) + weightBytes - 1) /
                        weightBytes) +
                        1);
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream");
  for (int i = 0; i < layers.count; ++i) {
    uint4 *weight, *slot;
    uint16_t *y;
    CHECK(cudaMalloc(&weight, weightBytes), "weights");
    CHECK(cudaMalloc(&slot, largest.xChunks() * 16), "x slots");
    // Rounded up to whole words for the poison's fill.
    CHECK(cudaMalloc(&y, size_t(maxTokens) * base.n() * 2 + 4), "y");
    weightKernel<<<132, kThreads, 0, stream>>>(
        reinterpret_cast<uint32_t *>(weight), int64_t(weightBytes / 4), i);
    layers.weights.push_back(weight);
    layers.slots.push_back(slot);
    layers.ys.push_back(y);
  }
  CHECK(cudaGetLastError(), "weights");
  CHECK(cudaMalloc(&layers.replay, sizeof(unsigned)), "replay counter");
  CHECK(cudaMalloc(&layers.timedOut, sizeof(unsigned)), "timeout flag");
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start), "events");
  CHECK(cudaEventCreate(&stop), "events");

  std::printf("%s: K = %d, N = %lld, W %.4g MiB a layer (%d CTAs x 256 "
              "threads x %d words), %d layers, %d producer CTAs storing x "
              "with %s stores, %d timed replays after 3\n\n",
              properties.name, base.k, static_cast<long long>(base.n()),
              weightBytes / 1048576.0, base.ctas, base.words, layers.count,
              producerCtas, base.volatileStores ? "volatile" : "plain",
              replays);
  std::printf("| M | GEMM CTAs an SM | mode | layer us | over wait | y as "
              "the wait's |\n|---:|---:|---|---:|---:|---|\n");
  bool failed = false;
  for (int m : tokens) {
    Problem p = base;
    p.m = m;
    // Whether the GEMM's CTAs all fit at once (one wave), as the serving
    // kernels that hold their weights across the wait do.
    int perSm = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
              &perSm, gemmKernelOf(Mode::wait, p.words), kThreads,
              p.sharedBytes()),
          "occupancy");
    std::vector<uint16_t> reference;
    double waitUs = 0;
    for (const ModeInfo &mode : modes) {
      std::string what = "M = " + std::to_string(m) + ", " + mode.name;
      resetState(stream, layers, p, what);
      cudaGraph_t captured;
      cudaGraphExec_t exec;
      CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), what);
      enqueueReplay(stream, layers, p, producerCtas,
                    gemmKernelOf(mode.mode, base.words), what);
      CHECK(cudaStreamEndCapture(stream, &captured), what);
      CHECK(cudaGraphInstantiate(&exec, captured, 0), what);
      CHECK(cudaGraphDestroy(captured), what);
      double median = lamport::bench::medianReplayMs(exec, stream, start, stop,
                                                     3, replays, what) *
                      1000 / layers.count;
      unsigned timedOut = 0;
      CHECK(cudaMemcpy(&timedOut, layers.timedOut, sizeof(timedOut),
                       cudaMemcpyDeviceToHost),
            what);
      if (timedOut)
        fail(what + ": a poll of x timed out", 1);
      // Every layer's y after the replays.
      std::vector<uint16_t> ys(size_t(layers.count) * m * p.n());
      for (int i = 0; i < layers.count; ++i)
        CHECK(cudaMemcpy(ys.data() + size_t(i) * m * p.n(), layers.ys[i],
                         size_t(m) * p.n() * 2, cudaMemcpyDeviceToHost),
              what);
      CHECK(cudaGraphExecDestroy(exec), what);
      std::string same;
      if (mode.mode == Mode::wait) {
        reference = ys;
        waitUs = median;
        bool poisoned = std::any_of(
            ys.begin(), ys.end(), [](uint16_t bits) { return bits == 0xffff; });
        if (poisoned) {
          failed = true;
          same = "**y left poisoned**";
        } else
          same = "(reference)";
      } else {
        bool equal = ys == reference;
        same = equal ? "yes" : (mode.valid ? "**no**" : "no (not valid)");
        if (!equal && mode.valid)
          failed = true;
      }
      std::printf("| %d | %d%s | %s | %.3f | %.3f | %s |\n", m, perSm,
                  perSm * properties.multiProcessorCount < p.ctas
                      ? " (not one wave)"
                      : "",
                  mode.name, median, median / waitUs, same.c_str());
      std::fflush(stdout);
    }
  }
  for (int i = 0; i < layers.count; ++i) {
    CHECK(cudaFree(layers.weights[i]), "weights");
    CHECK(cudaFree(layers.slots[i]), "x slots");
    CHECK(cudaFree(layers.ys[i]), "y");
  }
  CHECK(cudaFree(layers.replay), "replay counter");
  CHECK(cudaFree(layers.timedOut), "timeout flag");
  CHECK(cudaStreamDestroy(stream), "stream");
  if (failed)
    fail("a valid mode's y differs from the wait's (or the wait left y "
         "poisoned): the hand-over read a stale or torn x",
         1);
  return 0;
}
