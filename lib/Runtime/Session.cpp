//===- Session.cpp - Ranks, mailboxes and launches on GPUs ----------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#include "lamport/Runtime/Session.h"
#include "lamport/Runtime/Driver.h"
#include "lamport/Runtime/KernelLoader.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace lamport {
namespace runtime {

/// One rank: its device, context and stream.
struct Session::Rank {
  int ordinal = 0;
  CUdevice device = 0;
  CUcontext context = nullptr;
  CUstream stream = nullptr;
  CUevent joinEvent = nullptr;
  CUevent publishedEvent = nullptr;
  DeviceProperties properties;
  bool ownsContext = false; ///< One primary-context retain per device.
};

/// A device's loaded modules: the bundle's kernels.
struct Session::DeviceModules {
  int ordinal = -1;
  std::vector<CUmodule> loaded;
  std::vector<CUfunction> kernels;
};

/// One mailbox on every rank.
struct Session::Mailbox {
  MailboxSpec spec;
  std::vector<CUdeviceptr> copies;      ///< Per rank, as mapped for everyone.
  std::vector<CUdeviceptr> stages;      ///< Per rank, kStageWords int32s.
  std::vector<TimeoutRecord *> records; ///< Host side, per rank.
  std::vector<std::vector<uint8_t>> packed; ///< Descriptors, per rank.
  // Peer transport only: the VMM pieces to unmap and release.
  std::vector<CUmemGenericAllocationHandle> handles;
  std::vector<std::size_t> mappedBytes;
};

/// A launch configuration built once per (rank, kernel).
struct Session::Launch {
  CUlaunchConfig config{};
  CUlaunchAttribute attributes[2]{};
  CUfunction function = nullptr;
  std::string context;
};

Session::Session(const Bundle &bundle, const SessionConfig &config)
    : bundle(bundle), config(config) {
  if (config.transport == TransportKind::Multicast) {
    std::string why = multicastRefusal(config.allowMulticast,
                                       std::getenv("NCCL_NVLS_ENABLE"));
    if (why.empty())
      why = "the multicast transport is not implemented: it needs an NVLink "
            "multicast object (cuMulticastCreate), which this runtime never "
            "creates on shared machines";
    throw Error(why);
  }
  if (bundle.manifest.transport == "multicast")
    throw Error(concat("bundle '", bundle.directory,
                       "' publishes with NVLink multicast (transport "
                       "'multicast'); the ",
                       transportName(config.transport),
                       " transport needs a unicast bundle"));
  for (const MailboxSpec &mailbox : bundle.manifest.mailboxes)
    if (mailbox.tp != config.tp)
      throw Error(concat("--tp ", config.tp, " does not match mailbox '",
                         mailbox.name, "' of the bundle (tp = ", mailbox.tp,
                         ")"));
  openDevices();
  loadKernels();
  createMailboxes();
  prepareLaunches();
}

Session::~Session() {
  // Best effort: after a trap the context is poisoned and these calls fail;
  // there is nothing left to report then.
  const DriverApi &cu = api();
  for (CUgraphExec exec : graphExecs)
    cu.cuGraphExecDestroy(exec);
  for (CUgraph graph : graphs)
    cu.cuGraphDestroy(graph);
  for (CUevent event : events)
    cu.cuEventDestroy(event);
  if (forkEvent)
    cu.cuEventDestroy(forkEvent);
  for (auto &mailbox : mailboxes) {
    for (int r = 0; r < int(mailbox->records.size()); ++r)
      if (mailbox->records[r])
        cu.cuMemFreeHost(mailbox->records[r]);
    for (std::size_t r = 0; r < mailbox->handles.size(); ++r) {
      cu.cuMemUnmap(mailbox->copies[r], mailbox->mappedBytes[r]);
      cu.cuMemAddressFree(mailbox->copies[r], mailbox->mappedBytes[r]);
      cu.cuMemRelease(mailbox->handles[r]);
    }
  }
  for (const Allocation &allocation : allocations) {
    cu.cuCtxSetCurrent(ranks[allocation.rank]->context);
    cu.cuMemFree(allocation.pointer);
  }
  for (auto &deviceModules : modules)
    for (CUmodule module : deviceModules->loaded)
      cu.cuModuleUnload(module);
  for (auto &rank : ranks) {
    cu.cuCtxSetCurrent(rank->context);
    if (rank->joinEvent)
      cu.cuEventDestroy(rank->joinEvent);
    if (rank->publishedEvent)
      cu.cuEventDestroy(rank->publishedEvent);
    if (rank->stream)
      cu.cuStreamDestroy(rank->stream);
  }
  if (main)
    cu.cuStreamDestroy(main);
  for (auto &rank : ranks)
    if (rank->ownsContext)
      cu.cuDevicePrimaryCtxRelease(rank->device);
}

const DeviceProperties &Session::device(int rank) const {
  return ranks[rank]->properties;
}

void Session::makeCurrent(int rank) const {
  LAMPORT_CU(cuCtxSetCurrent(ranks[rank]->context),
             concat("rank ", rank, ": making its context current"));
}

CUstream Session::stream(int rank) const { return ranks[rank]->stream; }

DeviceProperties queryDevice(int ordinal, CUdevice device) {
  DeviceProperties p;
  p.ordinal = ordinal;
  char name[256] = {0};
  std::string who = concat("device ", ordinal);
  LAMPORT_CU(cuDeviceGetName(name, sizeof(name) - 1, device), who);
  p.name = name;
  auto attribute = [&](CUdevice_attribute attr, const char *what) {
    int value = 0;
    LAMPORT_CU(cuDeviceGetAttribute(&value, attr, device),
               concat(who, ": reading ", what));
    return value;
  };
  p.ccMajor = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                        "compute capability");
  p.ccMinor = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                        "compute capability");
  p.maxThreadsPerBlock =
      attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, "threads/block");
  p.maxSharedPerBlockOptin = attribute(
      CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, "shared memory");
  p.clusterLaunch =
      attribute(CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH, "cluster support") != 0;
  p.multiprocessors =
      attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, "SM count");
  if (!attribute(CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING, "unified addressing"))
    throw Error(concat(p.describe(), " has no unified addressing"));
  if (!attribute(CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY, "host mapping"))
    throw Error(concat(p.describe(), " cannot map host memory, which the "
                                     "timeout records live in"));
  return p;
}

