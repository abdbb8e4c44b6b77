//===- pdl_depth.cu - How far ahead a PDL chain's grids run ---------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// Under programmatic dependent launch a grid may start once every CTA of
// the grid before it has run griddepcontrol.launch_dependents (or exited).
// A protocol that reads shared state before its griddepcontrol.wait (x
// handed over by sentinel polling, docs/design/gemm.md "Open gaps") must
// know how far behind the oldest running grid it can be: can grid i + d
// start while grid i still runs, when every grid between them has
// triggered but not completed? The CUDA programming guide lets the trigger
// launch the next grid without bounding how many grids run at once; this
// program measures it on the GPU at hand.
//
// A chain of one-CTA kernels in one stream, each launched with PDL: the
// head triggers launch_dependents and then spins (thread 0, bounded by
// %globaltimer) until a word in global memory is set; d - 1 middle grids
// each trigger launch_dependents and then, in the "waits" variant, run
// griddepcontrol.wait before they exit (every grid of the chain waits for
// its predecessor before it exits, as the GEMM with its wait at the exits
// would), or exit at once; the tail sets the word. If the head sees the
// word, grid head + d ran while the head did. A control variant triggers
// each middle only after its wait, where the tail cannot start before the
// head completes: the head must time out there. Each chain runs from a
// stream and captured into a CUDA graph (as lamport-gemm-bench runs its
// GEMMs), several times.
//
//   lamport-pdl-depth [--max-depth D] [--timeout-us T] [--trials N]
//
// Prints one row per (depth, variant, launch): how often the head saw the
// tail, and the head's median wait. Exit status 1 on a CUDA error, where
// the tail right after the head never ran beside it (no PDL), or where the
// control variant's tail ran before its head completed (the program would
// then not measure what it says); 2 on bad arguments.
//
//===----------------------------------------------------------------------===//

#include "pdl.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

const char *const lamport::bench::kToolName = "lamport-pdl-depth";

namespace {

using lamport::bench::fail;
using lamport::bench::globalTimerNs;
using lamport::bench::launchDependents;
using lamport::bench::parseCount;
using lamport::bench::waitForPredecessor;

/// The head: lets the next grid launch, then spins until the tail sets
/// `*word` or `timeoutNs` pass; stores 1 (seen) or 0 (timed out) and the
/// nanoseconds it waited.
__global__ void headKernel(const unsigned *word, unsigned *seen,
                           unsigned long long *waitedNs, uint64_t timeoutNs) {
  launchDependents();
  if (threadIdx.x != 0)
    return;
  uint64_t start = globalTimerNs(), now = start;
  unsigned value = 0;
  do {
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];"
                 : "=r"(value)
                 : "l"(word)
                 : "memory");
    now = globalTimerNs();
  } while (!value && now - start < timeoutNs);
  *seen = value ? 1u : 0u;
  *waitedNs = now - start;
}

/// A grid between head and tail. `waits`: griddepcontrol.wait before it
/// exits; `lateTrigger`: launch_dependents only after that wait (the
/// control, where the next grid cannot start before the head completes).
__global__ void middleKernel(bool waits, bool lateTrigger) {
  if (!lateTrigger)
    launchDependents();
  if (waits || lateTrigger)
    waitForPredecessor();
  if (lateTrigger)
    launchDependents();
}

/// The tail: sets the word the head spins on.
__global__ void tailKernel(unsigned *word) {
  if (threadIdx.x == 0)
    asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(word), "r"(1u)
                 : "memory");
}

/// One kernel launch of the chain with PDL (the attribute is what makes
/// the launch programmatic; the head's is harmless).
/// One-CTA, one-warp kernels of the chain, each launched with PDL.
template <typename... Params, typename... Args>
void launch(cudaStream_t stream, void (*kernel)(Params...),
            const std::string &what, Args... args) {
  lamport::bench::launchWithPdl(stream, kernel, dim3(1), dim3(32), 0, what,
                                args...);
}

struct Variant {
  const char *name;
  bool waits, lateTrigger;
};

struct Buffers {
  unsigned *word = nullptr, *seen = nullptr;
  unsigned long long *waitedNs = nullptr;
};

/// Enqueues one chain of depth `depth` (the tail is grid head + depth).
void enqueueChain(cudaStream_t stream, const Buffers &buffers, int depth,
                  const Variant &variant, uint64_t timeoutNs,
                  const std::string &what) {
  CHECK(cudaMemsetAsync(buffers.word, 0, sizeof(unsigned), stream), what);
  launch(stream, headKernel, what + ", head", buffers.word, buffers.seen,
         buffers.waitedNs, timeoutNs);
  for (int i = 1; i < depth; ++i)
    launch(stream, middleKernel, what + ", middle", variant.waits,
           variant.lateTrigger);
  launch(stream, tailKernel, what + ", tail", buffers.word);
}

} // namespace

