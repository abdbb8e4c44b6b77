//===- gemm_bench.cpp - lamport.gemm_publish against cuBLAS ---------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// Checks and times the generated small-M GEMM of each bundle against cuBLAS
// in the same process:
//
//   lamport-gemm-bench [--json FILE] [--copy-stagger BYTES]
//                      [--carveout PERCENT] [--extra-shared BYTES]
//                      [--contiguous-weights] BUNDLE...
//
// Each BUNDLE is lamport-compile's output for a program holding one
// lamport.gemm_publish without a mailbox (weight [N, K], x [M, K] with a
// static M, y [M, N]). Bundles named <shape>_m<M>[_...] of the same shape,
// N, K and M are variants (tactics) of one point: they share the inputs,
// the reference and the cuBLAS time. The tactic is read off the launch
// shape: splits (grid y), kw (K / (splits * warps)), tiles (N / (16 * grid
// x)) and the token tile; the accumulators per warp from an _a<N> right
// after _s<S>_kw<W>_tiles<R>[_p<P>] (2 without one); further text the name
// has is shown after it (a variant built another way). For each variant the
// bench
//   - checks y against an FP64 host reference on fresh random inputs, with
//     y poisoned before the run (relative L2 error below 1e-2, no NaN, every
//     element written), that a second run gives the same bytes, and that a
//     variant gives the bytes of the point's plain variant of the same
//     splits, kw, token tile and accs (tiles, passes, hints and the publish
//     epilogue never change the summation order; accs does);
//   - times the kernel and, once per point, cublasGemmEx (BF16 in and out,
//     FP32 compute, default algorithm) and cublasLt with its heuristic's
//     first choice (what torch.mm runs), as nodes of a CUDA graph over
//     max(8, 512 MiB / W) weight copies, so the weights rotate past the
//     60 MB L2: median of 20 replays, per GEMM; cuBLAS is the better of
//     the two per point;
//   - prints shape, M, tactic, ours, cuBLAS, the speedup and the share of
//     the bandwidth floor (bytes over the device-to-device copy bandwidth
//     measured first), then the best variant of each point. --json writes
//     every variant.
//
// A bundle whose program also takes a mailbox (name ending in _publish) is
// the same GEMM with the zero-copy epilogue: the bench gives it tp copies of
// the mailbox on the one GPU (the loopback transport, rank 0's descriptor),
// NEXT = 1, and checks that y has the bytes of the variant without the
// mailbox, that slot [1, 0] of every copy holds y (-0.0 as +0.0) and that
// ACTIVE became 1. Its time against that variant's is the epilogue's cost,
// printed last (the target: at most 10% over the variant without it).
//
// Two options probe the SM's split of its 256 KiB between L1 and shared
// memory, which bounds the weight bytes a CTA keeps in flight: --carveout
// sets every kernel's preferred shared-memory carveout (a percentage of
// the maximum, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT; the
// driver's choice without it), --extra-shared launches every kernel with
// that many more bytes of dynamic shared memory, unused.
// --contiguous-weights lays the rotated weight copies back to back in one
// allocation, a spare copy past the last, so the weight after a GEMM's own
// in memory is the next one's (bench/prefetch_next.py's L2 prefetches).
//
//===----------------------------------------------------------------------===//

#include "lamport/Check/Reference.h"
#include "lamport/Runtime/Descriptor.h"
#include "lamport/Runtime/KernelLoader.h"
#include "lamport/Runtime/Manifest.h"
#include "lamport/Runtime/Session.h"
#include "lamport/Runtime/TensorMap.h"

#include <nlohmann/json.hpp>

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <regex>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

using lamport::check::bf16ToFloat;
using lamport::check::floatToBf16;
using lamport::runtime::ArgumentKind;
using lamport::runtime::BufferIO;
using lamport::runtime::Bundle;
using lamport::runtime::KernelSpec;
using lamport::runtime::MailboxSpec;
using lamport::runtime::ParamKind;

namespace {

[[noreturn]] void fail(const std::string &message) {
  throw std::runtime_error(message);
}

void check(CUresult result, const char *call) {
  if (result != CUDA_SUCCESS) {
    const char *text = nullptr;
    cuGetErrorString(result, &text);
    fail(std::string(call) + ": " + (text ? text : "unknown driver error"));
  }
}
void check(cudaError_t result, const char *call) {
  if (result != cudaSuccess)
    fail(std::string(call) + ": " + cudaGetErrorString(result));
}
void check(cublasStatus_t result, const char *call) {
  if (result != CUBLAS_STATUS_SUCCESS)
    fail(std::string(call) + ": cuBLAS status " + std::to_string(result));
}
#define CHECK(call) check((call), #call)

/// One GEMM bundle: its kernel, the shapes of its three buffers and the
/// tactic its launch shape implies.
struct GemmBundle {
  Bundle bundle;
  const KernelSpec *kernel = nullptr;
  std::string name, shape;
  int64_t n = 0, k = 0, m = 0;
  /// Argument index of each buffer, and the kernel's parameter order.
  int weightArg = -1, xArg = -1, yArg = -1;
  /// The mailbox y is published into, or null for the plain GEMM.
  const MailboxSpec *mailbox = nullptr;
  int64_t splits = 1, kw = 0, tiles = 1, tokenTile = 0;
  /// Blocks of 16 x tiles features each CTA takes in turn (the kernel's
  /// `passes` attribute; 1 where it has none).
  int64_t passes = 1;
  /// K per stage of the bulk pipeline (the kernel's `stage_k` attribute; 0
  /// for the register pipeline): it sets which K each warp sums.
  int64_t stageK = 0;
  /// Accumulators per warp: named "_a<N>" after the launch shape, since
  /// the launch cannot tell; 2, the scripts' default, where the name says
  /// nothing. They set the order of the FP32 sums, so only variants of the
  /// same accs share bits.
  int64_t accs = 2;
  /// What the name says beyond the point and the launch shape (after
  /// "_m<M>_s<S>_kw<W>_tiles<R>"), so that variants of one launch shape
  /// built differently stay apart; usually empty.
  std::string label;