void Session::openDevices() {
  int count = 0;
  LAMPORT_CU(cuDeviceGetCount(&count), "counting CUDA devices");
  int needed = config.transport == TransportKind::Peer ? config.tp : 1;
  if (config.firstDevice + needed > count)
    throw Error(concat("the ", transportName(config.transport),
                       " transport with tp = ", config.tp, " needs ", needed,
                       " GPU(s) from device ", config.firstDevice,
                       ", but this machine has ", count));
  for (int r = 0; r < config.tp; ++r) {
    auto rank = std::make_unique<Rank>();
    rank->ordinal =
        config.firstDevice + (config.transport == TransportKind::Peer ? r : 0);
    std::string who = concat("rank ", r, " (device ", rank->ordinal, ")");
    LAMPORT_CU(cuDeviceGet(&rank->device, rank->ordinal), who);
    if (r == 0 || config.transport == TransportKind::Peer) {
      rank->properties = queryDevice(rank->ordinal, rank->device);
      LAMPORT_CU(cuDevicePrimaryCtxRetain(&rank->context, rank->device),
                 concat(who, ": retaining its primary context"));
      rank->ownsContext = true;
    } else {
      rank->properties = ranks[0]->properties;
      rank->context = ranks[0]->context;
    }
    LAMPORT_CU(cuCtxSetCurrent(rank->context), who);
    LAMPORT_CU(cuStreamCreate(&rank->stream, CU_STREAM_NON_BLOCKING),
               concat(who, ": creating its stream"));
    LAMPORT_CU(cuEventCreate(&rank->joinEvent, CU_EVENT_DISABLE_TIMING),
               concat(who, ": creating its join event"));
    LAMPORT_CU(cuEventCreate(&rank->publishedEvent, CU_EVENT_DISABLE_TIMING),
               concat(who, ": creating its publish-barrier event"));
    checkKernelsFit(bundle.manifest, rank->properties);
    ranks.push_back(std::move(rank));
  }
  if (config.transport == TransportKind::Peer)
    for (int r = 0; r < config.tp; ++r)
      for (int q = 0; q < config.tp; ++q) {
        if (r == q)
          continue;
        int can = 0;
        LAMPORT_CU(
            cuDeviceCanAccessPeer(&can, ranks[r]->device, ranks[q]->device),
            concat("rank ", r, ": asking for peer access to rank ", q));
        if (!can)
          throw Error(concat("peer transport: device ", ranks[r]->ordinal,
                             " (rank ", r,
                             ") cannot access the memory of "
                             "device ",
                             ranks[q]->ordinal, " (rank ", q,
                             "): no NVLink or PCIe peer path"));
      }
  makeCurrent(0);
  LAMPORT_CU(cuStreamCreate(&main, CU_STREAM_NON_BLOCKING),
             "creating the main stream");
  LAMPORT_CU(cuEventCreate(&forkEvent, CU_EVENT_DISABLE_TIMING),
             "creating the fork event");
  std::vector<CUstream> streams;
  std::vector<CUevent> joinEvents;
  for (const auto &rank : ranks) {
    streams.push_back(rank->stream);
    joinEvents.push_back(rank->joinEvent);
  }
  // One context serves every rank of the loopback transport: rank 0's.
  streamFork = std::make_unique<StreamFork>(
      main, forkEvent, std::move(streams), std::move(joinEvents),
      [this](int rank) {
        if (rank == 0 || config.transport == TransportKind::Peer)
          makeCurrent(rank);
      });
}

