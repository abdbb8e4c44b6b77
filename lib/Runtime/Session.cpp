//===- Session.cpp - A TP group brought up on its GPUs --------------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// Bringing a Session up and down: the checks of the request, every rank's
// device, context and streams, the bundle's kernels on every device, and
// the device memory and events the session owns.
//
//===----------------------------------------------------------------------===//

#include "SessionImpl.h"
#include "lamport/Runtime/Driver.h"
#include "lamport/Runtime/KernelLoader.h"

#include <algorithm>
#include <cstdlib>

namespace lamport {
namespace runtime {

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
  if (const MailboxSpec *other = bundle.manifest.mailboxNotOfTp(config.tp))
    throw Error(concat("--tp ", config.tp, " does not match mailbox '",
                       other->name, "' of the bundle (tp = ", other->tp, ")"));
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
    for (TimeoutRecord *record : mailbox->records)
      freeTimeoutRecord(record);
    mailbox->peerCopies.clear();
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

void Session::setPollTimeout(uint64_t ns) {
  checkPollTimeout(ns, "setting the poll timeout");
  // A manifest without kernels (a host-lowered program's) only records it.
  if (bundle.manifest.kernels.empty()) {
    pollTimeoutNs = ns;
    return;
  }
  // Every device loads the same kernels: checked on the first, before any
  // write.
  checkPollTimeoutOverrides(bundle, modulesOf(0).pollTimeouts,
                            concat("device ", modulesOf(0).ordinal));
  std::vector<const DeviceModules *> done;
  for (int r = 0; r < config.tp; ++r) {
    DeviceModules &device = modulesOf(r);
    if (std::find(done.begin(), done.end(), &device) != done.end())
      continue; // Ranks that share a GPU share its modules.
    done.push_back(&device);
    makeCurrent(r);
    writePollTimeoutsNow(device.pollTimeouts, ns,
                         concat("device ", device.ordinal));
  }
  pollTimeoutNs = ns;
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
  p.maxGridDim = {attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, "grid x"),
                  attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, "grid y"),
                  attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, "grid z")};
  p.maxBlockDim = {attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, "block x"),
                   attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, "block y"),
                   attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, "block z")};
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
  // In 64 bits: a first device near INT_MAX (a C API argument) must not
  // wrap past the count.
  if (config.firstDevice < 0 || int64_t(config.firstDevice) + needed > count)
    throw Error(concat("the ", transportName(config.transport),
                       " transport with tp = ", config.tp, " needs ", needed,
                       " GPU(s) from device ", config.firstDevice,
                       ", but this machine has ", count));
  for (int r = 0; r < config.tp; ++r)
    openRank(r);
  if (config.transport == TransportKind::Peer)
    checkPeerAccess();
  createMainStream();
}

void Session::openRank(int r) {
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

void Session::checkPeerAccess() {
  for (int r = 0; r < config.tp; ++r)
    for (int q = 0; q < config.tp; ++q) {
      if (r == q)
        continue;
      int can = 0;
      LAMPORT_CU(
          cuDeviceCanAccessPeer(&can, ranks[r]->device, ranks[q]->device),
          concat("rank ", r, ": asking for peer access to rank ", q));
      if (!can)
        throw Error(concat(
            "peer transport: device ", ranks[r]->ordinal, " (rank ", r,
            ") cannot access the memory of "
            "device ",
            ranks[q]->ordinal, " (rank ", q, "): no NVLink or PCIe peer path"));
    }
}

void Session::createMainStream() {
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
  std::string unrecorded;
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
      deviceModules->pollTimeouts.push_back(entry.pollTimeout);
      imageText = entry.image;
      if (!entry.recordChecked && unrecorded.empty())
        unrecorded = kernel.name;
    }
    modules.push_back(std::move(deviceModules));
  }
  // Said once, with the images: such a bundle's manifest was not checked.
  if (!unrecorded.empty())
    imageText += concat("; no ABI record in kernel '", unrecorded,
                        "' (a bundle written before records: its manifest "
                        "was not checked against the kernels)");
}

//===----------------------------------------------------------------------===//
// Device memory and events
//===----------------------------------------------------------------------===//

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
  // The copy runs on the legacy stream and may return before its bytes
  // land; the ranks' non-blocking streams would not wait for it.
  LAMPORT_CU(cuCtxSynchronize(),
             concat("rank ", rank, ": waiting for the upload of ", what));
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

} // namespace runtime
} // namespace lamport
