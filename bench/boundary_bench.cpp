//===- boundary_bench.cpp - The attention boundary against NCCL -----------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// lamport-boundary-bench: one process, one GPU per rank (devices
// 0 .. tp - 1), per token count M:
//
//   (1) ours: the fused attention boundary (gemm_publish publishing into
//       the mailbox, then all_reduce_dual_norm) over the peer transport,
//       run by lamport-run's Harness: checked first (--check: every output
//       against the host simulation; with graphs, graph == eager), then
//       timed (--bench);
//   (2) ncclAllReduce(partial -> reduced, [M, H] BF16, sum) on every rank,
//       one communicator over the tp devices (ncclCommInitAll), the ranks'
//       calls in one group;
//   (3) (2), then on every rank the standalone dual_norm bundle's kernel
//       (cuModuleLoadData, cuLaunchKernelEx with the manifest's grid,
//       block, cluster and PDL, buffers bound by role);
//   (4) cublasGemmEx (partial = x @ weight^T, BF16 in and out, FP32
//       compute), then (3): the whole unfused boundary;
//   (5) the dual norm of (3) alone, timed only (its kernel and buffers are
//       (3)'s, checked there): with PDL between steps, what the norm half
//       of the boundary costs in this harness without any exchange.
//
// Every measurement forks every rank's stream from one stream on device 0
// and joins them back with the runtime's StreamFork, the one lamport-run's
// Session steps with, so a step is the whole TP group; CUDA events on that
// stream time it. Graph mode captures a batch of B steps (the NCCL group inside
// the capture), each step forked and joined, and times replays (replay / B per
// step); pipelined mode (the default) forks and joins once per batch, so every
// rank runs its B steps back to back as a decode loop does (lamport-run
// --pipelined); eager mode times steps one by one. Medians and p99s are
// lamport-run's.
//
// The baseline's inputs are lamport-run's inputs by role for the fused
// bundle and the same seed (x, weight, stream, gates, norm weights, B input
// sets per rank), so every partial is an integer with |y| <= 16 and every
// sum exact: before it is timed, the baseline's partial and reduced are
// compared with the simulation (either sign of a zero), its out and stream
// with lamport-run's FP64 references and bounds, between ranks, and with
// ours through lamport-run's output hashes: the fused consumer sums in FP32,
// NCCL in BF16 in its own order, both exactly, so the same dual norm of the
// same r must give the same bytes. A mismatch fails the run (exit 1).
//
// NCCL_NVLS_ENABLE=0 is set before NCCL starts, and nothing here creates an
// NVLink multicast object. The CUDA driver is reached through the runtime's
// dlopen table, so --help, --plan and usage errors need no driver.
//
//===----------------------------------------------------------------------===//

#include "BoundaryBench.h"

#include "lamport/Check/Harness.h"
#include "lamport/Check/Inputs.h"
#include "lamport/Check/Reference.h"
#include "lamport/Check/Simulator.h"
#include "lamport/Runtime/DeviceCheck.h"
#include "lamport/Runtime/Driver.h"
#include "lamport/Runtime/Error.h"
#include "lamport/Runtime/KernelLoader.h"
#include "lamport/Runtime/Manifest.h"
#include "lamport/Runtime/StreamFork.h"

#include <nlohmann/json.hpp>

#include <cublas_v2.h>
#include <cuda.h>
#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iostream>
#include <memory>
#include <thread>

using namespace lamport::runtime;
using namespace lamport::check;
using namespace lamport::bench;

namespace {

constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;
constexpr int kExitNoDevice = 3;

/// A CUDA, NCCL or cuBLAS call failed, or a wait timed out: the contexts
/// and the communicators cannot be trusted any more.
class GpuFailure : public Error {
public:
  using Error::Error;
};

[[noreturn]] void exitNow(int code) {
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  // No teardown: after a GPU failure ncclCommDestroy or a context release
  // can block or fail; the process exit releases everything.
  std::_Exit(code);
}

void checkCuda(cudaError_t result, const char *call,
               const std::string &context) {
  if (result != cudaSuccess)
    throw GpuFailure(concat(context, ": ", call,
                            " failed: ", cudaGetErrorName(result), " (",
                            cudaGetErrorString(result), ")"));
}

void checkBlas(cublasStatus_t result, const char *call,
               const std::string &context) {
  if (result != CUBLAS_STATUS_SUCCESS)
    throw GpuFailure(concat(context, ": ", call,
                            " failed: ", cublasGetStatusName(result), " (",
                            cublasGetStatusString(result), ")"));
}

void checkNccl(ncclResult_t result, const char *call,
               const std::string &context, ncclComm_t comm) {
  if (result == ncclSuccess || result == ncclInProgress)
    return;
  const char *last = ncclGetLastError(comm);
  throw GpuFailure(concat(context, ": ", call,
                          " failed: ", ncclGetErrorString(result),
                          last && *last ? concat(" (", last, ")") : ""));
}

/// A driver call through the runtime's table, failing as GpuFailure.
void checkDriver(CUresult result, const char *call,
                 const std::string &context) {
  if (result != CUDA_SUCCESS)
    throw GpuFailure(
        concat(context, ": ", call, " failed: ", describeResult(result)));
}

#define CUDA_CALL(call, context) checkCuda((call), #call, (context))
#define BLAS_CALL(call, context) checkBlas((call), #call, (context))
#define NCCL_CALL(call, context, comm) checkNccl((call), #call, (context), comm)
#define DRIVER_CALL(call, context)                                             \
  checkDriver(::lamport::runtime::api().call, #call, (context))

std::string today() {
  std::time_t now = std::time(nullptr);
  char text[16];
  std::strftime(text, sizeof(text), "%Y-%m-%d", std::gmtime(&now));
  return text;
}

std::string hex64(uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof(text), "%016llx",
                static_cast<unsigned long long>(value));
  return text;
}

nlohmann::json latencyJson(const std::optional<Latency> &latency) {
  if (!latency)
    return nullptr;
  return {{"median", latency->median},
          {"p99", latency->p99},
          {"min", latency->min},
          {"mean", latency->mean},
          {"samples", latency->samples}};
}

/// What a baseline step enqueues on every rank.
enum class Stage {
  AllReduce,     ///< (2)
  AllReduceNorm, ///< (3)
  Full,          ///< (4)
  NormAlone,     ///< (5)
};

/// The baseline's check at one M.
struct BaselineCheck {
  bool passed = true;
  std::string failure; ///< The first failure, when not passed.
  double outWorst = 0, streamWorst = 0;
  /// Rank 0's out and stream hashes per batch position (lamport-run's
  /// output_hashes).
  std::vector<uint64_t> outHashes, streamHashes;
  std::optional<bool> matchesOurs;
  std::optional<bool> graphEqualsEager;