int main(int argc, char **argv) {
  int maxDepth = 4, trials = 5, timeoutUs = 2000;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (i + 1 >= argc)
      fail("unknown or incomplete argument '" + arg +
               "' (--max-depth D, --timeout-us T, --trials N)",
           2);
    if (arg == "--max-depth")
      maxDepth = parseCount("--max-depth", argv[++i], 1, 16);
    else if (arg == "--timeout-us")
      timeoutUs = parseCount("--timeout-us", argv[++i], 10, 1000000);
    else if (arg == "--trials")
      trials = parseCount("--trials", argv[++i], 1, 1000);
    else
      fail("unknown argument '" + arg + "'", 2);
  }
  int device = 0;
  CHECK(cudaSetDevice(device), "device 0");
  cudaDeviceProp properties;
  CHECK(cudaGetDeviceProperties(&properties, device), "device 0");
  if (properties.major < 9)
    fail(std::string("PDL needs sm_90 or later; device 0 is ") +
             properties.name,
         1);
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream");
  Buffers buffers;
  CHECK(cudaMalloc(&buffers.word, sizeof(unsigned)), "word");
  CHECK(cudaMalloc(&buffers.seen, sizeof(unsigned)), "seen");
  CHECK(cudaMalloc(&buffers.waitedNs, sizeof(unsigned long long)), "waited");
  uint64_t timeoutNs = uint64_t(timeoutUs) * 1000;

  // Each kernel once before the chains: the first launch of a kernel loads
  // its module, which would hold a chain's tail back past the head's spin.
  headKernel<<<1, 32, 0, stream>>>(buffers.word, buffers.seen, buffers.waitedNs,
                                   0);
  middleKernel<<<1, 32, 0, stream>>>(false, false);
  tailKernel<<<1, 32, 0, stream>>>(buffers.word);
  CHECK(cudaGetLastError(), "warm-up launches");
  CHECK(cudaStreamSynchronize(stream), "warm-up launches");

  const Variant variants[] = {{"trigger first, wait at exit", true, false},
                              {"trigger first, no wait", false, false},
                              {"control: trigger after the wait", true, true}};
  std::printf("%s, %d trials a row, head's spin bounded at %d us\n\n",
              properties.name, trials, timeoutUs);
  std::printf("| tail = head + | grids between | launch | head saw the tail "
              "| head's median wait us |\n|---:|---|---|---:|---:|\n");
  bool controlHeld = true, pdlHeld = true;
  for (int depth = 1; depth <= maxDepth; ++depth) {
    for (const Variant &variant : variants) {
      // Depth 1 has no grid between head and tail: one variant says it.
      if (depth == 1 && &variant != &variants[0])
        continue;
      for (bool graph : {false, true}) {
        std::string what = "depth " + std::to_string(depth) + ", " +
                           variant.name + (graph ? ", graph" : ", stream");
        int seenCount = 0;
        std::vector<double> waits;
        cudaGraphExec_t exec = nullptr;
        if (graph) {
          cudaGraph_t captured;
          CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal),
                what);
          enqueueChain(stream, buffers, depth, variant, timeoutNs, what);
          CHECK(cudaStreamEndCapture(stream, &captured), what);
          CHECK(cudaGraphInstantiate(&exec, captured, 0), what);
          CHECK(cudaGraphDestroy(captured), what);
        }
        for (int trial = 0; trial < trials; ++trial) {
          unsigned poison = 0xdeadbeef;
          CHECK(cudaMemcpyAsync(buffers.seen, &poison, sizeof(poison),
                                cudaMemcpyHostToDevice, stream),
                what);
          if (graph)
            CHECK(cudaGraphLaunch(exec, stream), what);
          else
            enqueueChain(stream, buffers, depth, variant, timeoutNs, what);
          unsigned seen = 0;
          unsigned long long waitedNs = 0;
          CHECK(cudaMemcpyAsync(&seen, buffers.seen, sizeof(seen),
                                cudaMemcpyDeviceToHost, stream),
                what);
          CHECK(cudaMemcpyAsync(&waitedNs, buffers.waitedNs, sizeof(waitedNs),
                                cudaMemcpyDeviceToHost, stream),
                what);
          CHECK(cudaStreamSynchronize(stream), what);
          if (seen > 1)
            fail(what + ": the head did not run (its result still poisoned)",
                 1);
          seenCount += seen;
          waits.push_back(waitedNs / 1000.0);
        }
        if (exec)
          CHECK(cudaGraphExecDestroy(exec), what);
        std::sort(waits.begin(), waits.end());
        if (variant.lateTrigger && seenCount)
          controlHeld = false;
        if (depth == 1 && seenCount < trials)
          pdlHeld = false;
        std::printf("| %d | %s | %s | %d of %d | %.1f |\n", depth,
                    depth == 1 ? "none" : variant.name,
                    graph ? "graph" : "stream", seenCount, trials,
                    waits[waits.size() / 2]);
      }
    }
  }
  CHECK(cudaFree(buffers.word), "word");
  CHECK(cudaFree(buffers.seen), "seen");
  CHECK(cudaFree(buffers.waitedNs), "waited");
  CHECK(cudaStreamDestroy(stream), "stream");
  if (!pdlHeld)
    fail("the tail never ran beside the head even right after it (depth "
         "1): PDL is not in effect, so no other row measures anything",
         1);
  if (!controlHeld)
    fail("the control's tail ran before its head completed: a grid that "
         "triggers only after griddepcontrol.wait let the next one start "
         "early, so the chain is not what this program assumes",
         1);
  return 0;
}