  /// The tactic in the docs' words: "s1 kw128 tiles2 t16", "s1 kw128
  /// tiles1 p4 a1 t8".
  std::string tactic() const {
    std::string text = "s" + std::to_string(splits) + " kw" +
                       std::to_string(kw) + " tiles" + std::to_string(tiles) +
                       (passes > 1 ? " p" + std::to_string(passes) : "") +
                       (accs != 2 ? " a" + std::to_string(accs) : "") +
                       (stageK ? " bulk" + std::to_string(stageK) : "") + " t" +
                       std::to_string(tokenTile);
    return label.empty() ? text : text + " " + label;
  }
};

/// The tactic a publishing variant's timing compares with: its own, without
/// the "publish" of its label ("s1 kw128 tiles1 t8 publish_occ1" becomes
/// "s1 kw128 tiles1 t8 occ1").
static std::string plainTactic(std::string tactic) {
  for (const char *word : {"publish_", " publish"}) {
    size_t at = tactic.find(word);
    if (at != std::string::npos)
      return tactic.erase(at, std::strlen(word));
  }
  return tactic;
}

/// Whether `gemm` is the plain variant of its splits, kw, token tile and
/// accs (one tile, one pass, no mailbox, nothing in its label), the one whose
/// y every other variant of them must equal bit for bit where a point has it.
static bool isReference(const GemmBundle &gemm) {
  return gemm.tiles == 1 && gemm.passes == 1 && !gemm.mailbox &&
         gemm.label.empty();
}

/// Output features of one tile of the generated kernel (16 MMA rows).
constexpr int64_t kFeaturesPerTile = 16;

GemmBundle openGemmBundle(const std::string &directory) {
  GemmBundle gemm;
  gemm.bundle = lamport::runtime::loadBundle(directory);
  const auto &manifest = gemm.bundle.manifest;
  for (const KernelSpec &kernel : manifest.kernels)
    if (kernel.op == "gemm_publish")
      gemm.kernel = &kernel;
  if (!gemm.kernel || manifest.kernels.size() != 1 ||
      manifest.mailboxes.size() > 1)
    fail(directory +
         ": needs exactly one gemm_publish kernel and at most one mailbox");
  if (!manifest.mailboxes.empty())
    gemm.mailbox = &manifest.mailboxes.front();
  for (const auto &argument : manifest.arguments) {
    if (argument.kind == ArgumentKind::Mailbox)
      continue;
    if (argument.kind != ArgumentKind::Buffer || argument.shape.size() != 2)
      fail(directory + ": argument '" + argument.name +
           "' is not a 2-D buffer");
    if (argument.io == BufferIO::Out)
      gemm.yArg = argument.index;
    else if (argument.shape[0] == -1)
      fail(directory + ": x must have a static M (one bundle per M)");
    else if (gemm.weightArg < 0 ||
             argument.shape[0] > manifest.arguments[gemm.weightArg].shape[0])
      gemm.weightArg = argument.index; // the larger of the two inputs
  }
  for (const auto &argument : manifest.arguments)
    if (argument.kind == ArgumentKind::Buffer && argument.io != BufferIO::Out &&
        argument.index != gemm.weightArg)
      gemm.xArg = argument.index;
  if (gemm.weightArg < 0 || gemm.xArg < 0 || gemm.yArg < 0)
    fail(directory + ": cannot tell weight, x and y apart");
  const auto &w = manifest.arguments[gemm.weightArg].shape;
  const auto &x = manifest.arguments[gemm.xArg].shape;
  gemm.n = w[0];
  gemm.k = w[1];
  gemm.m = x[0];
  if (x[1] != gemm.k)
    fail(directory + ": x and the weight disagree on K");
  if (gemm.mailbox &&
      (gemm.mailbox->width != gemm.n || gemm.mailbox->capacity < gemm.m))
    fail(directory + ": the mailbox must be N wide and hold M rows");

  std::string trimmed = directory;
  while (trimmed.size() > 1 && trimmed.back() == '/')
    trimmed.pop_back();
  gemm.name = trimmed.substr(trimmed.find_last_of('/') + 1);
  std::smatch match;
  static const std::regex pointName("(.*)_m[0-9]+(_.*)?");
  bool named = std::regex_match(gemm.name, match, pointName);
  gemm.shape = named ? match[1].str() : gemm.name;
  std::string rest = named ? match[2].str() : "";
  const KernelSpec &spec = *gemm.kernel;
  int64_t warps = spec.block[0] / 32;
  gemm.splits = spec.grid[1];
  if (std::optional<std::string> passes = spec.attribute("passes"))
    gemm.passes = std::stoll(*passes);
  if (std::optional<std::string> stageK = spec.attribute("stage_k"))
    gemm.stageK = std::stoll(*stageK);
  if (warps < 1 || gemm.passes < 1 || gemm.k % (gemm.splits * warps) ||
      gemm.n % (kFeaturesPerTile * spec.grid[0] * gemm.passes))
    fail(directory + ": the launch shape is not the GEMM kernel's");
  gemm.kw = gemm.k / (gemm.splits * warps);
  gemm.tiles = gemm.n / (kFeaturesPerTile * spec.grid[0] * gemm.passes);
  std::string tacticName = "_s" + std::to_string(gemm.splits) + "_kw" +
                           std::to_string(gemm.kw) + "_tiles" +
                           std::to_string(gemm.tiles);
  if (gemm.passes > 1)
    tacticName += "_p" + std::to_string(gemm.passes);
  if (rest.rfind(tacticName, 0) == 0)
    rest = rest.substr(tacticName.size());
  static const std::regex accsName("_a([124])(_.*)?");
  if (std::regex_match(rest, match, accsName)) {
    gemm.accs = std::stoll(match[1].str());
    rest = match[2].str();
  }
  if (!rest.empty() && rest.front() == '_')
    rest = rest.substr(1);
  gemm.label = rest;
  if (std::optional<std::string> tile = spec.attribute("token_tile"))
    gemm.tokenTile = std::stoll(*tile);
  return gemm;
}

/// One variant's measurement.
struct Row {
  std::string name, shape, tactic;
  int64_t n = 0, k = 0, m = 0, splits = 0, kw = 0, tiles = 0, passes = 1,
          tokenTile = 0;
  double ours = NAN, floor = NAN, error = INFINITY;
  /// The baselines: cublasGemmEx with its default algorithm, and cublasLt
  /// with its heuristic's first choice (what torch.mm runs); `cublas` is
  /// the better of the two.
  double cublasGemmEx = NAN, cublasLt = NAN, cublas = NAN;
  bool repeatable = false;
  /// Whether y has the bytes of the point's reference variant of the same
  /// splits, kw, token tile and accs (the plain one, else the first without
  /// a mailbox); empty for the reference itself or where there is none.
  std::optional<bool> sameBitsAsReference;
  /// Publishing variants: whether every copy's slot and ACTIVE are right.
  bool publishes = false;
  std::optional<bool> publishedRight;
  /// Why the variant did not run, or empty.
  std::string failure;