  void fail(const std::string &why) {
    if (passed)
      failure = why;
    passed = false;
  }
};

/// The baseline: NCCL, cuBLAS and the standalone dual norm on tp GPUs.
class Baseline {
public:
  Baseline(const Bundle &fused, const Bundle &norm, const BoundaryPair &pair,
           const ProgramPlan &fusedPlan, const BenchOptions &options);
  ~Baseline();
  Baseline(const Baseline &) = delete;
  Baseline &operator=(const Baseline &) = delete;

  /// "NVIDIA H200 (sm_90), devices 0..7".
  std::string devices() const;
  std::string ncclVersion() const { return nccl; }

  /// Runs B checked steps of M tokens eagerly (and, with \p graph, once as
  /// a replayed graph) and compares them with the simulation \p expected
  /// (per batch position) and with \p ours (lamport-run's output hashes of
  /// out and stream per batch position; empty: not compared).
  BaselineCheck check(int m, const std::vector<StepExpectation> &expected,
                      const std::vector<uint64_t> *oursOut,
                      const std::vector<uint64_t> *oursStream, bool graph);

  /// Per-step latency of \p stage at M tokens in \p mode.
  Latency time(int m, Stage stage, TimingMode mode);

private:
  /// One (batch position, rank)'s buffers.
  struct Buffers {
    CUdeviceptr x = 0, weight = 0, partial = 0, reduced = 0, stream = 0,
                pristine = 0, alpha = 0, beta = 0, post = 0, next = 0, out = 0;
  };
  struct Rank {
    int device = 0;
    std::string who; ///< "rank r (device d)".
    CUdevice handle = 0;
    CUcontext context = nullptr;
    DeviceProperties properties;
    cudaStream_t stream = nullptr;
    cudaEvent_t joinEvent = nullptr;
    cublasHandle_t blas = nullptr;
    void *workspace = nullptr;
    ncclComm_t comm = nullptr;
    CUmodule module = nullptr;
    CUfunction norm = nullptr;
    CUlaunchConfig config{};
    CUlaunchAttribute attributes[2]{};
  };

  void use(int r) const;
  void openRanks();
  void loadNorm(Rank &rank);
  void allocateInputs();
  CUdeviceptr allocate(int r, std::size_t bytes, const std::string &what);
  /// Without \p forkJoin the step goes straight onto the ranks' streams,
  /// after the step before it (TimingMode::Pipelined).
  void enqueueStep(int j, Stage stage, bool checked, bool forkJoin = true);
  cudaGraphExec_t capture(Stage stage, bool checked, const std::string &what,
                          bool pipelined = false);
  void wait(cudaEvent_t event, const std::string &during);
  /// Downloads \p bytes of (j, r)'s buffer at \p pointer.
  std::vector<uint8_t> download(int r, CUdeviceptr pointer, std::size_t bytes,
                                const std::string &what);

