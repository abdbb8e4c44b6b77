//===- stream_floor.cu - The least a kernel streaming W costs in a graph --===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// What can a decode GEMM cost at least in the harness lamport-gemm-bench
// times it in (one node per weight copy in a CUDA graph, the copies rotated
// past the 60 MB L2, PDL between nodes)? It reads its W bytes once from
// device memory; this program measures the least kernel that does that and
// nothing else: every thread issues its 16-byte loads of W (before
// griddepcontrol.wait, as the GEMM does, with launch_dependents first),
// folds them into an XOR, waits for the previous grid and stores one word
// a CTA. docs/performance.md's "copy floor" (W at 4.25 TB/s, no launch
// cost) is what the GEMM's share of the floor is measured against; this is
// how much of that floor a kernel can reach at all in the harness.
//
//   lamport-stream-floor [--mib S,...] [--replays R] [--all]
//                        [--hold --chain-cycles C,... --chain-at weights|wait
//                         --x-loads N --late L]
//
// For each size (default 4, 8, 16, 32 MiB; decimals allowed, such as a GEMM's
// N x K x 2 bytes: 10.9375 for 5120 x 1120) it times every launch shape of
// the sweep (CTAs 132, 264, 528 x threads 256, 512, 1024 x 4, 8, 16 loads
// in flight a thread), with PDL and without, and prints the best of each
// with its share of the copy floor (--all: every shape's time as well). Before
// timing, every shape's XOR of every copy is checked against the host's (the
// outputs poisoned first): a mismatch or any CUDA error fails the program with
// what and where.
//
// --hold times the GEMM's skeleton instead: every thread loads its whole share
// of W (H = 4, 8, 16 or 32 16-byte words) before the wait and holds it in
// registers until a word it reads after the wait (zero, standing in for x) is
// folded into each, as the MMAs need x; once every word is in it spins for C SM
// cycles (what a GEMM does once its weights have arrived: the MMAs, the sums,
// y's store), then stores. The shapes are those whose share is a whole H
// (any 128-1024 CTAs x threads 128-1024) and that launch (registers), each
// timed with PDL at every C: what a kernel that holds its weights across the
// wait can reach, by residency and by the length of the work that follows its
// weights.
// `--chain-at wait` spins right after the wait instead: work that does not need
// the weights. `--x-loads N` (0, 2, 4 or 8) adds x's traffic: after the wait
// every thread also issues N 16-byte loads, all before the first is used, from
// a 128 KiB buffer (each CTA its own run, wrapping: at 512 threads and N = 8,
// 64 KiB a CTA, what unpooler tp4's two splits read of x at 16 tokens), folded
// in before the held words; `--late L` loads the last L of each thread's words
// after x's loads instead of before the wait (the GEMM's late chunks; shapes
// holding fewer words are left out).
//
//===----------------------------------------------------------------------===//

#include "pdl.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <tuple>
#include <vector>

const char *const lamport::bench::kToolName = "lamport-stream-floor";