  bool passed() const {
    return failure.empty() && error < 1e-2 && repeatable &&
           sameBitsAsReference.value_or(true) && publishedRight.value_or(true);
  }
  std::string check() const {
    if (!failure.empty())
      return "FAIL (" + failure + ")";
    if (!(error < 1e-2))
      return "FAIL (error)";
    if (!repeatable)
      return "FAIL (not repeatable)";
    if (!sameBitsAsReference.value_or(true))
      return "FAIL (bits differ from the reference)";
    if (!publishedRight.value_or(true))
      return "FAIL (mailbox slot or ACTIVE wrong)";
    if (publishes)
      return "PASS, = reference, published";
    return sameBitsAsReference ? "PASS, = reference" : "PASS";
  }
};

class Bench {
public:
  /// How the kernels are loaded and launched (the command line's options).
  struct Options {
    /// Copy r of a mailbox starts r * copyStagger bytes into its allocation.
    size_t copyStagger = 0;
    /// Preferred shared-memory carveout in percent; negative: the driver's.
    int carveout = -1;
    /// Unused dynamic shared memory added to every launch.
    size_t extraSharedBytes = 0;
    /// The weight copies back to back in one allocation, one spare copy
    /// past the last: copy c + 1 starts where copy c ends, so a kernel can
    /// find the next GEMM's weight (L2 prefetch experiments).
    bool contiguousWeights = false;
  };
  explicit Bench(const Options &options) : options(options) {
    CHECK(cudaSetDevice(0));
    CHECK(cudaFree(nullptr));
    CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CHECK(cublasCreate(&blas));
    CHECK(cublasSetStream(blas, stream));
    CHECK(cudaMalloc(&workspace, kWorkspaceBytes));
    CHECK(cublasSetWorkspace(blas, workspace, kWorkspaceBytes));
    CHECK(cublasLtCreate(&lt));
    CHECK(cudaMalloc(&ltWorkspace, kWorkspaceBytes));
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    CUdevice handle;
    CHECK(cuDeviceGet(&handle, 0));
    deviceProperties = lamport::runtime::queryDevice(0, handle);
    device = deviceProperties.name;
    measureCopyBandwidth();
  }

  /// Checks and times every variant of one point (same shape, N, K, M).
  std::vector<Row> runPoint(const std::vector<const GemmBundle *> &variants);
  double bandwidth() const { return copyBytesPerSecond; }
  const std::string &deviceName() const { return device; }

private:
  static constexpr size_t kWorkspaceBytes = 32 << 20;
  void measureCopyBandwidth();
  float timeGraph(int copies, const std::function<void(int)> &enqueue);
  /// Times cublasLt's matmul with the heuristic's first algorithm for y^T
  /// [n, m] = W [k, n]^T x^T [k, m] over \p weights (BF16 in and out, FP32
  /// compute), as cublasGemmEx is timed.
  float timeCublasLt(int64_t n, int64_t m, int64_t k,
                     const std::vector<void *> &weights, void *x,
                     const std::vector<void *> &ys);
  /// After a publishing launch: slot [1, 0] of every mailbox copy holds
  /// \p y with -0.0 as +0.0 (the rest of the copy is still the sentinel)
  /// and ACTIVE is 1.
  bool checkPublished(const GemmBundle &gemm, const std::vector<uint16_t> &y);