  const Bundle &fused;
  const Bundle &normBundle;
  const BoundaryPair &pair;
  const ProgramPlan &fusedPlan;
  const BenchOptions &options;
  int tp;
  int batch;
  double watchdog;
  std::string nccl;
  std::vector<Rank> ranks;
  std::vector<std::size_t> fusedBytes; ///< Per fused argument.
  std::size_t partialBytes = 0, streamBytes = 0, outBytes = 0;
  std::vector<Buffers> buffers; ///< [j * tp + r]
  /// The dual norm's argument pointers per (j, rank), then parameter
  /// pointer arrays; both stable once built.
  std::vector<std::vector<CUdeviceptr>> normArguments;
  std::vector<std::vector<void *>> normParams;
  int32_t tokens = 1;
  cudaStream_t main = nullptr;
  cudaEvent_t forkEvent = nullptr;
  /// Forks the ranks' streams from `main` and joins them back, as a
  /// Session's steps do.
  std::unique_ptr<StreamFork> streamFork;
  cudaEvent_t doneEvent = nullptr;
  std::vector<cudaEvent_t> startEvents, endEvents; ///< Timing, device 0.
  std::vector<std::pair<int, CUdeviceptr>> allocations;
};

Baseline::Baseline(const Bundle &fused, const Bundle &norm,
                   const BoundaryPair &pair, const ProgramPlan &fusedPlan,
                   const BenchOptions &options)
    : fused(fused), normBundle(norm), pair(pair), fusedPlan(fusedPlan),
      options(options), tp(options.tp), batch(options.batch),
      watchdog(options.watchdogSeconds > 0 ? options.watchdogSeconds : 60.0) {
  int version = 0;
  NCCL_CALL(ncclGetVersion(&version), "reading NCCL's version", nullptr);
  nccl = concat(version / 10000, ".", version / 100 % 100, ".", version % 100);
  openRanks();
  fusedBytes = allocationBytes(fused.manifest);
  partialBytes = fusedBytes[pair.fused("y")];
  streamBytes = fusedBytes[pair.fused("stream")];
  outBytes = fusedBytes[pair.fused("out")];
  allocateInputs();
}

Baseline::~Baseline() {
  // Reached only after a run without a GPU failure (exitNow otherwise);
  // best effort, and nothing here may throw.
  auto current = [&](int r) {
    cudaSetDevice(ranks[r].device);
    api().cuCtxSetCurrent(ranks[r].context);
  };
  for (int r = 0; r < tp; ++r)
    if (ranks[r].comm)
      ncclCommDestroy(ranks[r].comm);
  for (auto &[r, pointer] : allocations) {
    current(r);
    cudaFree(reinterpret_cast<void *>(pointer));
  }
  current(0);
  for (cudaEvent_t event : startEvents)
    cudaEventDestroy(event);
  for (cudaEvent_t event : endEvents)
    cudaEventDestroy(event);
  if (forkEvent)
    cudaEventDestroy(forkEvent);
  if (doneEvent)
    cudaEventDestroy(doneEvent);
  if (main)
    cudaStreamDestroy(main);
  for (int r = 0; r < tp; ++r) {
    Rank &rank = ranks[r];
    current(r);
    if (rank.blas)
      cublasDestroy(rank.blas);
    if (rank.workspace)
      cudaFree(rank.workspace);
    if (rank.joinEvent)
      cudaEventDestroy(rank.joinEvent);
    if (rank.stream)
      cudaStreamDestroy(rank.stream);
    if (rank.module)
      api().cuModuleUnload(rank.module);
    if (rank.context)
      api().cuDevicePrimaryCtxRelease(rank.handle);
  }
}

void Baseline::use(int r) const {
  const Rank &rank = ranks[r];
  CUDA_CALL(cudaSetDevice(rank.device), rank.who);
  DRIVER_CALL(cuCtxSetCurrent(rank.context),
              concat(rank.who, ": making its primary context current"));
}

std::string Baseline::devices() const {
  return concat(ranks[0].properties.name, " (sm_", ranks[0].properties.ccMajor,
                ranks[0].properties.ccMinor, "), devices 0..", tp - 1);
}

void Baseline::openRanks() {
  ranks.resize(tp);
  std::vector<int> devices(tp);
  for (int r = 0; r < tp; ++r) {
    Rank &rank = ranks[r];
    rank.device = devices[r] = r;
    rank.who = concat("rank ", r, " (device ", r, ")");
    CUDA_CALL(cudaSetDevice(r), rank.who);
    // The runtime's primary context, retained here too: lamport-run's
    // sessions release their retain when they end, and must not take the
    // context (and NCCL's and cuBLAS's state in it) with them.
    CUDA_CALL(cudaFree(nullptr), concat(rank.who, ": starting the runtime"));
    DRIVER_CALL(cuDeviceGet(&rank.handle, r), rank.who);
    DRIVER_CALL(cuDevicePrimaryCtxRetain(&rank.context, rank.handle),
                concat(rank.who, ": retaining its primary context"));
    DRIVER_CALL(cuCtxSetCurrent(rank.context), rank.who);
    rank.properties = queryDevice(r, rank.handle);
    checkKernelsFit(normBundle.manifest, rank.properties);
    CUDA_CALL(cudaStreamCreateWithFlags(&rank.stream, cudaStreamNonBlocking),
              concat(rank.who, ": creating its stream"));
    CUDA_CALL(cudaEventCreateWithFlags(&rank.joinEvent, cudaEventDisableTiming),
              concat(rank.who, ": creating its join event"));
    BLAS_CALL(cublasCreate(&rank.blas), concat(rank.who, ": cuBLAS handle"));
    BLAS_CALL(cublasSetStream(rank.blas, rank.stream),
              concat(rank.who, ": binding cuBLAS to its stream"));
    // A workspace of our own: cuBLAS then allocates nothing while a graph
    // is being captured.
    constexpr std::size_t kWorkspace = std::size_t(32) << 20;
    CUDA_CALL(cudaMalloc(&rank.workspace, kWorkspace),
              concat(rank.who, ": cuBLAS workspace"));
    BLAS_CALL(cublasSetWorkspace(rank.blas, rank.workspace, kWorkspace),
              concat(rank.who, ": setting the cuBLAS workspace"));
    loadNorm(rank);
  }
  // One communicator over the tp devices, one rank each: the
  // single-process form of NCCL (tp = 1 works too: a copy).
  std::vector<ncclComm_t> comms(tp, nullptr);
  NCCL_CALL(ncclCommInitAll(comms.data(), tp, devices.data()),
            concat("ncclCommInitAll over devices 0..", tp - 1), nullptr);
  for (int r = 0; r < tp; ++r)
    ranks[r].comm = comms[r];
  use(0);
  CUDA_CALL(cudaStreamCreateWithFlags(&main, cudaStreamNonBlocking),
            "device 0: creating the main stream");
  CUDA_CALL(cudaEventCreateWithFlags(&forkEvent, cudaEventDisableTiming),
            "device 0: creating the fork event");
  std::vector<CUstream> streams;
  std::vector<CUevent> joinEvents;
  for (const Rank &rank : ranks) {
    streams.push_back(rank.stream);
    joinEvents.push_back(rank.joinEvent);
  }
  streamFork = std::make_unique<StreamFork>(main, forkEvent, std::move(streams),
                                            std::move(joinEvents),
                                            [this](int r) { use(r); });
  CUDA_CALL(cudaEventCreate(&doneEvent), "device 0: creating an event");
}

void Baseline::loadNorm(Rank &rank) {
  const Manifest &m = normBundle.manifest;
  const KernelSpec &kernel = m.kernels[pair.normKernel];
  std::size_t k = std::size_t(pair.normKernel);
  std::string who = concat(rank.who, ": kernel '", kernel.name, "'");
  LoadedKernel loaded = loadKernel(normBundle, k, rank.properties, who);
  rank.module = loaded.module;
  rank.norm = loaded.function;
  setLaunchConfig(kernel, rank.stream, !options.noPdl, rank.config,
                  rank.attributes);
}

CUdeviceptr Baseline::allocate(int r, std::size_t bytes,
                               const std::string &what) {
  use(r);
  void *pointer = nullptr;
  CUDA_CALL(cudaMalloc(&pointer, bytes ? bytes : 16),
            concat(ranks[r].who, ": allocating ", bytes, " bytes for ", what));
  allocations.emplace_back(r, reinterpret_cast<CUdeviceptr>(pointer));
  return reinterpret_cast<CUdeviceptr>(pointer);
}

void Baseline::allocateInputs() {
  buffers.assign(std::size_t(batch) * tp, Buffers());
  std::vector<uint8_t> host;
  // role -> member, for the inputs lamport-run generates by role.
  struct Input {
    const char *role;
    CUdeviceptr Buffers::*member;
  };
  const Input inputs[] = {{"x", &Buffers::x},
                          {"weight", &Buffers::weight},
                          {"stream", &Buffers::stream},
                          {"alpha", &Buffers::alpha},
                          {"beta", &Buffers::beta},
                          {"post_weight", &Buffers::post},
                          {"next_weight", &Buffers::next}};
  for (const Input &input : inputs) {
    int arg = pair.fused(input.role);
    if (arg < 0)
      continue; // no post_weight
    const ArgumentPlan &plan = fusedPlan.arguments[arg];
    if (!plan.input)
      throw Error(concat("the fused bundle's '", input.role,
                         "' is not an input of its step"));
    std::size_t bytes = fusedBytes[arg];
    for (int j = 0; j < batch; ++j)
      for (int r = 0; r < tp; ++r) {
        std::string what = concat("'", input.role, "' of batch position ", j);
        Buffers &b = buffers[std::size_t(j) * tp + r];
        CUdeviceptr pointer = allocate(r, bytes, what);
        b.*input.member = pointer;
        if (r == 0 || !plan.spec.replicated()) {
          host.resize(bytes);
          generateInputBytes(plan.spec, options.seed, uint32_t(j), r,
                             host.data(), bytes);
        }
        CUDA_CALL(cudaMemcpy(reinterpret_cast<void *>(pointer), host.data(),
                             bytes, cudaMemcpyHostToDevice),
                  concat(ranks[r].who, ": uploading ", what));
        if (input.member == &Buffers::stream) {
          b.pristine = allocate(r, bytes, "the stream's pristine copy");
          CUDA_CALL(cudaMemcpy(reinterpret_cast<void *>(b.pristine),
                               host.data(), bytes, cudaMemcpyHostToDevice),
                    concat(ranks[r].who, ": uploading the pristine ", what));
        }
      }
  }
  for (int j = 0; j < batch; ++j)
    for (int r = 0; r < tp; ++r) {
      Buffers &b = buffers[std::size_t(j) * tp + r];
      b.partial = allocate(r, partialBytes, "partial");
      b.reduced = allocate(r, partialBytes, "reduced");
      b.out = allocate(r, outBytes, "out");
    }
  // The dual norm's parameters by role, per (j, rank).
  const Manifest &nm = normBundle.manifest;
  const KernelSpec &kernel = nm.kernels[pair.normKernel];
  normArguments.assign(std::size_t(batch) * tp,
                       std::vector<CUdeviceptr>(nm.arguments.size(), 0));
  normParams.assign(std::size_t(batch) * tp, {});
  for (std::size_t i = 0; i < buffers.size(); ++i) {
    const Buffers &b = buffers[i];
    const std::pair<const char *, CUdeviceptr> byRole[] = {
        {"reduced", b.reduced},  {"stream", b.stream},
        {"alpha", b.alpha},      {"beta", b.beta},
        {"post_weight", b.post}, {"next_weight", b.next},
        {"out", b.out}};
    for (const auto &[role, pointer] : byRole)
      if (pair.norm(role) >= 0)
        normArguments[i][pair.norm(role)] = pointer;
    for (const ParamSpec &param : kernel.params) {
      if (param.kind == ParamKind::Tokens)
        normParams[i].push_back(&tokens);
      else if (param.kind == ParamKind::Buffer &&
               normArguments[i][param.argument])
        normParams[i].push_back(&normArguments[i][param.argument]);
      else
        throw Error(concat("the dual_norm bundle's kernel '", kernel.name,
                           "' takes argument '",
                           nm.arguments[param.argument].name,
                           "', which no role binds"));
    }
  }
  for (int r = 0; r < tp; ++r) {
    use(r);
    CUDA_CALL(cudaDeviceSynchronize(),
              concat(ranks[r].who, ": uploading the inputs"));
  }
}

void Baseline::enqueueStep(int j, Stage stage, bool checked, bool forkJoin) {
  const std::size_t count = std::size_t(tokens) * pair.h;
  if (forkJoin)
    streamFork->fork();
  for (int r = 0; r < tp; ++r) {
    Rank &rank = ranks[r];
    Buffers &b = buffers[std::size_t(j) * tp + r];
    use(r);
    if (checked) {
      // As lamport-run's checked steps: the stream from its pristine copy,
      // the outputs poisoned, so a step depends on nothing before it.
      CUDA_CALL(cudaMemcpyAsync(reinterpret_cast<void *>(b.stream),
                                reinterpret_cast<void *>(b.pristine),
                                streamBytes, cudaMemcpyDeviceToDevice,
                                rank.stream),
                concat(rank.who, ": restoring the stream"));
      const std::pair<CUdeviceptr, std::size_t> outputs[] = {
          {b.partial, partialBytes},
          {b.reduced, partialBytes},
          {b.out, outBytes}};
      for (const auto &[output, bytes] : outputs)
        DRIVER_CALL(cuMemsetD16Async(output, kPoison, bytes / 2, rank.stream),
                    concat(rank.who, ": poisoning an output"));
    }
    if (stage == Stage::Full) {
      // Row-major partial [M, H] = x [M, K] @ W [H, K]^T is, column-major,
      // partial^T [H, M] = W^T . x^T with W read as a [K, H] matrix.
      const float one = 1.0f, zero = 0.0f;
      BLAS_CALL(
          cublasGemmEx(rank.blas, CUBLAS_OP_T, CUBLAS_OP_N, int(pair.h), tokens,
                       int(pair.k), &one, reinterpret_cast<void *>(b.weight),
                       CUDA_R_16BF, int(pair.k), reinterpret_cast<void *>(b.x),
                       CUDA_R_16BF, int(pair.k), &zero,
                       reinterpret_cast<void *>(b.partial), CUDA_R_16BF,
                       int(pair.h), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
          concat(rank.who, ": cublasGemmEx of batch position ", j));
    }
  }
  // One group: a thread driving several GPUs must not block in one rank's
  // call waiting for the others.
  if (stage != Stage::NormAlone) {
    NCCL_CALL(ncclGroupStart(), "ncclGroupStart", nullptr);
    for (int r = 0; r < tp; ++r) {
      Buffers &b = buffers[std::size_t(j) * tp + r];
      NCCL_CALL(ncclAllReduce(reinterpret_cast<void *>(b.partial),
                              reinterpret_cast<void *>(b.reduced), count,
                              ncclBfloat16, ncclSum, ranks[r].comm,
                              ranks[r].stream),
                concat(ranks[r].who, ": ncclAllReduce of batch position ", j),
                ranks[r].comm);
    }
    NCCL_CALL(ncclGroupEnd(),
              concat("ncclGroupEnd of the all-reduce of batch position ", j),
              ranks[0].comm);
  }
  if (stage != Stage::AllReduce)
    for (int r = 0; r < tp; ++r) {
      use(r);
      DRIVER_CALL(cuLaunchKernelEx(&ranks[r].config, ranks[r].norm,
                                   normParams[std::size_t(j) * tp + r].data(),
                                   nullptr),
                  concat(ranks[r].who,
                         ": launching the dual norm of batch "
                         "position ",
                         j));
    }
  if (forkJoin)
    streamFork->join();
}

cudaGraphExec_t Baseline::capture(Stage stage, bool checked,
                                  const std::string &what, bool pipelined) {
  use(0);
  CUDA_CALL(cudaStreamBeginCapture(main, cudaStreamCaptureModeRelaxed),
            concat("capturing ", what));
  // Pipelined: one fork and one join around the batch, as ours.
  if (pipelined)
    streamFork->fork();
  for (int j = 0; j < batch; ++j)
    enqueueStep(j, stage, checked, !pipelined);
  if (pipelined)
    streamFork->join();
  use(0);
  cudaGraph_t graph = nullptr;
  CUDA_CALL(cudaStreamEndCapture(main, &graph), concat("capturing ", what));
  cudaGraphExec_t exec = nullptr;
  CUDA_CALL(cudaGraphInstantiate(&exec, graph, 0),
            concat("instantiating the graph of ", what));
  CUDA_CALL(cudaGraphDestroy(graph), concat("the graph of ", what));
  return exec;
}

void Baseline::wait(cudaEvent_t event, const std::string &during) {
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::duration<double>(watchdog);
  use(0);
  for (;;) {
    cudaError_t result = cudaEventQuery(event);
    if (result == cudaSuccess)
      return;
    if (result != cudaErrorNotReady) {
      std::string nccl;
      for (int r = 0; r < tp; ++r) {
        ncclResult_t async = ncclSuccess;
        if (ncclCommGetAsyncError(ranks[r].comm, &async) == ncclSuccess &&
            async != ncclSuccess)
          nccl += concat("; ", ranks[r].who,
                         "'s communicator: ", ncclGetErrorString(async));
      }
      checkCuda(result, "cudaEventQuery", concat(during, nccl));
    }
    if (std::chrono::steady_clock::now() > deadline)
      throw GpuFailure(concat(during, ": the host watchdog fired after ",
                              watchdog,
                              " s without the GPUs finishing (a graph "
                              "launch across GPUs can deadlock NCCL: try "
                              "--modes eager)"));
    std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
}

std::vector<uint8_t> Baseline::download(int r, CUdeviceptr pointer,
                                        std::size_t bytes,
                                        const std::string &what) {
  std::vector<uint8_t> host(bytes);
  use(r);
  CUDA_CALL(cudaMemcpy(host.data(), reinterpret_cast<void *>(pointer), bytes,
                       cudaMemcpyDeviceToHost),
            concat(ranks[r].who, ": downloading ", what));
  return host;
}

BaselineCheck Baseline::check(int m,
                              const std::vector<StepExpectation> &expected,
                              const std::vector<uint64_t> *oursOut,
                              const std::vector<uint64_t> *oursStream,
                              bool graph) {
  BaselineCheck result;
  tokens = m;
  const std::size_t count = std::size_t(m) * pair.h;
  const int yArg = pair.fused("y"), outArg = pair.fused("out"),
            streamArg = pair.fused("stream");
  use(0);
  for (int j = 0; j < batch; ++j)
    enqueueStep(j, Stage::Full, /*checked=*/true);
  CUDA_CALL(cudaEventRecord(doneEvent, main), "recording the checked steps");
  wait(doneEvent, concat("the checked baseline steps at M = ", m));

  // Per (j, rank): the out and stream hashes, for graph == eager.
  std::vector<uint64_t> eager(std::size_t(batch) * tp * 2);
  for (int j = 0; j < batch; ++j) {
    std::string where = concat("M = ", m, ", batch position ", j);
    const StepExpectation &e = expected[j];
    std::vector<const uint16_t *> partialValues;
    for (int r = 0; r < tp; ++r)
      partialValues.push_back(
          reinterpret_cast<const uint16_t *>(e.exact[yArg][r]->data()));
    std::vector<uint16_t> sum = integerAllReduce(partialValues, count);
    std::vector<uint8_t> out0, stream0;
    for (int r = 0; r < tp; ++r) {
      const Buffers &b = buffers[std::size_t(j) * tp + r];
      std::vector<uint8_t> partial =
          download(r, b.partial, count * 2, "partial");
      std::vector<uint8_t> reduced =
          download(r, b.reduced, count * 2, "reduced");
      std::vector<uint8_t> out = download(r, b.out, count * 2, "out");
      std::vector<uint8_t> stream = download(r, b.stream, count * 4, "stream");
      Mismatch bad =
          compareBf16(reinterpret_cast<const uint16_t *>(partial.data()),
                      partialValues[r], count, true);
      if (bad.count)
        result.fail(concat(where, ", rank ", r, ": cuBLAS's partial element ",
                           bad.first, " is ",
                           bf16ToFloat(reinterpret_cast<const uint16_t *>(
                               partial.data())[bad.first]),
                           ", the simulation's ",
                           bf16ToFloat(partialValues[r][bad.first]), " (",
                           bad.count, " of ", count, " differ)"));
      bad = compareBf16(reinterpret_cast<const uint16_t *>(reduced.data()),
                        sum.data(), count, true);
      if (bad.count)
        result.fail(concat(where, ", rank ", r, ": NCCL's reduced element ",
                           bad.first, " is ",
                           bf16ToFloat(reinterpret_cast<const uint16_t *>(
                               reduced.data())[bad.first]),
                           ", the exact sum ", bf16ToFloat(sum[bad.first]),
                           " (", bad.count, " of ", count, " differ)"));
      eager[(std::size_t(j) * tp + r) * 2] = fnv1a(out.data(), out.size());
      eager[(std::size_t(j) * tp + r) * 2 + 1] =
          fnv1a(stream.data(), stream.size());
      if (r == 0) {
        out0 = std::move(out);
        stream0 = std::move(stream);
        continue;
      }
      if (out != out0 || stream != stream0)
        result.fail(concat(where, ", rank ", r, ": its ",
                           out != out0 ? "out" : "stream",
                           " bytes differ from rank 0's; every rank's dual "
                           "norm of the same r must write the same bytes"));
    }
    NormCheck outCheck = checkNorm(out0.data(), DType::BF16, *e.norm[outArg]);
    NormCheck streamCheck =
        checkNorm(stream0.data(), DType::F32, *e.norm[streamArg]);
    result.outWorst = std::max(result.outWorst, outCheck.worst);
    result.streamWorst = std::max(result.streamWorst, streamCheck.worst);
    for (const auto &[name, c] : {std::make_pair("out", outCheck),
                                  std::make_pair("stream", streamCheck)})
      if (c.violations)
        result.fail(concat(where, ", rank 0: ", c.violations, " element(s) of ",
                           name, " outside lamport-run's bound; element ",
                           c.first, " is ", c.worst,
                           " x the bound from the FP64 reference"));
    result.outHashes.push_back(eager[std::size_t(j) * tp * 2]);
    result.streamHashes.push_back(eager[std::size_t(j) * tp * 2 + 1]);
  }
  if (oursOut && oursStream) {
    bool same = oursOut->size() >= std::size_t(batch) &&
                oursStream->size() >= std::size_t(batch);
    for (int j = 0; same && j < batch; ++j)
      same = (*oursOut)[j] == result.outHashes[j] &&
             (*oursStream)[j] == result.streamHashes[j];
    result.matchesOurs = same;
    if (!same)
      result.fail(concat("M = ", m,
                         ": the baseline's out or stream bytes differ from "
                         "ours (lamport-run's output hashes); both sum the "
                         "same integers exactly, so the same dual norm must "
                         "give the same bytes"));
  }
  if (graph) {
    cudaGraphExec_t exec = capture(Stage::Full, /*checked=*/true,
                                   concat("the checked baseline at M = ", m));
    use(0);
    CUDA_CALL(cudaGraphLaunch(exec, main), "replaying the checked baseline");
    CUDA_CALL(cudaEventRecord(doneEvent, main), "recording the replay");
    wait(doneEvent, concat("the checked baseline replay at M = ", m));
    bool equal = true;
    for (int j = 0; j < batch; ++j)
      for (int r = 0; r < tp; ++r) {
        const Buffers &b = buffers[std::size_t(j) * tp + r];
        std::vector<uint8_t> out = download(r, b.out, count * 2, "out");
        std::vector<uint8_t> stream =
            download(r, b.stream, count * 4, "stream");
        equal &= fnv1a(out.data(), out.size()) ==
                     eager[(std::size_t(j) * tp + r) * 2] &&
                 fnv1a(stream.data(), stream.size()) ==
                     eager[(std::size_t(j) * tp + r) * 2 + 1];
      }
    CUDA_CALL(cudaGraphExecDestroy(exec), "the checked baseline's graph");
    result.graphEqualsEager = equal;
    if (!equal)
      result.fail(concat("M = ", m,
                         ": the baseline's graph replay gave other "
                         "out or stream bytes than its eager steps"));
  }
  return result;
}

Latency Baseline::time(int m, Stage stage, TimingMode mode) {
  tokens = m;
  const char *names[] = {"NCCL all-reduce", "NCCL all-reduce + dual norm",
                         "the full baseline", "the dual norm alone"};
  static_assert(sizeof(names) / sizeof(names[0]) == int(Stage::NormAlone) + 1,
                "a name per stage");
  std::string what = concat(names[int(stage)], " at M = ", m);
  std::vector<double> samples;
  auto events = [&](std::size_t n) {
    use(0);
    while (startEvents.size() < n) {
      cudaEvent_t start = nullptr, end = nullptr;
      CUDA_CALL(cudaEventCreate(&start), "device 0: creating a timing event");
      CUDA_CALL(cudaEventCreate(&end), "device 0: creating a timing event");
      startEvents.push_back(start);
      endEvents.push_back(end);
    }
  };
  auto elapsed = [&](std::size_t i) {
    float ms = 0;
    CUDA_CALL(cudaEventElapsedTime(&ms, startEvents[i], endEvents[i]),
              concat("timing ", what));
    return double(ms) * 1000.0;
  };
  if (mode != TimingMode::Eager) {
    // As lamport-run --graph --bench (with --pipelined): one batch per
    // graph, a warm-up replay, then replays one at a time, each between two
    // events.
    cudaGraphExec_t exec =
        capture(stage, /*checked=*/false, what, mode == TimingMode::Pipelined);
    events(1);
    uint64_t replays =
        (options.steps - 2 * uint64_t(batch) + batch - 1) / batch;
    for (uint64_t i = 0; i <= replays; ++i) {
      use(0);
      CUDA_CALL(cudaEventRecord(startEvents[0], main), "before a replay");
      CUDA_CALL(cudaGraphLaunch(exec, main), concat("replaying ", what));
      CUDA_CALL(cudaEventRecord(endEvents[0], main), "after a replay");
      wait(endEvents[0], concat("a replay of ", what));
      if (i > 0) // the first is the warm-up
        samples.push_back(elapsed(0) / batch);
    }
    CUDA_CALL(cudaGraphExecDestroy(exec), concat("the graph of ", what));
  } else {
    // As lamport-run --bench eagerly: a warm-up batch, then steps timed one
    // by one, a batch enqueued at a time.
    events(std::size_t(batch));
    for (int j = 0; j < batch; ++j)
      enqueueStep(j, stage, false);
    use(0);
    CUDA_CALL(cudaEventRecord(doneEvent, main), "after the warm-up");
    wait(doneEvent, concat("the warm-up of ", what));
    uint64_t remaining = options.steps - batch;
    while (remaining) {
      int n = int(std::min<uint64_t>(remaining, batch));
      for (int j = 0; j < n; ++j) {
        use(0);
        CUDA_CALL(cudaEventRecord(startEvents[j], main), "before a step");
        enqueueStep(j, stage, false);
        use(0);
        CUDA_CALL(cudaEventRecord(endEvents[j], main), "after a step");
      }
      wait(endEvents[n - 1], concat("steps of ", what));
      for (int j = 0; j < n; ++j)
        samples.push_back(elapsed(j));
      remaining -= n;
    }
  }
  return summarize(samples);
}

/// One (M, mode) of the run, for the table and the JSON.
struct Row {
  TableRow table;
  std::optional<RunReport> ours;
  std::string oursFailure;
  /// The boundary alone (--boundary), checked as lamport-run --check.
  std::optional<RunReport> boundary;
  std::string boundaryFailure;
  std::optional<BaselineCheck> baseline;
};

/// One of our checked and timed runs (the fused boundary, the boundary
/// alone): what it checked, or why it failed; null when it did not run.
nlohmann::json harnessJson(const std::optional<RunReport> &report,
                           const std::string &failure) {
  if (!report)
    return failure.empty()
               ? nlohmann::json(nullptr)
               : nlohmann::json{{"status", "fail"}, {"error", failure}};
  nlohmann::json j = {{"status", "pass"},
                      {"steps", report->steps},
                      {"steps_checked", report->stepsChecked},
                      {"image", report->image},
                      {"mailbox_bytes_per_step", report->mailboxBytesPerStep}};
  if (report->graphEqualsEager)
    j["graph_equals_eager"] = *report->graphEqualsEager;
  if (report->normErrorVsBoundMax)
    j["norm_error_vs_bound_max"] = *report->normErrorVsBoundMax;
  return j;
}

nlohmann::json rowJson(const Row &row) {
  const TableRow &t = row.table;
  nlohmann::json j = {{"tp", t.tp},
                      {"m", t.m},
                      {"mode", timingModeName(t.mode)},
                      {"ours_us", latencyJson(t.ours)},
                      {"nccl_all_reduce_us", latencyJson(t.allReduce)},
                      {"nccl_all_reduce_norm_us", latencyJson(t.allReduceNorm)},
                      {"dual_norm_alone_us", latencyJson(t.normAlone)},
                      {"baseline_us", latencyJson(t.baseline)},
                      {"check", t.check}};
  std::optional<double> ar = medianRatio(t.allReduce, t.ours);
  std::optional<double> full = medianRatio(t.baseline, t.ours);
  std::optional<double> alone = medianRatio(t.allReduce, t.boundary);
  j["ratio_all_reduce_over_ours"] = ar ? nlohmann::json(*ar) : nullptr;
  j["ratio_baseline_over_ours"] = full ? nlohmann::json(*full) : nullptr;
  j["boundary_us"] = latencyJson(t.boundary);
  j["ratio_all_reduce_over_boundary"] =
      alone ? nlohmann::json(*alone) : nullptr;
  j["boundary"] = harnessJson(row.boundary, row.boundaryFailure);
  j["ours"] = harnessJson(row.ours, row.oursFailure);
  if (row.baseline) {
    const BaselineCheck &b = *row.baseline;
    nlohmann::json base = {{"status", b.passed ? "pass" : "fail"},
                           {"norm_error_vs_bound",
                            {{"out", b.outWorst}, {"stream", b.streamWorst}}}};
    if (!b.passed)
      base["error"] = b.failure;
    if (b.matchesOurs)
      base["matches_ours"] = *b.matchesOurs;
    if (b.graphEqualsEager)
      base["graph_equals_eager"] = *b.graphEqualsEager;
    nlohmann::json out = nlohmann::json::array(),
                   stream = nlohmann::json::array();
    for (uint64_t h : b.outHashes)
      out.push_back(hex64(h));
    for (uint64_t h : b.streamHashes)
      stream.push_back(hex64(h));
    base["output_hashes"] = {{"out", out}, {"stream", stream}};
    j["baseline"] = base;
  }
  return j;
}

struct Run {
  const BenchOptions &options;
  const Bundle &fused;
  const BoundaryPair &pair;
  std::string devices, nccl;
  std::vector<Row> rows;
  std::string status = "pass", error;

  void writeJson() const {
    if (options.jsonPath.empty())
      return;
    nlohmann::json j;
    j["tool"] = "lamport-boundary-bench";
    j["date"] = today();
    j["gpus"] = options.tp;
    j["devices"] = devices;
    j["nccl"] = nccl;
    const char *nvls = std::getenv("NCCL_NVLS_ENABLE");
    j["nccl_nvls_enable"] = nvls ? nvls : "";
    j["fused_bundle"] = options.fusedBundle;
    j["dual_norm_bundle"] = options.normBundle;
    j["boundary_bundle"] = options.boundaryBundle;
    j["program"] = fused.manifest.program;
    j["tp"] = options.tp;
    j["h"] = pair.h;
    j["k"] = pair.k;
    j["batch"] = options.batch;
    j["steps"] = options.steps;
    j["seed"] = options.seed;
    j["pdl"] = !options.noPdl;
    j["baseline_only"] = options.baselineOnly;
    j["status"] = status;
    if (!error.empty())
      j["error"] = error;
    nlohmann::json list = nlohmann::json::array();
    for (const Row &row : rows)
      list.push_back(rowJson(row));
    j["rows"] = list;
    std::ofstream out(options.jsonPath);
    out << j.dump(2) << "\n";
    if (!out)
      std::cerr << "lamport-boundary-bench: warning: could not write "
                << options.jsonPath << "\n";
  }

  void printTable() const {
    std::vector<TableRow> table;
    for (const Row &row : rows)
      table.push_back(row.table);
    std::printf(
        "\nlamport-boundary-bench: %s, %s, NCCL %s, %d GPU(s), %s "
        "(per step of the whole TP group; target: NCCL AR / boundary >= 2)\n",
        fused.manifest.program.c_str(), devices.c_str(), nccl.c_str(),
        options.tp, today().c_str());
    std::fputs(formatTable(table).c_str(), stdout);
    std::fflush(stdout);
  }
};

} // namespace

int main(int argc, char **argv) {
  // Before anything can start NCCL: NVLink multicast (NVLS) stays off on
  // shared machines, as everywhere in this project.
  setenv("NCCL_NVLS_ENABLE", "0", 1);
  std::vector<std::string> args(argv + 1, argv + argc);
  BenchOptions options;
  try {
    options = parseBenchOptions(args);
  } catch (const UsageError &e) {
    std::cerr << "lamport-boundary-bench: error: " << e.what() << "\n"
              << benchUsage() << "\n";
    return kExitUsage;
  }
  if (options.help) {
    std::cout << benchUsage() << "\n";
    return 0;
  }

  Bundle fused, norm, boundary;
  BoundaryPair pair;
  bool haveBoundary = !options.boundaryBundle.empty();
  try {
    fused = loadBundle(options.fusedBundle);
    norm = loadBundle(options.normBundle);
    pair = pairBundles(fused.manifest, norm.manifest, options.tp,
                       options.baselineOnly);
    if (haveBoundary) {
      boundary = loadBundle(options.boundaryBundle);
      checkBoundaryBundle(boundary.manifest, pair);
    }
    for (int m : options.tokens)
      if (m > pair.capacity)
        throw Error(concat("--tokens ", m,
                           " exceeds the capacity of the fused "
                           "bundle's mailbox (",
                           pair.capacity, ")"));
    if (options.plan) {
      std::cout << describeBenchPlan(
          fused.manifest, norm.manifest, pair, options,
          haveBoundary ? &boundary.manifest : nullptr);
      return 0;
    }
  } catch (const Error &e) {
    std::cerr << "lamport-boundary-bench: error: " << e.what() << "\n";
    return kExitUsage;
  }

  try {
    int count = 0;
    LAMPORT_CU(cuDeviceGetCount(&count), "counting CUDA devices");
    if (count < options.tp) {
      std::cerr << "lamport-boundary-bench: error: tp = " << options.tp
                << " needs " << options.tp << " GPUs (devices 0.."
                << options.tp - 1 << "), but this machine has " << count
                << "\n";
      return kExitNoDevice;
    }
  } catch (const NoDeviceError &e) {
    std::cerr << "lamport-boundary-bench: error: no usable GPU: " << e.what()
              << "\n";
    return kExitNoDevice;
  } catch (const Error &e) {
    std::cerr << "lamport-boundary-bench: error: " << e.what() << "\n";
    return kExitNoDevice;
  }

  ProgramPlan fusedPlan(fused.manifest, options.tp, /*strict=*/true);
  SimulationConfig simulation;
  simulation.tp = options.tp;
  simulation.seed = options.seed;
  simulation.allocationBytes = allocationBytes(fused.manifest);
  Run run{options, fused, pair, "", "", {}, "pass", ""};
  bool passed = true;
  try {
    Baseline baseline(fused, norm, pair, fusedPlan, options);
    run.devices = baseline.devices();
    run.nccl = baseline.ncclVersion();
    std::printf("lamport-boundary-bench: %s, NCCL %s, NCCL_NVLS_ENABLE=%s, "
                "tp %d, H %lld, K %lld, batch %d, %llu steps per measurement\n",
                run.devices.c_str(), run.nccl.c_str(),
                std::getenv("NCCL_NVLS_ENABLE"), options.tp,
                static_cast<long long>(pair.h), static_cast<long long>(pair.k),
                options.batch, static_cast<unsigned long long>(options.steps));
    std::fflush(stdout);
    bool graph = std::find_if(options.modes.begin(), options.modes.end(),
                              [](TimingMode mode) {
                                return mode != TimingMode::Eager;
                              }) != options.modes.end();
    // lamport-run --check --bench over the peer transport, for ours.
    auto oursOptions = [&](int m, TimingMode mode) {
      RunOptions o;
      o.bundle = options.fusedBundle;
      o.tp = options.tp;
      o.transport = TransportKind::Peer;
      o.tokens = m;
      o.steps = options.steps;
      o.check = true;
      o.bench = true;
      o.graph = mode != TimingMode::Eager;
      o.pipelined = mode == TimingMode::Pipelined;
      o.batch = options.batch;
      o.seed = options.seed;
      o.device = 0;
      o.noPdl = options.noPdl;
      o.watchdogSeconds = options.watchdogSeconds;
      return o;
    };
    for (int m : options.tokens) {
      // What every checked step must give, per batch position.
      std::vector<StepExpectation> expected;
      for (int j = 0; j < options.batch; ++j)
        expected.push_back(simulateStep(fused.manifest, fusedPlan, simulation,
                                        uint32_t(j), m));
      std::vector<Row> rows;
      for (TimingMode mode : options.modes) {
        Row row;
        row.table.tp = options.tp;
        row.table.m = m;
        row.table.mode = mode;
        if (!options.baselineOnly) {
          RunOptions ours = oursOptions(m, mode);
          try {
            Harness harness(fused, ours);
            row.ours = harness.run();
            std::vector<double> samples = row.ours->stepMicros;
            row.table.ours = summarize(samples);
          } catch (const KernelFailure &) {
            throw;
          } catch (const Error &e) {
            row.oursFailure = e.what();
          }
          std::printf("  M %2d %-9s ours: %s\n", m, timingModeName(mode),
                      row.ours ? concat(row.table.ours->median, " us median, ",
                                        row.table.ours->p99, " us p99, checked")
                                     .c_str()
                               : concat("FAIL: ", row.oursFailure).c_str());
          std::fflush(stdout);
        }
        if (haveBoundary) {
          // The boundary alone: the same run options, its own inputs (its
          // partials are integers, as the GEMM's are).
          RunOptions alone = oursOptions(m, mode);
          alone.bundle = options.boundaryBundle;
          try {
            Harness harness(boundary, alone);
            row.boundary = harness.run();
            row.table.boundary = summarize(row.boundary->stepMicros);
          } catch (const KernelFailure &) {
            throw;
          } catch (const Error &e) {
            row.boundaryFailure = e.what();
          }
          std::printf(
              "  M %2d %-9s boundary alone: %s\n", m, timingModeName(mode),
              row.boundary ? concat(row.table.boundary->median, " us median, ",
                                    row.table.boundary->p99, " us p99, checked")
                                 .c_str()
                           : concat("FAIL: ", row.boundaryFailure).c_str());
          std::fflush(stdout);
        }
        rows.push_back(std::move(row));
      }
      // The baseline's check, against ours where ours passed.
      const std::vector<uint64_t> *oursOut = nullptr, *oursStream = nullptr;
      for (const Row &row : rows)
        if (row.ours && !oursOut)
          for (const auto &[name, hashes] : row.ours->outputHashes) {
            if (name == fused.manifest.arguments[pair.fused("out")].name)
              oursOut = &hashes;
            if (name == fused.manifest.arguments[pair.fused("stream")].name)
              oursStream = &hashes;
          }
      BaselineCheck check =
          baseline.check(m, expected, oursOut, oursStream, graph);
      std::printf("  M %2d baseline check: %s\n", m,
                  check.passed ? "PASS"
                               : concat("FAIL: ", check.failure).c_str());
      std::fflush(stdout);
      for (Row &row : rows) {
        row.baseline = check;
        row.table.allReduce =
            baseline.time(m, Stage::AllReduce, row.table.mode);
        row.table.allReduceNorm =
            baseline.time(m, Stage::AllReduceNorm, row.table.mode);
        row.table.baseline = baseline.time(m, Stage::Full, row.table.mode);
        row.table.normAlone =
            baseline.time(m, Stage::NormAlone, row.table.mode);
        std::vector<std::string> failures;
        if (!options.baselineOnly && !row.ours)
          failures.push_back("ours FAIL");
        if (haveBoundary && !row.boundary)
          failures.push_back("boundary FAIL");
        if (!check.passed)
          failures.push_back("baseline FAIL");
        if (row.ours && check.matchesOurs && !*check.matchesOurs)
          failures.push_back("bytes differ");
        std::string text;
        for (const std::string &f : failures)
          text += concat(text.empty() ? "" : ", ", f);
        row.table.check = text.empty() ? "PASS" : text;
        passed &= text.empty();
        std::printf("  M %2d %-9s NCCL AR %.2f us, AR + norm %.2f us, "
                    "baseline %.2f us, norm alone %.2f us (medians)\n",
                    m, timingModeName(row.table.mode),
                    row.table.allReduce->median,
                    row.table.allReduceNorm->median, row.table.baseline->median,
                    row.table.normAlone->median);
        std::fflush(stdout);
        run.rows.push_back(std::move(row));
      }
    }
    run.status = passed ? "pass" : "fail";
    run.printTable();
    for (const Row &row : run.rows) {
      if (!row.oursFailure.empty())
        std::printf("M %d %s, ours: %s\n", row.table.m,
                    timingModeName(row.table.mode), row.oursFailure.c_str());
      if (!row.boundaryFailure.empty())
        std::printf("M %d %s, boundary alone: %s\n", row.table.m,
                    timingModeName(row.table.mode),
                    row.boundaryFailure.c_str());
      if (row.baseline && !row.baseline->passed &&
          row.table.mode == options.modes.front())
        std::printf("M %d, baseline: %s\n", row.table.m,
                    row.baseline->failure.c_str());
    }
    run.writeJson();
  } catch (const Error &e) {
    // A GPU failure (a trap among them), a failed CUDA, NCCL or cuBLAS
    // call, or a watchdog: report what was measured, then exit at once.
    std::cerr << "lamport-boundary-bench: error: " << e.what() << "\n";
    run.status = "error";
    run.error = e.what();
    if (!run.rows.empty())
      run.printTable();
    run.writeJson();
    exitNow(kExitFailure);
  } catch (const std::exception &e) {
    std::cerr << "lamport-boundary-bench: error: " << e.what() << "\n";
    run.status = "error";
    run.error = e.what();
    run.writeJson();
    exitNow(kExitFailure);
  }
  return passed ? 0 : kExitFailure;
}
