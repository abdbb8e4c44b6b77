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
//
// For each size (default 4, 8, 16, 32 MiB) it times every launch shape of
// the sweep (CTAs 132, 264, 528 x threads 256, 512, 1024 x 4, 8, 16 loads
// in flight a thread), with PDL and without, and prints the best of each
// with its share of the copy floor (--all: every shape's time as well). Before
// timing, every shape's XOR of every copy is checked against the host's (the
// outputs poisoned first): a mismatch or any CUDA error fails the program with
// what and where.
//
//===----------------------------------------------------------------------===//

#include "cuda_check.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

const char *const lamport::bench::kToolName = "lamport-stream-floor";

namespace {

using lamport::bench::fail;

/// The copy bandwidth of one H200 the benchmarks measure, bytes per us.
constexpr double kCopyBytesPerUs = 4.25e6;
/// Bytes of weight copies a graph rotates through (past the 60 MB L2).
constexpr size_t kRotationBytes = size_t(512) << 20;
constexpr int kWarmups = 3;

/// Reads W[0, words) once: U 16-byte loads in flight a thread, XORed; one
/// word a CTA after the previous grid is done.
template <int U>
__global__ void streamWeights(const uint4 *weights, size_t words, uint4 *sums) {
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
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
  for (int offset = 16; offset > 0; offset /= 2) {
    acc.x ^= __shfl_xor_sync(~0u, acc.x, offset);
    acc.y ^= __shfl_xor_sync(~0u, acc.y, offset);
    acc.z ^= __shfl_xor_sync(~0u, acc.z, offset);
    acc.w ^= __shfl_xor_sync(~0u, acc.w, offset);
  }
  __shared__ uint4 warpSums[32];
  if (threadIdx.x % 32 == 0)
    warpSums[threadIdx.x / 32] = acc;
  __syncthreads();
  asm volatile("griddepcontrol.wait;" ::: "memory");
  if (threadIdx.x == 0) {
    uint4 sum = make_uint4(0, 0, 0, 0);
    for (int w = 0; w < int(blockDim.x / 32); ++w) {
      sum.x ^= warpSums[w].x;
      sum.y ^= warpSums[w].y;
      sum.z ^= warpSums[w].z;
      sum.w ^= warpSums[w].w;
    }
    sums[blockIdx.x] = sum;
  }
}

struct Shape {
  int ctas, threads, inFlight;
};

using Kernel = void (*)(const uint4 *, size_t, uint4 *);

Kernel kernelFor(int inFlight) {
  switch (inFlight) {
  case 4:
    return streamWeights<4>;
  case 8:
    return streamWeights<8>;
  default:
    return streamWeights<16>;
  }
}

std::vector<int> parseList(const std::string &flag, const char *text) {
  std::vector<int> out;
  std::string s = text;
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = s.find(',', start);
    std::string item = s.substr(
        start, end == std::string::npos ? std::string::npos : end - start);
    char *rest = nullptr;
    long value = std::strtol(item.c_str(), &rest, 10);
    if (item.empty() || *rest || value < 1 || value > 1024)
      fail(flag +
               " takes a comma-separated list of sizes in MiB (1..1024), "
               "not '" +
               s + "'",
           2);
    out.push_back(int(value));
    if (end == std::string::npos)
      break;
    start = end + 1;
  }
  return out;
}

const char *kUsage =
    "usage: lamport-stream-floor [--mib S,...] [--replays R] [--all]";

} // namespace