namespace {

using lamport::bench::fail;
using lamport::bench::splitList;

/// The copy bandwidth of one H200 the benchmarks measure, bytes per us.
constexpr double kCopyBytesPerUs = 4.25e6;
/// Bytes of weight copies a graph rotates through (past the 60 MB L2).
constexpr size_t kRotationBytes = size_t(512) << 20;
/// x's stand-in for --x-loads: 128 KiB, unpooler tp4's x at 16 tokens.
constexpr size_t kXWords = (size_t(128) << 10) / sizeof(uint4);
constexpr int kWarmups = 3;

/// Each warp's XOR of `acc` into warpSums[warp], then a CTA barrier.
__device__ void gatherWarpSums(uint4 acc, uint4 *warpSums) {
  for (int offset = 16; offset > 0; offset /= 2) {
    acc.x ^= __shfl_xor_sync(~0u, acc.x, offset);
    acc.y ^= __shfl_xor_sync(~0u, acc.y, offset);
    acc.z ^= __shfl_xor_sync(~0u, acc.z, offset);
    acc.w ^= __shfl_xor_sync(~0u, acc.w, offset);
  }
  if (threadIdx.x % 32 == 0)
    warpSums[threadIdx.x / 32] = acc;
  __syncthreads();
}

/// The CTA's XOR of its warps' sums, stored by its first thread.
__device__ void storeCtaSum(const uint4 *warpSums, uint4 *sums) {
  if (threadIdx.x != 0)
    return;
  uint4 sum = make_uint4(0, 0, 0, 0);
  for (int w = 0; w < int(blockDim.x / 32); ++w) {
    sum.x ^= warpSums[w].x;
    sum.y ^= warpSums[w].y;
    sum.z ^= warpSums[w].z;
    sum.w ^= warpSums[w].w;
  }
  sums[blockIdx.x] = sum;
}

/// Reads W[0, words) once: U 16-byte loads in flight a thread, XORed; one
/// word a CTA after the previous grid is done.
template <int U>
__global__ void streamWeights(const uint4 *weights, size_t words, uint4 *sums) {
  lamport::bench::launchDependents();
  size_t stride = size_t(gridDim.x) * blockDim.x;
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  uint4 acc = make_uint4(0, 0, 0, 0);
  for (; i + (U - 1) * stride < words; i += U * stride) {
    uint4 v[U];
#pragma unroll
    for (int u = 0; u < U; ++u)
      v[u] = __ldcs(weights + i + u * stride);
#pragma unroll
    for (int u = 0; u < U; ++u) {
      acc.x ^= v[u].x;
      acc.y ^= v[u].y;
      acc.z ^= v[u].z;
      acc.w ^= v[u].w;
    }
  }
  for (; i < words; i += stride) {
    uint4 v = __ldcs(weights + i);
    acc.x ^= v.x;
    acc.y ^= v.y;
    acc.z ^= v.z;
    acc.w ^= v.w;
  }
  __shared__ uint4 warpSums[32];
  gatherWarpSums(acc, warpSums);
  lamport::bench::waitForPredecessor();
  storeCtaSum(warpSums, sums);
}

/// Spins for `cycles` SM cycles; returns the cycles it spun.
__device__ long long spin(long long cycles) {
  long long start = clock64(), spun = 0;
  while ((spun = clock64() - start) < cycles)
    ;
  return spun;
}

/// The GEMM's skeleton: H 16-byte words of W a thread, all loaded before
/// the wait and held until `key` (read after it, zero in memory) is added
/// into each; once all are in (or, with `chainAtWait`, right after the
/// wait), `chainCycles` of spinning; then one word a CTA.
/// What the held skeleton does after the wait.
struct AfterWait {
  /// One word, zero, read after the wait and added into every held word.
  const uint32_t *key;
  /// x's stand-in: X (a template parameter) 16-byte words a thread, each
  /// CTA's run of them starting further into a buffer of `xMask` + 1 zero
  /// words (a power of two; wrapping), read after the wait and folded in
  /// with the key, as x's loads feed the MMAs.
  const uint4 *x;
  uint32_t xMask;
  long long chainCycles;
  bool chainAtWait;
};

/// L of the H words are loaded after x's X loads instead of before the wait
/// (the GEMM's late chunks).
template <int H, int L, int X>
__global__ void holdWeights(const uint4 *weights, size_t words, uint4 *sums,
                            AfterWait after) {
  lamport::bench::launchDependents();
  size_t stride = size_t(gridDim.x) * blockDim.x;
  size_t first = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  uint4 held[H];
#pragma unroll
  for (int h = 0; h < H - L; ++h)
    held[h] = __ldcs(weights + first + h * stride);
  lamport::bench::waitForPredecessor();
  // An addition, not an XOR: the compiler cannot fold the held words
  // before the key arrives, so they stay in registers across the wait.
  uint32_t k = __ldcg(after.key);
  // A mask, not a modulo: a 64-bit division costs more than the load.
  uint32_t xFirst = blockIdx.x * blockDim.x * X + threadIdx.x;
  // All of x's loads issue before the first is used, as the GEMM's do (a
  // loop counted at run time would wait for each before the next).
  uint4 xWords[X > 0 ? X : 1];
#pragma unroll
  for (int j = 0; j < X; ++j)
    xWords[j] = after.x[(xFirst + j * blockDim.x) & after.xMask];
#pragma unroll
  for (int j = 0; j < X; ++j)
    k += xWords[j].x ^ xWords[j].y ^ xWords[j].z ^ xWords[j].w;
#pragma unroll
  for (int h = H - L; h < H; ++h)
    held[h] = __ldcs(weights + first + h * stride);
  // Never negative, but the compiler cannot know: the fold waits for it.
  if (after.chainAtWait)
    k += spin(after.chainCycles) < 0;
  uint4 acc = make_uint4(0, 0, 0, 0);
#pragma unroll
  for (int h = 0; h < H; ++h) {
    acc.x ^= held[h].x + k;
    acc.y ^= held[h].y + k;
    acc.z ^= held[h].z + k;
    acc.w ^= held[h].w + k;
  }
  // The chain starts once every held word is in (the fold is an input of
  // this empty asm, which stays before the clock's): a GEMM's MMAs, sums
  // and store need its weights as well as x.
  asm volatile("" ::"r"(acc.x), "r"(acc.y), "r"(acc.z), "r"(acc.w) : "memory");
  if (!after.chainAtWait)
    spin(after.chainCycles);
  __shared__ uint4 warpSums[32];
  gatherWarpSums(acc, warpSums);
  storeCtaSum(warpSums, sums);
}

/// A launch shape: CTAs x threads, and either the loads a thread keeps in
/// flight (the stream) or the words it holds across the wait (--hold).
struct Shape {
  int ctas, threads, inFlight;
};

using StreamKernel = void (*)(const uint4 *, size_t, uint4 *);
using HoldKernel = void (*)(const uint4 *, size_t, uint4 *, AfterWait);

StreamKernel streamKernelFor(int inFlight) {
  switch (inFlight) {
  case 4:
    return streamWeights<4>;
  case 8:
    return streamWeights<8>;
  default:
    return streamWeights<16>;
  }
}

/// The skeleton holding H words a thread, L loaded after x's `xLoads` (0,
/// 2, 4 or 8).
template <int H, int L> HoldKernel holdKernelWithX(int xLoads) {
  switch (xLoads) {
  case 0:
    return holdWeights<H, L, 0>;
  case 2:
    return holdWeights<H, L, 2>;
  case 4:
    return holdWeights<H, L, 4>;
  default:
    return holdWeights<H, L, 8>;
  }
}

/// The skeleton holding H words a thread, `late` (0, 2, 4 or 8, at most H)
/// of them loaded after x.
template <int H> HoldKernel holdKernelWith(int late, int xLoads) {
  switch (late) {
  case 0:
    return holdKernelWithX<H, 0>(xLoads);
  case 2:
    return holdKernelWithX<H, 2>(xLoads);
  case 4:
    return holdKernelWithX<H, 4>(xLoads);
  default:
    return holdKernelWithX<H, (H < 8 ? H : 8)>(xLoads);
  }
}

HoldKernel holdKernelFor(int held, int late, int xLoads) {
  switch (held) {
  case 4:
    return holdKernelWith<4>(late, xLoads);
  case 8:
    return holdKernelWith<8>(late, xLoads);
  case 16:
    return holdKernelWith<16>(late, xLoads);
  default:
    return holdKernelWith<32>(late, xLoads);
  }
}

/// The --hold shapes of W: 128-1024 CTAs (any count: a GEMM's grid is N
/// over its features a CTA, 175 or 704 at Phi-3-medium's and Command R's
/// weights) of 128-1024 threads that each hold a whole share of 4-32 words.
std::vector<Shape> holdShapes(size_t words) {
  std::vector<Shape> shapes;
  for (int threads : {128, 256, 512, 1024})
    for (int held : {4, 8, 16, 32}) {
      size_t share = size_t(threads) * held, ctas = words / share;
      if (words % share == 0 && ctas >= 128 && ctas <= 1024)
        shapes.push_back({int(ctas), threads, held});
    }
  std::sort(shapes.begin(), shapes.end(), [](const Shape &a, const Shape &b) {
    return std::tie(a.ctas, a.threads) < std::tie(b.ctas, b.threads);
  });
  return shapes;
}

/// A size in MiB as the tables print it: 16, 10.9375.
std::string mibText(double mib) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", mib);
  return text;
}

