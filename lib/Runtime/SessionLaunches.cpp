//===- SessionLaunches.cpp - Launches, graphs and stream order ------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// What a Session enqueues: launch configurations built once per (rank,
// kernel) and the loopback residency check, kernel parameters and launches,
// async fills and copies, graph capture and replay, timing events, the
// fork and join of the ranks' streams and the publish barrier.
//
//===----------------------------------------------------------------------===//

#include "SessionImpl.h"
#include "lamport/Runtime/Driver.h"

#include <algorithm>

namespace lamport {
namespace runtime {

void Session::prepareLaunches() {
  const Manifest &m = bundle.manifest;
  for (int r = 0; r < config.tp; ++r) {
    DeviceModules &deviceModules = modulesOf(r);
    for (std::size_t k = 0; k < m.kernels.size(); ++k) {
      const KernelSpec &kernel = m.kernels[k];
      auto launch = std::make_unique<Launch>();
      setLaunchConfig(kernel, ranks[r]->stream, config.pdl, launch->config,
                      launch->attributes);
      launch->function = deviceModules.kernels[k];
      launch->context = concat("rank ", r, ": launching kernel '", kernel.name,
                               "' (", kernel.op, ")");
      if (std::any_of(kernel.params.begin(), kernel.params.end(),
                      [](const ParamSpec &p) {
                        return p.kind == ParamKind::TensorMap;
                      }))
        launch->tensorMaps.resize(kernel.params.size());
      launches.push_back(std::move(launch));
    }
  }
  checkLoopbackResidency();
}

void Session::checkLoopbackResidency() {
  if (config.transport != TransportKind::Loopback || config.tp < 2 ||
      !api().cuOccupancyMaxActiveClusters)
    return;
  const Manifest &m = bundle.manifest;
  for (std::size_t k = 0; k < m.kernels.size(); ++k) {
    const KernelSpec &kernel = m.kernels[k];
    // A kernel that publishes and then polls in the same CTAs: a CTA that
    // spins keeps its SM, so every rank's grid must be resident at once.
    if (!kernel.publishesAndConsumes())
      continue;
    makeCurrent(0);
    CUlaunchConfig launchConfig;
    CUlaunchAttribute attributes[2];
    setLaunchConfig(kernel, ranks[0]->stream, /*pdl=*/false, launchConfig,
                    attributes);
    int fit = 0;
    LAMPORT_CU(cuOccupancyMaxActiveClusters(&fit, modulesOf(0).kernels[k],
                                            &launchConfig),
               concat("kernel '", kernel.name, "': its occupancy"));
    // A row per token (grid x); the CTAs of rows past M exit without
    // waiting, so only the clusters of M rows spin.
    uint64_t clusterCtas = kernel.clusterSize();
    uint64_t rows = kernel.grid[0];
    uint64_t spinningRows = config.maxTokens > 0
                                ? std::min<uint64_t>(rows, config.maxTokens)
                                : rows;
    uint64_t clustersPerRow =
        uint64_t(kernel.grid[1]) * kernel.grid[2] / clusterCtas;
    uint64_t needed = uint64_t(config.tp) * spinningRows * clustersPerRow;
    if (uint64_t(fit) < needed)
      throw Error(concat(
          "kernel '", kernel.name, "' (", kernel.op,
          ") publishes its partial and then waits for every rank's in the "
          "same CTAs, so with all ",
          config.tp,
          " ranks on one GPU (--transport loopback) every rank's clusters of "
          "the step's ",
          spinningRows, " token(s) must be resident at once: ", needed,
          " clusters of ", clusterCtas, " CTAs, but this GPU holds ", fit,
          " at most; the launch would spin until its timeout. Run it with "
          "one GPU per rank (--transport peer), fewer tokens (--tokens) or a "
          "smaller tp"));
  }
}

void setLaunchConfig(const LaunchShape &shape, CUstream stream, bool pdl,
                     CUlaunchConfig &config,
                     CUlaunchAttribute (&attributes)[2]) {
  config = CUlaunchConfig{};
  config.gridDimX = shape.grid[0];
  config.gridDimY = shape.grid[1];
  config.gridDimZ = shape.grid[2];
  config.blockDimX = shape.block[0];
  config.blockDimY = shape.block[1];
  config.blockDimZ = shape.block[2];
  config.sharedMemBytes = shape.sharedBytes;
  config.hStream = stream;
  unsigned count = 0;
  // In 64 bits: a host-lowered program's cluster comes from its caller.
  if (uint64_t(shape.cluster[0]) * shape.cluster[1] * shape.cluster[2] > 1) {
    CUlaunchAttribute &a = attributes[count++];
    a.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    a.value.clusterDim.x = shape.cluster[0];
    a.value.clusterDim.y = shape.cluster[1];
    a.value.clusterDim.z = shape.cluster[2];
  }
  if (pdl) {
    CUlaunchAttribute &a = attributes[count++];
    a.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    a.value.programmaticStreamSerializationAllowed = 1;
  }
  config.attrs = count ? attributes : nullptr;
  config.numAttrs = count;
}

void setLaunchConfig(const KernelSpec &kernel, CUstream stream, bool pdl,
                     CUlaunchConfig &config,
                     CUlaunchAttribute (&attributes)[2]) {
  LaunchShape shape{kernel.grid, kernel.block, kernel.cluster,
                    kernel.sharedBytes};
  setLaunchConfig(shape, stream, kernel.pdl && pdl, config, attributes);
}

std::vector<void *>
Session::kernelParams(int rank, int kernel,
                      const std::function<void *(int argument)> &bufferSlot,
                      int32_t *tokens) {
  Launch &l = *launches[rank * bundle.manifest.kernels.size() + kernel];
  return kernelParamList(
      bundle.manifest, kernel,
      [&](int mailbox) { return descriptor(mailbox, rank); }, bufferSlot,
      [&](int param) -> void * { return &l.tensorMaps[param]; }, tokens);
}

std::vector<void *>
kernelParamList(const Manifest &m, int kernel,
                const std::function<void *(int mailbox)> &descriptorOf,
                const std::function<void *(int argument)> &bufferSlot,
                const std::function<void *(int param)> &tensorMapSlot,
                int32_t *tokens) {
  std::vector<void *> list;
  for (const ParamSpec &param : m.kernels[kernel].params)
    switch (param.kind) {
    case ParamKind::Mailbox:
      list.push_back(descriptorOf(m.arguments[param.argument].mailbox));
      break;
    case ParamKind::Buffer:
      list.push_back(bufferSlot(param.argument));
      break;
    case ParamKind::Tokens:
      list.push_back(tokens);
      break;
    case ParamKind::TensorMap:
      list.push_back(tensorMapSlot(int(list.size())));
      break;
    }
  return list;
}

void Session::launch(int rank, int kernel, void **params) {
  Launch &l = *launches[rank * bundle.manifest.kernels.size() + kernel];
  if (config.transport == TransportKind::Peer)
    makeCurrent(rank);
  if (!l.tensorMaps.empty())
    encodeTensorMaps(bundle.manifest, kernel, params, l.context);
  CUresult result =
      api().cuLaunchKernelEx(&l.config, l.function, params, nullptr);
  if (result != CUDA_SUCCESS)
    fail(result, l.context);
}

void Session::fill16Async(int rank, CUdeviceptr pointer, uint16_t value,
                          std::size_t count, const std::string &what) {
  if (config.transport == TransportKind::Peer)
    makeCurrent(rank);
  CUresult result =
      api().cuMemsetD16Async(pointer, value, count, ranks[rank]->stream);
  if (result != CUDA_SUCCESS)
    fail(result, concat("rank ", rank, ": filling ", what));
}

void Session::copyAsync(int rank, CUdeviceptr to, CUdeviceptr from,
                        std::size_t bytes, const std::string &what) {
  if (config.transport == TransportKind::Peer)
    makeCurrent(rank);
  CUresult result =
      api().cuMemcpyDtoDAsync(to, from, bytes, ranks[rank]->stream);
  if (result != CUDA_SUCCESS)
    fail(result, concat("rank ", rank, ": copying ", what));
}

//===----------------------------------------------------------------------===//
// Graphs and events on the main stream
//===----------------------------------------------------------------------===//

CUgraphExec Session::capture(const std::function<void()> &enqueue,
                             const std::string &what) {
  makeCurrent(0);
  LAMPORT_CU(cuStreamBeginCapture(main, CU_STREAM_CAPTURE_MODE_RELAXED),
             concat("capturing ", what));
  try {
    enqueue();
  } catch (...) {
    CUgraph broken = nullptr;
    makeCurrent(0);
    api().cuStreamEndCapture(main, &broken);
    if (broken)
      api().cuGraphDestroy(broken);
    throw;
  }
  makeCurrent(0);
  CUgraph graph = nullptr;
  LAMPORT_CU(cuStreamEndCapture(main, &graph), concat("capturing ", what));
  graphs.push_back(graph);
  CUgraphExec exec = nullptr;
  LAMPORT_CU(cuGraphInstantiateWithFlags(&exec, graph, 0),
             concat("instantiating the graph of ", what));
  graphExecs.push_back(exec);
  return exec;
}

void Session::replay(CUgraphExec graph, const std::string &what) {
  makeCurrent(0);
  CUresult result = api().cuGraphLaunch(graph, main);
  if (result != CUDA_SUCCESS)
    fail(result, concat("replaying the graph of ", what));
}

void Session::record(CUevent event, const std::string &what) {
  makeCurrent(0);
  CUresult result = api().cuEventRecord(event, main);
  if (result != CUDA_SUCCESS)
    fail(result, concat("recording an event ", what));
}

float Session::elapsedMs(CUevent start, CUevent end) {
  float ms = 0;
  CUresult result = api().cuEventElapsedTime(&ms, start, end);
  if (result != CUDA_SUCCESS)
    fail(result, "reading a step's timing events");
  return ms;
}

//===----------------------------------------------------------------------===//
// Stream order between the ranks
//===----------------------------------------------------------------------===//

void Session::fork() { streamFork->fork(); }

void Session::join() { streamFork->join(); }

void Session::markPublished(int rank) {
  if (config.transport == TransportKind::Peer)
    makeCurrent(rank);
  LAMPORT_CU(cuEventRecord(ranks[rank]->publishedEvent, ranks[rank]->stream),
             concat("rank ", rank, ": marking its publishes done"));
}

void Session::awaitPublishes(int rank) {
  for (int q = 0; q < config.tp; ++q)
    LAMPORT_CU(
        cuStreamWaitEvent(ranks[rank]->stream, ranks[q]->publishedEvent, 0),
        concat("rank ", rank, ": waiting for rank ", q, "'s publishes"));
}

} // namespace runtime
} // namespace lamport
