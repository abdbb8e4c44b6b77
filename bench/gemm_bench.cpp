//===- gemm_bench.cpp - lamport.gemm_publish against cuBLAS ---------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// Checks and times the generated small-M GEMM of each bundle against cuBLAS
// in the same process:
//
//   lamport-gemm-bench [--json FILE] BUNDLE...
//
// Each BUNDLE is lamport-compile's output for a program holding one
// lamport.gemm_publish without a mailbox (weight [N, K], x [M, K] with a
// static M, y [M, N]). For each, the bench
//   - checks y against an FP64 host reference on fresh random inputs, with
//     y poisoned before the run (relative L2 error below 1e-2, no NaN, every
//     element written), and that a second run gives the same bytes;
//   - times the kernel and cublasGemmEx (BF16 in and out, FP32 compute) as
//     nodes of a CUDA graph over max(8, 512 MiB / W) weight copies, so the
//     weights rotate past the 60 MB L2: median of 20 replays, per GEMM;
//   - prints ours, cuBLAS, the ratio and the share of the bandwidth floor
//     (bytes over the device-to-device copy bandwidth measured first).
//
//===----------------------------------------------------------------------===//

#include "lamport/Runtime/Manifest.h"
#include "lamport/Runtime/Reference.h"

#include <cublas_v2.h>
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

using lamport::runtime::ArgumentKind;
using lamport::runtime::bf16ToFloat;
using lamport::runtime::floatToBf16;
using lamport::runtime::BufferIO;
using lamport::runtime::Bundle;
using lamport::runtime::KernelSpec;
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

/// One GEMM bundle: its kernel and the shapes of its three buffers.
struct GemmBundle {
  Bundle bundle;
  const KernelSpec *kernel = nullptr;
  int64_t n = 0, k = 0, m = 0;
  /// Argument index of each buffer, and the kernel's parameter order.
  int weightArg = -1, xArg = -1, yArg = -1;
};