/// The 16-byte words of a size in MiB (whole: parseSizes checks it).
size_t wordsOf(double mib) { return size_t(mib * (1 << 20)) / sizeof(uint4); }

/// The one integer of `text`, in [least, most]; else `flag` takes `what`.
long parseOne(const std::string &flag, const char *text, long least, long most,
              const std::string &what) {
  char *rest = nullptr;
  long value = std::strtol(text, &rest, 10);
  if (!*text || *rest || value < least || value > most)
    fail(flag + " takes " + what + ", not '" + text + "'", 2);
  return value;
}

/// The count of `text`, one of 0, 2, 4 and 8, those the skeleton is built
/// for (--late, --x-loads); else `flag` takes `what`.
int parseInstantiatedCount(const std::string &flag, const char *text,
                           const std::string &what) {
  long count = parseOne(flag, text, 0, 8, what);
  if (count % 2 || count == 6)
    fail(flag + " takes " + what + ", not '" + text + "'", 2);
  return int(count);
}

/// The comma-separated sizes in MiB of `text` (decimals allowed: a GEMM's
/// N x K x 2 bytes), each a whole number of 16-byte words from 1 MiB (512
/// nodes a graph rotate past L2) to 1,024 MiB.
std::vector<double> parseSizes(const std::string &flag, const char *text) {
  std::vector<double> out;
  for (const std::string &item : splitList(text)) {
    char *rest = nullptr;
    double mib = std::strtod(item.c_str(), &rest);
    double words = mib * (1 << 20) / sizeof(uint4);
    if (item.empty() || *rest || !(mib >= 1) || mib > 1024 ||
        words != double(size_t(words)))
      fail(flag +
               " takes a comma-separated list of sizes in MiB (1 to 1024, "
               "each a whole number of 16-byte words), not '" +
               text + "'",
           2);
    out.push_back(mib);
  }
  return out;
}