  /// The current publishing variant's mailbox copies, stage words and
  /// timeout record, and rank 0's packed descriptor.
  std::vector<CUdeviceptr> mailboxMemory;
  /// What was allocated for them (a copy starts past its stagger).
  std::vector<CUdeviceptr> allocations;
  std::vector<uint8_t> descriptor;

  cudaStream_t stream = nullptr;
  cublasHandle_t blas = nullptr;
  void *workspace = nullptr;
  /// cublasLt's handle and workspace (separate from cuBLAS's, which the
  /// same graph may use).
  cublasLtHandle_t lt = nullptr;
  void *ltWorkspace = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  double copyBytesPerSecond = 0;
  Options options;
  lamport::runtime::DeviceProperties deviceProperties;
  std::string device;
  std::mt19937 random{20261129};
};

void Bench::measureCopyBandwidth() {
  size_t bytes = size_t(2) << 30;
  void *from, *to;
  CHECK(cudaMalloc(&from, bytes));
  CHECK(cudaMalloc(&to, bytes));
  for (int i = 0; i < 3; ++i)
    CHECK(cudaMemcpyAsync(to, from, bytes, cudaMemcpyDeviceToDevice, stream));
  CHECK(cudaEventRecord(start, stream));
  for (int i = 0; i < 10; ++i)
    CHECK(cudaMemcpyAsync(to, from, bytes, cudaMemcpyDeviceToDevice, stream));
  CHECK(cudaEventRecord(stop, stream));
  CHECK(cudaEventSynchronize(stop));
  float ms;
  CHECK(cudaEventElapsedTime(&ms, start, stop));
  copyBytesPerSecond = 2.0 * bytes * 10 / (ms * 1e-3);
  CHECK(cudaFree(from));
  CHECK(cudaFree(to));
}

bool Bench::checkPublished(const GemmBundle &gemm,
                           const std::vector<uint16_t> &y) {
  const MailboxSpec &mailbox = *gemm.mailbox;
  std::vector<uint16_t> copy(mailbox.copyBytes() / 2);
  const size_t slot =
      lamport::runtime::mailboxByteOffset(1, 0, 0, 0, mailbox.tp,
                                          mailbox.capacity, mailbox.width) /
      2;
  for (int r = 0; r < mailbox.tp; ++r) {
    CHECK(cuMemcpyDtoH(copy.data(), mailboxMemory[r], mailbox.copyBytes()));
    for (size_t i = 0; i < copy.size(); ++i) {
      bool inSlot = i >= slot && i < slot + y.size();
      uint16_t want = inSlot ? lamport::check::canonicalizeSentinel(y[i - slot])
                             : lamport::runtime::kSentinel;
      if (copy[i] != want)
        return false;
    }
  }
  uint32_t words[2];
  CHECK(cuMemcpyDtoH(words, mailboxMemory[mailbox.tp], sizeof(words)));
  return words[0] == 1 && words[1] == 1;
}

float Bench::timeGraph(int copies, const std::function<void(int)> &enqueue) {
  for (int i = 0; i < copies; ++i)
    enqueue(i);
  CHECK(cudaStreamSynchronize(stream));
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  for (int i = 0; i < copies; ++i)
    enqueue(i);
  CHECK(cudaStreamEndCapture(stream, &graph));
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  for (int i = 0; i < 3; ++i)
    CHECK(cudaGraphLaunch(exec, stream));
  CHECK(cudaStreamSynchronize(stream));
  std::vector<float> perGemm;
  for (int replay = 0; replay < 20; ++replay) {
    CHECK(cudaEventRecord(start, stream));
    CHECK(cudaGraphLaunch(exec, stream));
    CHECK(cudaEventRecord(stop, stream));
    CHECK(cudaEventSynchronize(stop));
    float ms;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    perGemm.push_back(ms * 1e3f / copies);
  }
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(graph));
  std::sort(perGemm.begin(), perGemm.end());
  return perGemm[perGemm.size() / 2];
}