Session::DeviceModules &Session::modulesOf(int rank) {
  for (auto &deviceModules : modules)
    if (deviceModules->ordinal == ranks[rank]->ordinal)
      return *deviceModules;
  throw Error(concat("rank ", rank, ": no modules loaded on its device"));
}

void Session::loadKernels() {
  const Manifest &m = bundle.manifest;
  for (int r = 0; r < config.tp; ++r) {
    bool loaded = false;
    for (auto &deviceModules : modules)
      loaded |= deviceModules->ordinal == ranks[r]->ordinal;
    if (loaded)
      continue;
    makeCurrent(r);
    const DeviceProperties &props = ranks[r]->properties;
    auto deviceModules = std::make_unique<DeviceModules>();
    deviceModules->ordinal = ranks[r]->ordinal;
    for (std::size_t k = 0; k < m.kernels.size(); ++k) {
      const KernelSpec &kernel = m.kernels[k];
      std::string who =
          concat("kernel '", kernel.name, "' on ", props.describe());
      LoadedKernel entry = loadKernel(bundle, k, props, who);
      deviceModules->loaded.push_back(entry.module);
      deviceModules->kernels.push_back(entry.function);
      imageText = entry.image;
    }
    modules.push_back(std::move(deviceModules));
  }
}

void Session::createMailboxes() {
  const Manifest &m = bundle.manifest;
  for (const MailboxSpec &spec : m.mailboxes) {
    auto mailbox = std::make_unique<Mailbox>();
    mailbox->spec = spec;
    std::size_t bytes = spec.copyBytes();
    for (int r = 0; r < config.tp; ++r) {
      std::string who =
          concat("mailbox '", spec.name, "' (id ", spec.id, "), rank ", r);
      makeCurrent(r);
      CUdeviceptr copy = 0;
      if (config.transport == TransportKind::Peer) {
        // A VMM allocation on this rank's GPU, mapped once at one address
        // that every rank's device is then granted access to.
        CUmemAllocationProp prop{};
        prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = ranks[r]->ordinal;
        std::size_t granularity = 0;
        LAMPORT_CU(
            cuMemGetAllocationGranularity(&granularity, &prop,
                                          CU_MEM_ALLOC_GRANULARITY_RECOMMENDED),
            concat(who, ": reading the VMM granularity"));
        std::size_t mapped =
            (bytes + granularity - 1) / granularity * granularity;
        CUmemGenericAllocationHandle handle = 0;
        LAMPORT_CU(cuMemCreate(&handle, mapped, &prop, 0),
                   concat(who, ": creating ", mapped, " bytes"));
        mailbox->handles.push_back(handle);
        mailbox->mappedBytes.push_back(mapped);
        LAMPORT_CU(cuMemAddressReserve(&copy, mapped, granularity, 0, 0),
                   concat(who, ": reserving address space"));
        mailbox->copies.push_back(copy);
        LAMPORT_CU(cuMemMap(copy, mapped, 0, handle, 0),
                   concat(who, ": mapping its copy"));
        std::vector<CUmemAccessDesc> access(config.tp);
        for (int q = 0; q < config.tp; ++q) {
          access[q].location.type = CU_MEM_LOCATION_TYPE_DEVICE;
          access[q].location.id = ranks[q]->ordinal;
          access[q].flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        }
        LAMPORT_CU(cuMemSetAccess(copy, mapped, access.data(), access.size()),
                   concat(who, ": granting every rank's device access"));
      } else {
        copy = allocate(r, bytes, who);
        mailbox->copies.push_back(copy);
      }
      // Every slot of every generation starts as the sentinel.
      LAMPORT_CU(cuMemsetD16(copy, kSentinel, bytes / 2),
                 concat(who, ": filling its copy with the sentinel"));
      // [ACTIVE, NEXT, ARRIVALS, reserved] (docs/bundle.md).
      CUdeviceptr stage = allocate(r, kStageWords * sizeof(int32_t),
                                   concat(who, ": stage words"));
      LAMPORT_CU(cuMemsetD32(stage, 0, kStageWords),
                 concat(who, ": zeroing the stage words"));
      mailbox->stages.push_back(stage);
      void *host = nullptr;
      LAMPORT_CU(
          cuMemHostAlloc(&host, sizeof(TimeoutRecord),
                         CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE),
          concat(who, ": allocating its timeout record"));
      std::memset(host, 0, sizeof(TimeoutRecord));
      mailbox->records.push_back(static_cast<TimeoutRecord *>(host));
    }
    for (int r = 0; r < config.tp; ++r) {
      std::string who =
          concat("mailbox '", spec.name, "' (id ", spec.id, "), rank ", r);
      makeCurrent(r);
      CUdeviceptr record = 0;
      LAMPORT_CU(cuMemHostGetDevicePointer(&record, mailbox->records[r], 0),
                 concat(who, ": mapping its timeout record"));
      DescriptorFields fields;
      fields.local = mailbox->copies[r];
      fields.multicast = 0;
      fields.stage = mailbox->stages[r];
      fields.diagnostics = record;
      fields.rank = r;
      fields.mailboxId = spec.id;
      fields.peers.assign(mailbox->copies.begin(), mailbox->copies.end());
      mailbox->packed.push_back(packDescriptor(fields));
    }
    mailboxes.push_back(std::move(mailbox));
  }
  for (int r = 0; r < config.tp; ++r) {
    makeCurrent(r);
    LAMPORT_CU(cuCtxSynchronize(),
               concat("rank ", r, ": initialising the mailboxes"));
  }
}

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