/// The comma-separated integers of `text`, each in [least, most].
std::vector<long> parseList(const std::string &flag, const char *text,
                            long least, long most, const char *what) {
  std::vector<long> out;
  for (const std::string &item : splitList(text)) {
    char *rest = nullptr;
    long value = std::strtol(item.c_str(), &rest, 10);
    if (item.empty() || *rest || value < least || value > most)
      fail(flag + " takes a comma-separated list of " + what + " (" +
               std::to_string(least) + ".." + std::to_string(most) +
               "), not '" + text + "'",
           2);
    out.push_back(value);
  }
  return out;
}

const char *kUsage =
    "usage: lamport-stream-floor [--mib S,...] [--replays R] [--all] [--hold "
    "--chain-cycles C,... --chain-at weights|wait --x-loads N --late L]";

} // namespace

int main(int argc, char **argv) {
  std::vector<double> sizes = {4, 8, 16, 32};
  std::vector<long> chains = {0};
  int replays = 20, xLoads = 0, late = 0;
  bool all = false, hold = false, skeletonOptionGiven = false,
       chainAtWait = false;
  for (int a = 1; a < argc; ++a) {
    std::string arg = argv[a];
    if (arg == "--help" || arg == "-h") {
      std::printf("%s\n", kUsage);
      return 0;
    }
    if (arg == "--all" || arg == "--hold") {
      (arg == "--all" ? all : hold) = true;
      continue;
    }
    if (arg != "--mib" && arg != "--replays" && arg != "--chain-cycles" &&
        arg != "--chain-at" && arg != "--x-loads" && arg != "--late")
      fail("unknown argument '" + arg + "' (--help lists them)", 2);
    if (a + 1 >= argc)
      fail(arg + " needs a value", 2);
    const char *value = argv[++a];
    if (arg == "--mib") {
      sizes = parseSizes(arg, value);
    } else if (arg == "--late") {
      late = parseInstantiatedCount(
          arg, value,
          "how many held words a thread loads after x: 0, 2, 4 "
          "or 8");
      skeletonOptionGiven = true;
    } else if (arg == "--x-loads") {
      xLoads = parseInstantiatedCount(
          arg, value,
          "how many 16-byte loads of x a thread issues: 0, 2, 4 "
          "or 8");
      skeletonOptionGiven = true;
    } else if (arg == "--chain-at") {
      std::string at = value;
      if (at != "weights" && at != "wait")
        fail("--chain-at takes 'weights' (once the held words are in, the "
             "default) or 'wait' (right after the wait), not '" +
                 at + "'",
             2);
      chainAtWait = at == "wait";
      skeletonOptionGiven = true;
    } else if (arg == "--chain-cycles") {
      chains = parseList(arg, value, 0, 100000000, "SM cycles");
      skeletonOptionGiven = true;
    } else {
      replays = int(parseOne(arg, value, 1, 100000, "one positive integer"));
    }
  }
  if (skeletonOptionGiven && !hold)
    fail("--chain-cycles, --chain-at, --x-loads and --late time the held "
         "skeleton: give --hold too",
         2);
  for (double mib : sizes)
    if (hold && holdShapes(wordsOf(mib)).empty())
      fail("--hold: no shape holds " + mibText(mib) +
               " MiB in 128-1024 CTAs of 128-1024 threads, each a whole "
               "share of 4-32 words (every power of two from 1 to 512 MiB "
               "does)",
           2);

  int devices = 0;
  CHECK(cudaGetDeviceCount(&devices), "counting the GPUs");
  if (devices < 1)
    fail("no GPU", 1);
  CHECK(cudaSetDevice(0), "GPU 0");
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0), "GPU 0's properties");

  if (hold)
    std::printf("| W MiB | floor us | chain cycles | us | %% of floor | CTAs x "
                "threads x words held |\n|---:|---:|---:|---:|---:|---|\n");
  else
    std::printf("| W MiB | floor us | PDL | best us | %% of floor | CTAs x "
                "threads x loads in flight |\n|---:|---:|---|---:|---:|---|\n");
  std::mt19937_64 random(2026);
  for (double mib : sizes) {
    size_t words = wordsOf(mib), bytes = words * sizeof(uint4);
    std::vector<Shape> shapes;
    if (hold) {
      shapes = holdShapes(words);
    } else {
      for (int ctasPerSm : {1, 2, 4})
        for (int threads : {256, 512, 1024})
          for (int inFlight : {4, 8, 16})
            shapes.push_back(
                {prop.multiProcessorCount * ctasPerSm, threads, inFlight});
    }
    int maxCtas = 0;
    for (const Shape &shape : shapes)
      maxCtas = std::max(maxCtas, shape.ctas);
    int copies = int(std::max<size_t>(8, kRotationBytes / bytes));
    std::vector<uint4> host(words);
    uint4 *weights = nullptr, *sums = nullptr;
    uint32_t *key = nullptr;
    CHECK(cudaMalloc(&weights, bytes * copies), std::to_string(copies) +
                                                    " weight copies of " +
                                                    mibText(mib) + " MiB");
    CHECK(cudaMalloc(&sums, sizeof(uint4) * maxCtas * copies), "the sums");
    uint4 *xBuffer = nullptr;
    CHECK(cudaMalloc(&key, sizeof(uint32_t)), "the key");
    CHECK(cudaMemset(key, 0, sizeof(uint32_t)), "the key");
    CHECK(cudaMalloc(&xBuffer, kXWords * sizeof(uint4)), "x's stand-in");
    CHECK(cudaMemset(xBuffer, 0, kXWords * sizeof(uint4)), "x's stand-in");
    std::vector<uint4> expected(copies);
    for (int c = 0; c < copies; ++c) {
      uint4 x = make_uint4(0, 0, 0, 0);
      for (uint4 &word : host) {
        uint64_t a = random(), b = random();
        word = make_uint4(uint32_t(a), uint32_t(a >> 32), uint32_t(b),
                          uint32_t(b >> 32));
        x.x ^= word.x;
        x.y ^= word.y;
        x.z ^= word.z;
        x.w ^= word.w;
      }
      expected[c] = x;
      CHECK(cudaMemcpy(weights + c * words, host.data(), bytes,
                       cudaMemcpyHostToDevice),
            "weight copy " + std::to_string(c));
    }
    cudaStream_t stream;
    CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking),
          "a stream");
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start), "an event");
    CHECK(cudaEventCreate(&stop), "an event");
    double floorUs = bytes / kCopyBytesPerUs;
    // One row of the table: a size's best shape, or (--all) any shape,
    // whose row leaves the floor column empty.
    auto printRow = [&](const std::string &mode, double us, const Shape &shape,
                        bool best) {
      char floorText[32] = " ";
      if (best)
        std::snprintf(floorText, sizeof(floorText), " %.2f ", floorUs);
      std::printf("| %s |%s| %s | %.2f | %.0f%% | %d x %d x %d |\n",
                  mibText(mib).c_str(), floorText, mode.c_str(), us,
                  100 * floorUs / us, shape.ctas, shape.threads,
                  shape.inFlight);
    };
    // The median time of one node of `shape`'s graph, its XORs checked.
    auto timeShape = [&](const Shape &shape, bool pdl, long chain) {
      std::string where = mibText(mib) + " MiB, " + std::to_string(shape.ctas) +
                          " x " + std::to_string(shape.threads) + " x " +
                          std::to_string(shape.inFlight) +
                          (pdl ? ", PDL" : ", no PDL") +
                          (hold ? ", chain " + std::to_string(chain) : "");
      cudaGraph_t graph;
      cudaGraphExec_t exec;
      CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), where);
      for (int c = 0; c < copies; ++c) {
        cudaLaunchConfig_t config = {};
        config.gridDim = dim3(shape.ctas);
        config.blockDim = dim3(shape.threads);
        config.stream = stream;
        cudaLaunchAttribute attribute;
        attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
        attribute.val.programmaticStreamSerializationAllowed = 1;
        config.attrs = &attribute;
        config.numAttrs = pdl ? 1 : 0;
        const uint4 *copy = weights + c * words;
        uint4 *copySums = sums + size_t(c) * maxCtas;
        if (hold)
          CHECK(cudaLaunchKernelEx(
                    &config, holdKernelFor(shape.inFlight, late, xLoads), copy,
                    words, copySums,
                    AfterWait{key, xBuffer, uint32_t(kXWords - 1), chain,
                              chainAtWait}),
                where);
        else
          CHECK(cudaLaunchKernelEx(&config, streamKernelFor(shape.inFlight),
                                   copy, words, copySums),
                where);
      }
      CHECK(cudaStreamEndCapture(stream, &graph), where);
      CHECK(cudaGraphInstantiate(&exec, graph, 0), where);
      // Every copy's XOR from the sums, the sums poisoned first.
      CHECK(
          cudaMemsetAsync(sums, 0xA5, sizeof(uint4) * maxCtas * copies, stream),
          where);
      CHECK(cudaGraphLaunch(exec, stream), where);
      std::vector<uint4> got(size_t(maxCtas) * copies);
      CHECK(cudaMemcpyAsync(got.data(), sums, got.size() * sizeof(uint4),
                            cudaMemcpyDeviceToHost, stream),
            where);
      CHECK(cudaStreamSynchronize(stream), where);
      for (int c = 0; c < copies; ++c) {
        uint4 x = make_uint4(0, 0, 0, 0);
        for (int b = 0; b < shape.ctas; ++b) {
          const uint4 &s = got[size_t(c) * maxCtas + b];
          x.x ^= s.x;
          x.y ^= s.y;
          x.z ^= s.z;
          x.w ^= s.w;
        }
        if (std::memcmp(&x, &expected[c], sizeof(x)))
          fail("the XOR of copy " + std::to_string(c) + " is not the host's (" +
                   where + ")",
               1);
      }
      float ms = lamport::bench::medianReplayMs(exec, stream, start, stop,
                                                kWarmups, replays, where);
      CHECK(cudaGraphExecDestroy(exec), where);
      CHECK(cudaGraphDestroy(graph), where);
      return ms * 1e3 / copies;
    };
    std::vector<std::pair<bool, long>> modes;
    if (hold)
      for (long chain : chains)
        modes.push_back({true, chain});
    else
      modes = {{true, 0}, {false, 0}};
    // A held share past the register file does not launch (at 32 words a
    // thread, 512 threads a CTA), nor one of fewer words than --late: such
    // shapes are left out.
    auto launches = [&](const Shape &shape) {
      if (!hold)
        return true;
      if (shape.inFlight < late)
        return false;
      int ctasPerSm = 0;
      CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                &ctasPerSm, holdKernelFor(shape.inFlight, late, xLoads),
                shape.threads, 0),
            "the occupancy of " + std::to_string(shape.threads) +
                " threads holding " + std::to_string(shape.inFlight) +
                " words");
      return ctasPerSm > 0;
    };
    for (auto [pdl, chain] : modes) {
      std::string mode = hold ? std::to_string(chain) : pdl ? "yes" : "no";
      double bestUs = 1e30;
      Shape best{};
      for (const Shape &shape : shapes) {
        if (!launches(shape))
          continue;
        double us = timeShape(shape, pdl, chain);
        if (all)
          printRow(mode, us, shape, false);
        if (us < bestUs) {
          bestUs = us;
          best = shape;
        }
      }
      printRow(mode, bestUs, best, true);
      std::fflush(stdout);
    }
    CHECK(cudaEventDestroy(start), "an event");
    CHECK(cudaEventDestroy(stop), "an event");
    CHECK(cudaStreamDestroy(stream), "the stream");
    CHECK(cudaFree(weights), "the weights");
    CHECK(cudaFree(sums), "the sums");
    CHECK(cudaFree(key), "the key");
    CHECK(cudaFree(xBuffer), "x's stand-in");
  }
  return 0;
}