int main(int argc, char **argv) {
  std::vector<int> sizes = {4, 8, 16, 32};
  int replays = 20;
  bool all = false;
  for (int a = 1; a < argc; ++a) {
    std::string arg = argv[a];
    if (arg == "--help" || arg == "-h") {
      std::printf("%s\n", kUsage);
      return 0;
    }
    if (arg == "--all") {
      all = true;
      continue;
    }
    if (arg != "--mib" && arg != "--replays")
      fail("unknown argument '" + arg + "' (--help lists them)", 2);
    if (a + 1 >= argc)
      fail(arg + " needs a value", 2);
    const char *value = argv[++a];
    if (arg == "--mib") {
      sizes = parseList(arg, value);
    } else {
      char *rest = nullptr;
      long n = std::strtol(value, &rest, 10);
      if (*rest || n < 1 || n > 100000)
        fail("--replays takes one positive integer, not '" +
                 std::string(value) + "'",
             2);
      replays = int(n);
    }
  }

  int devices = 0;
  CHECK(cudaGetDeviceCount(&devices), "counting the GPUs");
  if (devices < 1)
    fail("no GPU", 1);
  CHECK(cudaSetDevice(0), "GPU 0");
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0), "GPU 0's properties");
  std::vector<Shape> shapes;
  for (int ctasPerSm : {1, 2, 4})
    for (int threads : {256, 512, 1024})
      for (int inFlight : {4, 8, 16})
        shapes.push_back(
            {prop.multiProcessorCount * ctasPerSm, threads, inFlight});

  std::printf("| W MiB | floor us | PDL | best us | %% of floor | CTAs x "
              "threads x loads in flight |\n|---:|---:|---|---:|---:|---|\n");
  std::mt19937_64 random(2026);
  for (int mib : sizes) {
    size_t bytes = size_t(mib) << 20, words = bytes / sizeof(uint4);
    int copies = int(std::max<size_t>(8, kRotationBytes / bytes));
    std::vector<uint4> host(words);
    uint4 *weights = nullptr, *sums = nullptr;
    CHECK(cudaMalloc(&weights, bytes * copies),
          std::to_string(copies) + " weight copies of " + std::to_string(mib) +
              " MiB");
    int maxCtas = shapes.back().ctas;
    CHECK(cudaMalloc(&sums, sizeof(uint4) * maxCtas * copies), "the sums");
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
    auto printRow = [&](bool pdl, double us, const Shape &shape, bool best) {
      char floorText[32] = " ";
      if (best)
        std::snprintf(floorText, sizeof(floorText), " %.2f ", floorUs);
      std::printf("| %d |%s| %s | %.2f | %.0f%% | %d x %d x %d |\n", mib,
                  floorText, pdl ? "yes" : "no", us, 100 * floorUs / us,
                  shape.ctas, shape.threads, shape.inFlight);
    };
    for (bool pdl : {true, false}) {
      double bestUs = 1e30;
      Shape best{};
      for (const Shape &shape : shapes) {
        std::string where =
            std::to_string(mib) + " MiB, " + std::to_string(shape.ctas) +
            " x " + std::to_string(shape.threads) + " x " +
            std::to_string(shape.inFlight) + (pdl ? ", PDL" : ", no PDL");
        cudaGraph_t graph;
        cudaGraphExec_t exec;
        CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal),
              where);
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
          CHECK(cudaLaunchKernelEx(&config, kernelFor(shape.inFlight),
                                   (const uint4 *)(weights + c * words), words,
                                   sums + size_t(c) * maxCtas),
                where);
        }
        CHECK(cudaStreamEndCapture(stream, &graph), where);
        CHECK(cudaGraphInstantiate(&exec, graph, 0), where);
        // Every copy's XOR from the sums, the sums poisoned first.
        CHECK(cudaMemsetAsync(sums, 0xA5, sizeof(uint4) * maxCtas * copies,
                              stream),
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
            fail("the XOR of copy " + std::to_string(c) +
                     " is not the host's (" + where + ")",
                 1);
        }
        std::vector<float> times;
        for (int r = 0; r < kWarmups + replays; ++r) {
          CHECK(cudaEventRecord(start, stream), where);
          CHECK(cudaGraphLaunch(exec, stream), where);
          CHECK(cudaEventRecord(stop, stream), where);
          CHECK(cudaEventSynchronize(stop), where);
          float ms = 0;
          CHECK(cudaEventElapsedTime(&ms, start, stop), where);
          if (r >= kWarmups)
            times.push_back(ms);
        }
        std::nth_element(times.begin(), times.begin() + times.size() / 2,
                         times.end());
        double us = times[times.size() / 2] * 1e3 / copies;
        if (all)
          printRow(pdl, us, shape, false);
        if (us < bestUs) {
          bestUs = us;
          best = shape;
        }
        CHECK(cudaGraphExecDestroy(exec), where);
        CHECK(cudaGraphDestroy(graph), where);
      }
      printRow(pdl, bestUs, best, true);
      std::fflush(stdout);
    }
    CHECK(cudaEventDestroy(start), "an event");
    CHECK(cudaEventDestroy(stop), "an event");
    CHECK(cudaStreamDestroy(stream), "the stream");
    CHECK(cudaFree(weights), "the weights");
    CHECK(cudaFree(sums), "the sums");
  }
  return 0;
}