void setLaunchConfig(const KernelSpec &kernel, CUstream stream, bool pdl,
                     CUlaunchConfig &config,
                     CUlaunchAttribute (&attributes)[2]) {
  config = CUlaunchConfig{};
  config.gridDimX = kernel.grid[0];
  config.gridDimY = kernel.grid[1];
  config.gridDimZ = kernel.grid[2];
  config.blockDimX = kernel.block[0];
  config.blockDimY = kernel.block[1];
  config.blockDimZ = kernel.block[2];
  config.sharedMemBytes = kernel.sharedBytes;
  config.hStream = stream;
  unsigned count = 0;
  if (kernel.clusterSize() > 1) {
    CUlaunchAttribute &a = attributes[count++];
    a.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    a.value.clusterDim.x = kernel.cluster[0];
    a.value.clusterDim.y = kernel.cluster[1];
    a.value.clusterDim.z = kernel.cluster[2];
  }
  if (kernel.pdl && pdl) {
    CUlaunchAttribute &a = attributes[count++];
    a.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    a.value.programmaticStreamSerializationAllowed = 1;
  }
  config.attrs = count ? attributes : nullptr;
  config.numAttrs = count;
}

CUdeviceptr Session::allocate(int rank, std::size_t bytes,
                              const std::string &what) {
  makeCurrent(rank);
  CUdeviceptr pointer = 0;
  LAMPORT_CU(
      cuMemAlloc(&pointer, bytes ? bytes : 16),
      concat("rank ", rank, ": allocating ", bytes, " bytes for ", what));
  allocations.push_back({rank, pointer});
  return pointer;
}

void Session::upload(int rank, CUdeviceptr to, const void *from,
                     std::size_t bytes, const std::string &what) {
  makeCurrent(rank);
  LAMPORT_CU(cuMemcpyHtoD(to, from, bytes),
             concat("rank ", rank, ": uploading ", what));
}

void Session::download(int rank, void *to, CUdeviceptr from, std::size_t bytes,
                       const std::string &what) {
  makeCurrent(rank);
  CUresult result = api().cuMemcpyDtoH(to, from, bytes);
  if (result != CUDA_SUCCESS)
    fail(result, concat("rank ", rank, ": downloading ", what));
}

CUevent Session::createEvent(bool timing) {
  makeCurrent(0);
  CUevent event = nullptr;
  LAMPORT_CU(cuEventCreate(&event,
                           timing ? CU_EVENT_DEFAULT : CU_EVENT_DISABLE_TIMING),
             "creating an event");
  events.push_back(event);
  return event;
}

void *Session::descriptor(int mailbox, int rank) {
  return mailboxes[mailbox]->packed[rank].data();
}

std::vector<void *>
Session::kernelParams(int rank, int kernel,
                      const std::function<void *(int argument)> &bufferSlot,
                      int32_t *tokens) {
  const Manifest &m = bundle.manifest;
  std::vector<void *> list;
  for (const ParamSpec &param : m.kernels[kernel].params)
    switch (param.kind) {
    case ParamKind::Mailbox:
      list.push_back(descriptor(m.arguments[param.argument].mailbox, rank));
      break;
    case ParamKind::Buffer:
      list.push_back(bufferSlot(param.argument));
      break;
    case ParamKind::Tokens:
      list.push_back(tokens);
      break;
    }
  return list;
}