float Bench::timeCublasLt(int64_t n, int64_t m, int64_t k,
                          const std::vector<void *> &weights, void *x,
                          const std::vector<void *> &ys) {
  // Column-major, as for cublasGemmEx: A = W viewed [k, n] and transposed,
  // B = x^T [k, m], C = D = y^T [n, m].
  cublasLtMatmulDesc_t operation;
  CHECK(cublasLtMatmulDescCreate(&operation, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  const cublasOperation_t transpose = CUBLAS_OP_T, none = CUBLAS_OP_N;
  CHECK(cublasLtMatmulDescSetAttribute(operation, CUBLASLT_MATMUL_DESC_TRANSA,
                                       &transpose, sizeof(transpose)));
  CHECK(cublasLtMatmulDescSetAttribute(operation, CUBLASLT_MATMUL_DESC_TRANSB,
                                       &none, sizeof(none)));
  cublasLtMatrixLayout_t a, b, c;
  CHECK(cublasLtMatrixLayoutCreate(&a, CUDA_R_16BF, k, n, k));
  CHECK(cublasLtMatrixLayoutCreate(&b, CUDA_R_16BF, k, m, k));
  CHECK(cublasLtMatrixLayoutCreate(&c, CUDA_R_16BF, n, m, n));
  cublasLtMatmulPreference_t preference;
  CHECK(cublasLtMatmulPreferenceCreate(&preference));
  const size_t workspaceBytes = kWorkspaceBytes;
  CHECK(cublasLtMatmulPreferenceSetAttribute(
      preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspaceBytes,
      sizeof(workspaceBytes)));
  cublasLtMatmulHeuristicResult_t heuristic;
  int found = 0;
  CHECK(cublasLtMatmulAlgoGetHeuristic(lt, operation, a, b, c, c, preference, 1,
                                       &heuristic, &found));
  if (found < 1)
    fail("cublasLt has no algorithm for this GEMM");
  const float one = 1.f, zero = 0.f;
  const float time = timeGraph(int(weights.size()), [&](int copy) {
    CHECK(cublasLtMatmul(lt, operation, &one, weights[copy], a, x, b, &zero,
                         ys[copy], c, ys[copy], c, &heuristic.algo, ltWorkspace,
                         kWorkspaceBytes, stream));
  });
  CHECK(cublasLtMatmulPreferenceDestroy(preference));
  CHECK(cublasLtMatrixLayoutDestroy(a));
  CHECK(cublasLtMatrixLayoutDestroy(b));
  CHECK(cublasLtMatrixLayoutDestroy(c));
  CHECK(cublasLtMatmulDescDestroy(operation));
  return time;
}

std::vector<Row>
Bench::runPoint(const std::vector<const GemmBundle *> &variants) {
  const GemmBundle &point = *variants.front();
  const int64_t n = point.n, k = point.k, m = point.m;
  const size_t weightBytes = size_t(n) * k * 2;
  const int copies =
      int(std::max<size_t>(8, (size_t(512) << 20) / weightBytes));
  std::normal_distribution<float> normal(0.f, 1.f);
  std::vector<uint16_t> hostWeight(size_t(n) * k), hostX(size_t(m) * k);
  std::vector<void *> weights(copies), ys(copies), blasYs(copies);
  // One random weight, copied to every copy on the device: the copies exist
  // to rotate addresses past the L2, so their contents may repeat, and
  // drawing hundreds of MiB of normals on the host would dominate the run.
  for (uint16_t &value : hostWeight)
    value = floatToBf16(normal(random) * 0.05f);
  void *weightBlock = nullptr;
  if (options.contiguousWeights)
    CHECK(cudaMalloc(&weightBlock, (copies + 1) * weightBytes));
  for (int c = 0; c < copies; ++c) {
    if (weightBlock)
      weights[c] = static_cast<char *>(weightBlock) + c * weightBytes;
    else
      CHECK(cudaMalloc(&weights[c], weightBytes));
    if (c == 0)
      CHECK(cudaMemcpy(weights[c], hostWeight.data(), weightBytes,
                       cudaMemcpyHostToDevice));
    else
      CHECK(cudaMemcpy(weights[c], weights[0], weightBytes,
                       cudaMemcpyDeviceToDevice));
    CHECK(cudaMalloc(&ys[c], size_t(m) * n * 2));
    CHECK(cudaMalloc(&blasYs[c], size_t(m) * n * 2));
  }
  for (uint16_t &value : hostX)
    value = floatToBf16(normal(random));
  void *x;
  CHECK(cudaMalloc(&x, hostX.size() * 2));
  CHECK(cudaMemcpy(x, hostX.data(), hostX.size() * 2, cudaMemcpyHostToDevice));
  int tokens = int(m);

  // The FP64 reference, once for every variant.
  std::vector<double> reference(size_t(m) * n);
  double referenceSquared = 0;
  for (int64_t t = 0; t < m; ++t)
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (int64_t i = 0; i < k; ++i)
        sum += double(bf16ToFloat(hostX[t * k + i])) *
               bf16ToFloat(hostWeight[j * k + i]);
      reference[t * n + j] = sum;
      referenceSquared += sum * sum;
    }

  const float one = 1.f, zero = 0.f;
  auto cublas = [&](int c) {
    // Column-major view: y^T [n, m] = W [k, n]^T . x^T [k, m].
    CHECK(cublasGemmEx(blas, CUBLAS_OP_T, CUBLAS_OP_N, int(n), int(m), int(k),
                       &one, weights[c], CUDA_R_16BF, int(k), x, CUDA_R_16BF,
                       int(k), &zero, blasYs[c], CUDA_R_16BF, int(n),
                       CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  };
  const float gemmEx = timeGraph(copies, cublas);
  const float lt = timeCublasLt(n, m, k, weights, x, blasYs);
  const float theirs = std::min(gemmEx, lt);
  const double floorUs = (weightBytes + double(m) * k * 2 + double(m) * n * 2) /
                         copyBytesPerSecond * 1e6;

  std::vector<Row> rows;
  std::vector<std::vector<uint16_t>> bits(variants.size());
  for (size_t v = 0; v < variants.size(); ++v) {
    const GemmBundle &gemm = *variants[v];
    Row row;
    row.name = gemm.name;
    row.shape = gemm.shape;
    row.tactic = gemm.tactic();
    row.n = n;
    row.k = k;
    row.m = m;
    row.splits = gemm.splits;
    row.kw = gemm.kw;
    row.tiles = gemm.tiles;
    row.passes = gemm.passes;
    row.tokenTile = gemm.tokenTile;
    row.publishes = gemm.mailbox != nullptr;
    row.cublas = theirs;
    row.cublasGemmEx = gemmEx;
    row.cublasLt = lt;
    row.floor = floorUs;
    CUmodule module = nullptr;
    try {
      const KernelSpec &spec = *gemm.kernel;
      // The runtime's loader: the image this GPU runs, the manifest's
      // checks and the kernel's own shared memory.
      lamport::runtime::LoadedKernel loaded = lamport::runtime::loadKernel(
          gemm.bundle, 0, deviceProperties, gemm.bundle.directory);
      module = loaded.module;
      CUfunction function = loaded.function;
      const size_t sharedBytes = spec.sharedBytes + options.extraSharedBytes;
      if (options.extraSharedBytes)
        lamport::runtime::optIntoSharedMemory(function, sharedBytes,
                                              gemm.bundle.directory);
      if (options.carveout >= 0)
        CHECK(cuFuncSetAttribute(
            function, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,
            options.carveout));
      // The epilogue's mailbox: tp copies of [3, tp, capacity, N] on this
      // GPU, every fragment the sentinel, ACTIVE = 0 and NEXT = 1; the
      // kernel takes rank 0's descriptor by value.
      if (gemm.mailbox) {
        const MailboxSpec &mailbox = *gemm.mailbox;
        for (int r = 0; r < mailbox.tp; ++r) {
          // Copy r starts r * stagger bytes into its allocation.
          CUdeviceptr allocation;
          const size_t offset = size_t(r) * options.copyStagger;
          CHECK(cuMemAlloc(&allocation, mailbox.copyBytes() + offset));
          allocations.push_back(allocation);
          const CUdeviceptr copy = allocation + offset;
          mailboxMemory.push_back(copy);
          CHECK(cuMemsetD16(copy, lamport::runtime::kSentinel,
                            mailbox.copyBytes() / 2));
        }
        CUdeviceptr stage, record;
        CHECK(cuMemAlloc(&stage,
                         lamport::runtime::kStageWords * sizeof(uint32_t)));
        CHECK(cuMemAlloc(&record, sizeof(lamport::runtime::TimeoutRecord)));
        mailboxMemory.push_back(stage);
        mailboxMemory.push_back(record);
        allocations.push_back(stage);
        allocations.push_back(record);
        // ACTIVE, NEXT, ARRIVALS, reserved.
        const uint32_t words[lamport::runtime::kStageWords] = {0, 1, 0, 0};
        CHECK(cuMemcpyHtoD(stage, words, sizeof(words)));
        CHECK(cuMemsetD8(record, 0, sizeof(lamport::runtime::TimeoutRecord)));
        lamport::runtime::DescriptorFields fields;
        fields.local = mailboxMemory[0];
        fields.stage = stage;
        fields.diagnostics = record;
        fields.peers.assign(mailboxMemory.begin(),
                            mailboxMemory.begin() + mailbox.tp);
        descriptor = lamport::runtime::packDescriptor(fields);
      }
      // Each weight copy's tensor map, where the kernel takes one: the
      // [n, k] weight, a box of the param's [inner, outer] elements.
      std::vector<lamport::runtime::TensorMapSlot> weightMaps;
      for (const auto &param : spec.params) {
        if (param.kind != ParamKind::TensorMap)
          continue;
        weightMaps.resize(copies);
        for (int c = 0; c < copies; ++c)
          lamport::runtime::encodeTensorMap(gemm.bundle.manifest, param,
                                            CUdeviceptr(weights[c]),
                                            weightMaps[c], gemm.name);
      }
      // Parameters in the kernel's order; buffers by their argument index.
      auto launch = [&](int c) {
        std::vector<void *> params;
        for (const auto &param : spec.params) {
          if (param.kind == ParamKind::Tokens) {
            params.push_back(&tokens);
            continue;
          }
          if (param.kind == ParamKind::TensorMap) {
            params.push_back(&weightMaps[c].map);
            continue;
          }
          if (param.kind == ParamKind::Mailbox) {
            params.push_back(descriptor.data());
            continue;
          }
          void **slot = param.argument == gemm.weightArg ? &weights[c]
                        : param.argument == gemm.xArg    ? &x
                                                         : &ys[c];
          params.push_back(slot);
        }
        CUlaunchConfig config;
        CUlaunchAttribute attributes[2];
        lamport::runtime::setLaunchConfig(spec, stream, /*pdl=*/true, config,
                                          attributes);
        config.sharedMemBytes = unsigned(sharedBytes);
        CHECK(cuLaunchKernelEx(&config, function, params.data(), nullptr));
      };

      // Correctness on the last copy, output poisoned with NaN first.
      const int last = copies - 1;
      std::vector<uint16_t> first(size_t(m) * n), second(size_t(m) * n);
      CHECK(cudaMemset(ys[last], 0xff, first.size() * 2));
      launch(last);
      CHECK(cudaStreamSynchronize(stream));
      CHECK(cudaMemcpy(first.data(), ys[last], first.size() * 2,
                       cudaMemcpyDeviceToHost));
      CHECK(cudaMemset(ys[last], 0xff, second.size() * 2));
      launch(last);
      CHECK(cudaStreamSynchronize(stream));
      CHECK(cudaMemcpy(second.data(), ys[last], second.size() * 2,
                       cudaMemcpyDeviceToHost));
      double errorSquared = 0;
      bool finite = true;
      for (size_t i = 0; i < first.size(); ++i) {
        double got = bf16ToFloat(first[i]);
        finite &= std::isfinite(got);
        errorSquared += (got - reference[i]) * (got - reference[i]);
      }
      row.error =
          finite ? std::sqrt(errorSquared / referenceSquared) : INFINITY;
      row.repeatable = first == second;
      if (gemm.mailbox)
        row.publishedRight = checkPublished(gemm, first);
      bits[v] = std::move(first);
      row.ours = timeGraph(copies, launch);
    } catch (const std::exception &error) {
      row.failure = error.what();
    }
    if (module)
      cuModuleUnload(module);
    for (CUdeviceptr pointer : allocations)
      cuMemFree(pointer);
    allocations.clear();
    mailboxMemory.clear();
    rows.push_back(row);
  }
  // Tiles, passes, the publish epilogue, the register hint and the launch
  // order must not change a bit: once every variant has run, whatever the
  // order of the bundles, compare each with the reference of its splits,
  // kw, token tile, accs and bulk stage K: the plain variant (isReference)
  // where the point has one, else the first that ran without a mailbox.
  auto key = [](const GemmBundle &gemm) {
    return std::array<int64_t, 5>{gemm.splits, gemm.kw, gemm.tokenTile,
                                  gemm.accs, gemm.stageK};
  };
  std::map<std::array<int64_t, 5>, size_t> referenceOf;
  for (size_t v = 0; v < variants.size(); ++v) {
    const GemmBundle &gemm = *variants[v];
    if (bits[v].empty() || gemm.mailbox)
      continue;
    auto [it, inserted] = referenceOf.emplace(key(gemm), v);
    if (!inserted && isReference(gemm) && !isReference(*variants[it->second]))
      it->second = v;
  }
  for (size_t v = 0; v < variants.size(); ++v) {
    const GemmBundle &gemm = *variants[v];
    auto ref = referenceOf.find(key(gemm));
    if (ref != referenceOf.end() && ref->second != v && !bits[v].empty())
      rows[v].sameBitsAsReference = bits[v] == bits[ref->second];
  }

  for (int c = 0; c < copies; ++c) {
    if (!weightBlock)
      CHECK(cudaFree(weights[c]));
    CHECK(cudaFree(ys[c]));
    CHECK(cudaFree(blasYs[c]));
  }
  if (weightBlock)
    CHECK(cudaFree(weightBlock));
  CHECK(cudaFree(x));
  return rows;
}

double geometricMean(const std::vector<double> &values) {
  double logSum = 0;
  for (double value : values)
    logSum += std::log(value);
  return values.empty() ? NAN : std::exp(logSum / values.size());
}

nlohmann::json toJson(const Row &row) {
  nlohmann::json json = {
      {"bundle", row.name},
      {"shape", row.shape},
      {"tactic", row.tactic},
      {"n", row.n},
      {"k", row.k},
      {"m", row.m},
      {"splits", row.splits},
      {"kw", row.kw},
      {"tiles", row.tiles},
      {"passes", row.passes},
      {"token_tile", row.tokenTile},
      {"ours_us",
       std::isfinite(row.ours) ? nlohmann::json(row.ours) : nlohmann::json()},
      {"cublas_us", row.cublas},
      {"cublas_gemmex_us", row.cublasGemmEx},
      {"cublaslt_us", row.cublasLt},
      {"floor_us", row.floor},
      {"rel_error",
       std::isfinite(row.error) ? nlohmann::json(row.error) : nlohmann::json()},
      {"repeatable", row.repeatable},
      {"same_bits_as_reference", row.sameBitsAsReference
                                     ? nlohmann::json(*row.sameBitsAsReference)
                                     : nlohmann::json()},
      {"publishes", row.publishes},
      {"published_right", row.publishedRight
                              ? nlohmann::json(*row.publishedRight)
                              : nlohmann::json()},
      {"passed", row.passed()}};
  if (!row.failure.empty())
    json["failure"] = row.failure;
  return json;
}

} // namespace

/// Parses an unsigned count for \p option; false (with a message that says
/// \p why) when \p text is not one, not a multiple of \p multiple or over
/// \p most.
static bool parseCount(const char *option, const char *text, size_t multiple,
                       size_t most, const char *why, size_t &value) {
  char *end = nullptr;
  value = std::strtoull(text, &end, 10);
  if (end != text && !*end && value % multiple == 0 && value <= most)
    return true;
  std::fprintf(stderr, "lamport-gemm-bench: %s takes %s, not %s\n", option, why,
               text);
  return false;
}

int main(int argc, char **argv) {
  std::vector<std::string> directories;
  std::string jsonPath;
  Bench::Options options;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    bool hasValue = i + 1 < argc;
    if (arg == "--json" && hasValue)
      jsonPath = argv[++i];
    else if (arg == "--copy-stagger" && hasValue) {
      if (!parseCount("--copy-stagger", argv[++i], 16, SIZE_MAX,
                      "a byte count that is a multiple of 16 (fragments "
                      "stay aligned)",
                      options.copyStagger))
        return 2;
    } else if (arg == "--carveout" && hasValue) {
      size_t percent = 0;
      if (!parseCount("--carveout", argv[++i], 1, 100,
                      "a percentage from 0 to 100", percent))
        return 2;
      options.carveout = int(percent);
    } else if (arg == "--extra-shared" && hasValue) {
      // What one CTA may have on sm_90 and sm_100.
      if (!parseCount("--extra-shared", argv[++i], 1, 227 * 1024,
                      "a byte count up to 232448", options.extraSharedBytes))
        return 2;
    } else if (arg == "--contiguous-weights") {
      options.contiguousWeights = true;
    } else if (arg.rfind("--", 0) == 0) {
      std::fprintf(stderr, "lamport-gemm-bench: unknown option %s\n",
                   arg.c_str());
      return 2;
    } else
      directories.push_back(arg);
  }
  if (directories.empty()) {
    std::fprintf(
        stderr,
        "usage: lamport-gemm-bench [--json FILE] [--copy-stagger BYTES] "
        "[--carveout PERCENT] [--extra-shared BYTES] [--contiguous-weights] "
        "BUNDLE...\n");
    return 2;
  }
  // Points in the order their shapes first appear, M ascending; variants in
  // the order given.
  std::vector<GemmBundle> gemms;
  try {
    for (const std::string &directory : directories)
      gemms.push_back(openGemmBundle(directory));
  } catch (const std::exception &error) {
    std::fprintf(stderr, "lamport-gemm-bench: %s\n", error.what());
    return 2;
  }
  std::map<std::string, size_t> shapeOrder;
  for (const GemmBundle &gemm : gemms)
    shapeOrder.emplace(gemm.shape, shapeOrder.size());
  using PointKey = std::tuple<size_t, int64_t, int64_t, int64_t>;
  std::map<PointKey, std::vector<const GemmBundle *>> points;
  for (const GemmBundle &gemm : gemms)
    points[{shapeOrder[gemm.shape], gemm.m, gemm.n, gemm.k}].push_back(&gemm);

  try {
    CHECK(cuInit(0));
    Bench bench(options);
    std::printf("%s, copy bandwidth %.2f TB/s; %zu variants of %zu points\n",
                bench.deviceName().c_str(), bench.bandwidth() / 1e12,
                gemms.size(), points.size());
    std::printf("check: FP64 reference (rel. L2 < 1e-2), a bitwise repeat, and "
                "every variant the bits of the point's reference (same s, kw, "
                "t, a)\n");
    std::printf("%-14s %3s %-20s %8s %9s %7s %7s  %s\n", "shape", "M", "tactic",
                "ours_us", "cublas_us", "speedup", "%floor", "check");
    std::vector<Row> rows;
    std::vector<std::vector<Row>> pointRows;
    bool passed = true;
    for (auto &[key, variants] : points) {
      pointRows.push_back(bench.runPoint(variants));
      for (const Row &row : pointRows.back()) {
        passed &= row.passed();
        std::printf("%-14s %3lld %-20s %8.2f %9.2f %7.2f %6.1f%%  %s\n",
                    row.shape.c_str(), (long long)row.m, row.tactic.c_str(),
                    row.ours, row.cublas, row.cublas / row.ours,
                    100 * row.floor / row.ours, row.check().c_str());
        rows.push_back(row);
      }
      std::fflush(stdout);
    }

    std::printf("\nbest passing variant per point (tiles1: the best of "
                "tiles = 1)\n");
    std::printf("%-14s %3s %-20s %8s %7s %7s  %s\n", "shape", "M", "tactic",
                "ours_us", "speedup", "%floor", "tiles1 speedup");
    // Per point: the fastest passing variant, and the fastest of tiles 1.
    std::vector<double> bestSpeedups, oneTileSpeedups;
    for (const std::vector<Row> &variants : pointRows) {
      const Row *fastest = nullptr, *fastestOneTile = nullptr;
      for (const Row &row : variants) {
        // A publishing variant does more than the GEMM: it is timed against
        // its plain twin below, not ranked here.
        if (!row.passed() || row.publishes)
          continue;
        if (!fastest || row.ours < fastest->ours)
          fastest = &row;
        if (row.tiles == 1 &&
            (!fastestOneTile || row.ours < fastestOneTile->ours))
          fastestOneTile = &row;
      }
      if (!fastest)
        continue;
      bestSpeedups.push_back(fastest->cublas / fastest->ours);
      char oneTile[16] = "-";
      if (fastestOneTile) {
        oneTileSpeedups.push_back(fastestOneTile->cublas /
                                  fastestOneTile->ours);
        std::snprintf(oneTile, sizeof(oneTile), "%.2f", oneTileSpeedups.back());
      }
      std::printf("%-14s %3lld %-20s %8.2f %7.2f %6.1f%%  %s\n",
                  fastest->shape.c_str(), (long long)fastest->m,
                  fastest->tactic.c_str(), fastest->ours,
                  fastest->cublas / fastest->ours,
                  100 * fastest->floor / fastest->ours, oneTile);
    }
    std::printf("geometric-mean speedup over cuBLAS: %.3f best variant per "
                "point (%zu points), %.3f best of tiles = 1 (%zu points)\n",
                geometricMean(bestSpeedups), bestSpeedups.size(),
                geometricMean(oneTileSpeedups), oneTileSpeedups.size());
    // The epilogue's cost: each publishing variant against the variant of
    // the same point and tactic without the mailbox.
    bool headed = false;
    for (const std::vector<Row> &variants : pointRows)
      for (const Row &publishing : variants) {
        if (!publishing.publishes || !publishing.passed())
          continue;
        for (const Row &plain : variants) {
          if (plain.publishes || !plain.passed() ||
              plain.tactic != plainTactic(publishing.tactic))
            continue;
          if (!headed)
            std::printf("\npublishing epilogue (loopback mailbox) against "
                        "the same GEMM without it\n%-14s %3s %-20s %8s %8s "
                        "%8s\n",
                        "shape", "M", "tactic", "plain_us", "publ_us", "cost");
          headed = true;
          std::printf("%-14s %3lld %-20s %8.2f %8.2f %7.1f%%\n",
                      plain.shape.c_str(), (long long)plain.m,
                      plain.tactic.c_str(), plain.ours, publishing.ours,
                      100 * (publishing.ours / plain.ours - 1));
        }
      }
    if (!jsonPath.empty()) {
      nlohmann::json json = nlohmann::json::array();
      for (const Row &row : rows)
        json.push_back(toJson(row));
      std::ofstream(jsonPath) << json.dump(2) << "\n";
    }
    return passed ? 0 : 1;
  } catch (const std::exception &error) {
    std::fprintf(stderr, "lamport-gemm-bench: %s\n", error.what());
    return 1;
  }
}