GemmBundle openGemmBundle(const std::string &directory) {
  GemmBundle gemm;
  gemm.bundle = lamport::runtime::loadBundle(directory);
  const auto &manifest = gemm.bundle.manifest;
  for (const KernelSpec &kernel : manifest.kernels)
    if (kernel.op == "gemm_publish")
      gemm.kernel = &kernel;
  if (!gemm.kernel || manifest.kernels.size() != 1 ||
      !manifest.mailboxes.empty())
    fail(directory + ": needs exactly one gemm_publish kernel and no mailbox");
  for (const auto &argument : manifest.arguments) {
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
    if (argument.io != BufferIO::Out && argument.index != gemm.weightArg)
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
  return gemm;
}

struct Row {
  std::string name;
  int64_t n, k, m;
  double ours, cublas, floor;
  double error;
  bool repeatable;
};

class Bench {
public:
  Bench() {
    CHECK(cudaSetDevice(0));
    CHECK(cudaFree(nullptr));
    CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CHECK(cublasCreate(&blas));
    CHECK(cublasSetStream(blas, stream));
    CHECK(cudaMalloc(&workspace, kWorkspaceBytes));
    CHECK(cublasSetWorkspace(blas, workspace, kWorkspaceBytes));
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    cudaDeviceProp properties;
    CHECK(cudaGetDeviceProperties(&properties, 0));
    device = properties.name;
    measureCopyBandwidth();
  }

  Row run(const std::string &directory);
  double bandwidth() const { return copyBytesPerSecond; }
  const std::string &deviceName() const { return device; }

private:
  static constexpr size_t kWorkspaceBytes = 32 << 20;
  void measureCopyBandwidth();
  float timeGraph(int copies, const std::function<void(int)> &enqueue);

  cudaStream_t stream = nullptr;
  cublasHandle_t blas = nullptr;
  void *workspace = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  double copyBytesPerSecond = 0;
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

Row Bench::run(const std::string &directory) {
  GemmBundle gemm = openGemmBundle(directory);
  const KernelSpec &spec = *gemm.kernel;
  const std::string &image =
      gemm.bundle.cubin[0].empty() ? gemm.bundle.ptx[0] : gemm.bundle.cubin[0];
  CUmodule module;
  CHECK(cuModuleLoadData(&module, image.data()));
  CUfunction function;
  CHECK(cuModuleGetFunction(&function, module, spec.name.c_str()));

  const int64_t n = gemm.n, k = gemm.k, m = gemm.m;
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
  for (int c = 0; c < copies; ++c) {
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

  // Parameters in the kernel's order; buffers by their argument index.
  auto launch = [&](int c) {
    std::vector<void *> params;
    for (const auto &param : spec.params) {
      if (param.kind == ParamKind::Tokens) {
        params.push_back(&tokens);
        continue;
      }
      void **slot = param.argument == gemm.weightArg ? &weights[c]
                    : param.argument == gemm.xArg    ? &x
                                                     : &ys[c];
      params.push_back(slot);
    }
    CUlaunchConfig config = {};
    config.gridDimX = spec.grid[0];
    config.gridDimY = spec.grid[1];
    config.gridDimZ = spec.grid[2];
    config.blockDimX = spec.block[0];
    config.blockDimY = spec.block[1];
    config.blockDimZ = spec.block[2];
    config.sharedMemBytes = spec.sharedBytes;
    config.hStream = stream;
    CUlaunchAttribute attributes[2];
    unsigned count = 0;
    if (spec.clusterSize() > 1) {
      attributes[count].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
      attributes[count].value.clusterDim.x = spec.cluster[0];
      attributes[count].value.clusterDim.y = spec.cluster[1];
      attributes[count].value.clusterDim.z = spec.cluster[2];
      ++count;
    }
    if (spec.pdl) {
      attributes[count].id =
          CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
      attributes[count].value.programmaticStreamSerializationAllowed = 1;
      ++count;
    }
    config.attrs = attributes;
    config.numAttrs = count;
    CHECK(cuLaunchKernelEx(&config, function, params.data(), nullptr));
  };
  const float one = 1.f, zero = 0.f;
  auto cublas = [&](int c) {
    // Column-major view: y^T [n, m] = W [k, n]^T . x^T [k, m].
    CHECK(cublasGemmEx(blas, CUBLAS_OP_T, CUBLAS_OP_N, int(n), int(m), int(k),
                       &one, weights[c], CUDA_R_16BF, int(k), x, CUDA_R_16BF,
                       int(k), &zero, blasYs[c], CUDA_R_16BF, int(n),
                       CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
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
  double errorSquared = 0, referenceSquared = 0;
  bool finite = true;
  for (int64_t t = 0; t < m; ++t)
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (int64_t i = 0; i < k; ++i)
        sum += double(bf16ToFloat(hostX[t * k + i])) *
               bf16ToFloat(hostWeight[j * k + i]);
      double got = bf16ToFloat(first[t * n + j]);
      finite &= std::isfinite(got);
      errorSquared += (got - sum) * (got - sum);
      referenceSquared += sum * sum;
    }
  double error = finite ? std::sqrt(errorSquared / referenceSquared) : INFINITY;

  float ours = timeGraph(copies, launch);
  float theirs = timeGraph(copies, cublas);
  double floorSeconds = (weightBytes + double(m) * k * 2 + double(m) * n * 2) /
                        copyBytesPerSecond;

  for (int c = 0; c < copies; ++c) {
    CHECK(cudaFree(weights[c]));
    CHECK(cudaFree(ys[c]));
    CHECK(cudaFree(blasYs[c]));
  }
  CHECK(cudaFree(x));
  CHECK(cuModuleUnload(module));
  std::string name = directory.substr(directory.find_last_of('/') + 1);
  return {name,           n, k, m, ours, theirs, floorSeconds * 1e6, error,
          first == second};
}

} // namespace

int main(int argc, char **argv) {
  std::vector<std::string> bundles;
  std::string jsonPath;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--json" && i + 1 < argc)
      jsonPath = argv[++i];
    else if (arg.rfind("--", 0) == 0) {
      std::fprintf(stderr, "lamport-gemm-bench: unknown option %s\n",
                   arg.c_str());
      return 2;
    } else
      bundles.push_back(arg);
  }
  if (bundles.empty()) {
    std::fprintf(stderr, "usage: lamport-gemm-bench [--json FILE] BUNDLE...\n");
    return 2;
  }
  try {
    CHECK(cuInit(0));
    Bench bench;
    std::printf("%s, copy bandwidth %.2f TB/s\n", bench.deviceName().c_str(),
                bench.bandwidth() / 1e12);
    std::printf("%-28s %6s %6s %3s %9s %9s %7s %7s %9s %s\n", "bundle", "N",
                "K", "M", "ours_us", "cublas_us", "speedup", "%floor",
                "rel_err", "check");
    std::vector<Row> rows;
    bool passed = true;
    for (const std::string &directory : bundles) {
      Row row = bench.run(directory);
      bool ok = row.error < 1e-2 && row.repeatable;
      passed &= ok;
      std::printf(
          "%-28s %6lld %6lld %3lld %9.3f %9.3f %7.2f %6.1f%% %9.2e "
          "%s\n",
          row.name.c_str(), (long long)row.n, (long long)row.k,
          (long long)row.m, row.ours, row.cublas, row.cublas / row.ours,
          100 * row.floor / row.ours, row.error,
          ok ? "PASS"
             : (row.repeatable ? "FAIL (error)" : "FAIL (not repeatable)"));
      rows.push_back(row);
    }
    double logSum = 0;
    for (const Row &row : rows)
      logSum += std::log(row.cublas / row.ours);
    std::printf("geometric-mean speedup over cuBLAS: %.3f over %zu points\n",
                std::exp(logSum / rows.size()), rows.size());
    if (!jsonPath.empty()) {
      std::ofstream json(jsonPath);
      json << "[\n";
      for (size_t i = 0; i < rows.size(); ++i) {
        const Row &row = rows[i];
        json << "  {\"bundle\": \"" << row.name << "\", \"n\": " << row.n
             << ", \"k\": " << row.k << ", \"m\": " << row.m
             << ", \"ours_us\": " << row.ours
             << ", \"cublas_us\": " << row.cublas
             << ", \"floor_us\": " << row.floor
             << ", \"rel_error\": " << row.error
             << ", \"repeatable\": " << (row.repeatable ? "true" : "false")
             << "}" << (i + 1 < rows.size() ? ",\n" : "\n");
      }
      json << "]\n";
    }
    return passed ? 0 : 1;
  } catch (const std::exception &error) {
    std::fprintf(stderr, "lamport-gemm-bench: %s\n", error.what());
    return 1;
  }
}