void Session::launch(int rank, int kernel, void **params) {
  Launch &l = *launches[rank * bundle.manifest.kernels.size() + kernel];
  if (config.transport == TransportKind::Peer)
    makeCurrent(rank);
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

void Session::wait(CUevent event, double seconds, const std::string &during) {
  using Clock = std::chrono::steady_clock;
  makeCurrent(0);
  auto deadline = Clock::now() + std::chrono::duration<double>(seconds);
  for (unsigned polls = 0;; ++polls) {
    CUresult result = api().cuEventQuery(event);
    if (result == CUDA_SUCCESS)
      return;
    if (result != CUDA_ERROR_NOT_READY)
      fail(result, during);
    // One GPU per rank: a rank's context learns of its own trap before the
    // event on device 0, which waits on it, does; look at every rank's
    // stream about once a millisecond so the failure is reported as soon as
    // the first context has it.
    if (config.transport == TransportKind::Peer && polls % 50 == 49) {
      for (int r = 0; r < config.tp; ++r) {
        makeCurrent(r);
        CUresult rank = api().cuStreamQuery(ranks[r]->stream);
        if (rank != CUDA_SUCCESS && rank != CUDA_ERROR_NOT_READY)
          fail(rank, concat(during, " (rank ", r, "'s stream)"));
      }
      makeCurrent(0);
    }
    if (Clock::now() > deadline)
      fail(CUDA_ERROR_NOT_READY,
           concat(during, ": the host watchdog fired after ", seconds,
                  " s without the GPU finishing"),
           /*watchdog=*/true);
    std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
}

std::vector<TimeoutRecord> Session::claimedTimeouts(int *unfilled) const {
  std::vector<TimeoutRecord> claimed;
  if (unfilled)
    *unfilled = 0;
  for (const auto &mailbox : mailboxes)
    for (TimeoutRecord *record : mailbox->records) {
      // The poller fenced at system scope before trapping; read it once.
      TimeoutRecord copy;
      std::memcpy(&copy, const_cast<const TimeoutRecord *>(record),
                  sizeof(copy));
      if (!copy.claimed)
        continue;
      // Claimed but never filled: another kernel's trap ended the context
      // between this poll's compare-and-swap and its stores (one GPU runs
      // every rank's kernels in loopback). Every poll has a timeout > 0.
      if (copy.timeoutNs == 0) {
        if (unfilled)
          ++*unfilled;
        continue;
      }
      claimed.push_back(copy);
    }
  return claimed;
}

std::string Session::mailboxName(int id) const {
  if (id >= 0 && id < int(mailboxes.size()))
    return mailboxes[id]->spec.name;
  return concat("#", id);
}

void Session::fail(CUresult result, const std::string &during,
                   bool watchdog) const {
  int unfilled = 0;
  std::vector<TimeoutRecord> records = claimedTimeouts(&unfilled);
  std::string message =
      watchdog ? during
               : concat(during, ": the GPU reported ", describeResult(result));
  if (records.empty()) {
    message += "; no poll left a timeout record, so no Lamport timeout "
               "explains it";
  } else {
    message += concat("; ", records.size(), " poll(s) timed out:");
    for (const TimeoutRecord &record : records)
      message +=
          "\n  " + describeTimeout(record, mailboxName(record.mailboxId));
  }
  if (unfilled)
    message += concat("\n  (", unfilled,
                      " more poll(s) claimed a record, but the context failed "
                      "before they filled it)");
  // These errors are sticky: the context can run nothing more.
  bool sticky = result == CUDA_ERROR_LAUNCH_FAILED ||
                result == CUDA_ERROR_ILLEGAL_INSTRUCTION ||
                result == CUDA_ERROR_ILLEGAL_ADDRESS ||
                result == CUDA_ERROR_MISALIGNED_ADDRESS ||
                result == CUDA_ERROR_INVALID_ADDRESS_SPACE ||
                result == CUDA_ERROR_INVALID_PC ||
                result == CUDA_ERROR_HARDWARE_STACK_ERROR ||
                result == CUDA_ERROR_ASSERT ||
                result == CUDA_ERROR_LAUNCH_TIMEOUT;
  if (sticky)
    message += "\n(the CUDA context is unusable after this error)";
  throw KernelFailure(message, result, std::move(records), watchdog);
}

} // namespace runtime
} // namespace lamport
