//===- RankRuntime.cpp - One rank of a TP group in its own process --------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#include "lamport/Runtime/RankRuntime.h"
#include "lamport/Runtime/Driver.h"
#include "lamport/Runtime/KernelLoader.h"
#include "lamport/Runtime/Session.h"

#include <algorithm>
#include <chrono>
#include <thread>

namespace lamport {
namespace runtime {

RankRuntime::RankRuntime(const std::string &directory, const RankConfig &config)
    : RankRuntime(loadBundle(directory), config) {}

/// Refuses a request no rank process can serve, before any GPU work.
static void checkRequest(const Bundle &bundle, const RankConfig &config) {
  if (config.tp < 1 || config.rank < 0 || config.rank >= config.tp)
    throw Error(
        concat("rank ", config.rank, " is outside a TP group of ", config.tp));
  if (config.device < 0)
    throw Error(concat("rank ", config.rank, ": device ", config.device,
                       " is not a device ordinal"));
  if (bundle.manifest.mailboxes.empty())
    throw Error(concat("bundle '", bundle.directory,
                       "' has no mailbox: there is no TP group to join"));
  // Under nccl no kernel publishes, so the bundle's transport is moot.
  if (config.transport == RankTransport::Mailbox &&
      bundle.manifest.transport == "multicast")
    throw Error(concat("bundle '", bundle.directory,
                       "' publishes with NVLink multicast; a rank process "
                       "needs a unicast bundle"));
  if (const MailboxSpec *other = bundle.manifest.mailboxNotOfTp(config.tp))
    throw Error(concat("tp ", config.tp, " does not match mailbox '",
                       other->name, "' of the bundle (tp = ", other->tp, ")"));
}

RankRuntime::RankRuntime(Bundle loaded, const RankConfig &config)
    : bundle(std::move(loaded)), config(config) {
  checkRequest(bundle, config);
  if (config.transport == RankTransport::Nccl) {
    try {
      ncclActions = planNcclStep(bundle.manifest);
    } catch (const Error &e) {
      throw Error(concat("rank ", config.rank, ": bundle '", bundle.directory,
                         "' (program '", bundle.manifest.program,
                         "'): ", e.what()));
    }
  }
  std::string who =
      concat("rank ", config.rank, " (device ", config.device, ")");
  int count = 0;
  LAMPORT_CU(cuDeviceGetCount(&count), "counting CUDA devices");
  if (config.device >= count)
    throw Error(concat(who, ": this machine has ", count, " GPU(s)"));
  LAMPORT_CU(cuDeviceGet(&handle, config.device), who);
  properties = queryDevice(config.device, handle);
  checkKernelsFit(bundle.manifest, properties);
  LAMPORT_CU(cuDevicePrimaryCtxRetain(&primary, handle),
             concat(who, ": retaining its primary context"));
  try {
    makeCurrent();
    const Manifest &m = bundle.manifest;
    for (std::size_t k = 0; k < m.kernels.size(); ++k) {
      LoadedKernel entry = loadKernel(bundle, k, properties,
                                      concat("kernel '", m.kernels[k].name,
                                             "' on ", properties.describe()));
      modules.push_back(entry.module);
      kernels.push_back(entry.function);
      pollTimeouts.push_back(entry.pollTimeout);
    }
    rendezvous = openRendezvous(config.rendezvous, config.rank, config.tp,
                                config.rendezvousSeconds);
    openTransport();
  } catch (...) {
    release();
    throw;
  }
}

void RankRuntime::openTransport() {
  const Manifest &m = bundle.manifest;
  bool nccl = config.transport == RankTransport::Nccl;
  if (nccl)
    communicator = std::make_unique<NcclCommunicator>(
        *rendezvous, config.rank, config.tp, config.rendezvousSeconds);
  else
    rankMailboxes =
        std::make_unique<RankMailboxes>(m.mailboxes, config.rank, config.device,
                                        *rendezvous, config.rendezvousSeconds);
  // Every rank has mapped every copy (or joined the communicator) before
  // any rank publishes.
  rendezvous->barrier("lamport/opened", config.rendezvousSeconds);
  pointers.assign(m.arguments.size(), 0);
  params.resize(m.kernels.size());
  tensorMaps.resize(m.kernels.size());
  for (std::size_t k = 0; k < m.kernels.size(); ++k) {
    // Under nccl, the kernels that take a mailbox never launch.
    bool takesMailbox = std::any_of(
        m.kernels[k].params.begin(), m.kernels[k].params.end(),
        [](const ParamSpec &p) { return p.kind == ParamKind::Mailbox; });
    if (nccl && takesMailbox)
      continue;
    if (std::any_of(
            m.kernels[k].params.begin(), m.kernels[k].params.end(),
            [](const ParamSpec &p) { return p.kind == ParamKind::TensorMap; }))
      tensorMaps[k].resize(m.kernels[k].params.size());
    params[k] = kernelParamList(
        m, int(k),
        [&](int mailbox) { return rankMailboxes->descriptor(mailbox); },
        [&](int argument) { return &pointers[argument]; },
        [&](int param) -> void * { return &tensorMaps[k][param]; }, &tokens);
  }
}

RankRuntime::~RankRuntime() { release(); }

RankMailboxes &RankRuntime::mailboxes() {
  if (!rankMailboxes)
    throw Error(concat("rank ", config.rank,
                       ": the nccl transport has no mailbox copies"));
  return *rankMailboxes;
}

void RankRuntime::release() {
  // Best effort, as the Session's: after a trap these calls fail.
  const DriverApi &cu = api();
  if (primary)
    cu.cuCtxSetCurrent(primary);
  rankMailboxes.reset();
  communicator.reset();
  for (CUmodule module : modules)
    cu.cuModuleUnload(module);
  modules.clear();
  if (primary)
    cu.cuDevicePrimaryCtxRelease(handle);
  primary = nullptr;
  rendezvous.reset();
}

void RankRuntime::setPollTimeout(uint64_t ns, CUstream stream) {
  makeCurrent();
  setPollTimeouts(bundle, pollTimeouts, ns, stream,
                  concat("rank ", config.rank));
  pollTimeoutNs = ns;
}

void RankRuntime::makeCurrent() const {
  LAMPORT_CU(cuCtxSetCurrent(primary),
             concat("rank ", config.rank, ": making its context current"));
}

void RankRuntime::checkBuffers(int stepTokens,
                               const std::vector<BufferView> &buffers) const {
  const Manifest &m = bundle.manifest;
  if (stepTokens < 1 || stepTokens > m.maxTokens())
    throw Error(concat("rank ", config.rank, ": tokens must be in [1, ",
                       m.maxTokens(), "] (the mailbox capacity), got ",
                       stepTokens));
  if (buffers.size() != m.arguments.size())
    throw Error(concat("rank ", config.rank, ": program '", m.program,
                       "' takes ", m.arguments.size(), " argument(s), got ",
                       buffers.size(), " buffer(s)"));
  for (const ArgumentSpec &spec : m.arguments) {
    if (spec.kind != ArgumentKind::Buffer)
      continue;
    const BufferView &view = buffers[spec.index];
    std::string who =
        concat("rank ", config.rank, ", argument '", spec.name, "'");
    if (!view.pointer)
      throw Error(concat(who, ": no buffer (a null pointer)"));
    if (view.pointer % 16)
      throw Error(concat(who, ": pointer 0x", std::hex, view.pointer, std::dec,
                         " is not 16-byte aligned (kernels move 16-byte "
                         "fragments)"));
    if (view.dtype != spec.dtype)
      throw Error(concat(who, ": expected ", dtypeName(spec.dtype), ", got ",
                         dtypeName(view.dtype)));
    std::vector<int64_t> expected = spec.shapeFor(stepTokens);
    bool fits = view.shape.size() == expected.size();
    for (std::size_t d = 0; fits && d < expected.size(); ++d)
      fits = view.shape[d] == expected[d] ||
             (d == 0 && spec.shape[0] == -1 && view.shape[0] > expected[0]);
    if (!fits)
      throw Error(concat(who, ": expected shape ", shapeText(expected), " for ",
                         stepTokens, " token(s) (", shapeText(spec.shape),
                         " in the manifest), got ", shapeText(view.shape)));
  }
}

void RankRuntime::step(CUstream stream, int stepTokens,
                       const std::vector<BufferView> &buffers) {
  checkBuffers(stepTokens, buffers);
  const Manifest &m = bundle.manifest;
  makeCurrent();
  for (const ArgumentSpec &spec : m.arguments)
    if (spec.kind == ArgumentKind::Buffer)
      pointers[spec.index] = buffers[spec.index].pointer;
  tokens = stepTokens;
  if (communicator) {
    stepNccl(stream, stepTokens);
    ++stepsRun;
    return;
  }
  // cuLaunchKernelEx copies the parameters, and a capture copies them into
  // the graph: the next step may rebind at once.
  for (std::size_t i = 0; i < m.launches.size(); ++i)
    if (m.launchRuns(i, stepTokens))
      launch(stream, i);
  ++stepsRun;
}

void RankRuntime::launch(CUstream stream, std::size_t i) {
  const Manifest &m = bundle.manifest;
  int k = m.launches[i];
  CUlaunchConfig launchConfig;
  CUlaunchAttribute attributes[2];
  setLaunchConfig(m.kernels[k], stream, config.pdl, launchConfig, attributes);
  auto context = [&] {
    return concat("rank ", config.rank, ": launching kernel '",
                  m.kernels[k].name, "' (", m.kernels[k].op, ") of step ",
                  stepsRun);
  };
  if (!tensorMaps[k].empty())
    encodeTensorMaps(m, k, params[k].data(), context());
  CUresult result = api().cuLaunchKernelEx(&launchConfig, kernels[k],
                                           params[k].data(), nullptr);
  if (result != CUDA_SUCCESS)
    fail(result, context());
}

void RankRuntime::stepNccl(CUstream stream, int stepTokens) {
  const Manifest &m = bundle.manifest;
  for (const NcclAction &action : ncclActions) {
    if (!m.launchRuns(action.launch, stepTokens))
      continue;
    if (action.kind == NcclAction::Kind::Launch) {
      launch(stream, action.launch);
      continue;
    }
    // The rows publish_rows would have published, summed over the group
    // into what all_reduce would have written.
    communicator->allReduce(
        pointers[action.send], pointers[action.out],
        std::size_t(stepTokens) * std::size_t(action.width), stream,
        concat("rank ", config.rank, ": step ", stepsRun, ", the all-reduce '",
               m.arguments[action.send].name, "' -> '",
               m.arguments[action.out].name, "' (mailbox '",
               m.mailboxes[action.mailbox].name, "')"));
  }
}

void RankRuntime::checkNccl(const std::string &during) {
  if (!communicator)
    return;
  nccl::Result error = communicator->asyncError();
  if (error == nccl::Success || error == nccl::InProgress)
    return;
  std::string why = communicator->describe(error);
  communicator->abort();
  throw Error(concat(during, ": NCCL reports an asynchronous error on rank ",
                     config.rank, " of tp ", config.tp, ": ", why,
                     "; the communicator is aborted (a peer rank may have "
                     "died)"));
}

void RankRuntime::wait(CUstream stream, double seconds,
                       const std::string &during) {
  using Clock = std::chrono::steady_clock;
  makeCurrent();
  auto deadline = Clock::now() + std::chrono::duration<double>(seconds);
  for (;;) {
    CUresult result = api().cuStreamQuery(stream);
    checkNccl(during);
    if (result == CUDA_SUCCESS)
      return;
    if (result != CUDA_ERROR_NOT_READY)
      fail(result, during);
    if (Clock::now() > deadline && communicator) {
      communicator->abort();
      fail(CUDA_ERROR_NOT_READY,
           concat(during, ": the host watchdog fired after ", seconds,
                  " s without the GPU finishing (rank ", config.rank, " of tp ",
                  config.tp,
                  ", nccl transport: the communicator is aborted; "
                  "a peer rank may have died)"),
           /*watchdog=*/true);
    }
    if (Clock::now() > deadline)
      fail(CUDA_ERROR_NOT_READY,
           concat(during, ": the host watchdog fired after ", seconds,
                  " s without the GPU finishing"),
           /*watchdog=*/true);
    std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
}

void RankRuntime::fail(CUresult result, const std::string &during,
                       bool watchdog) const {
  int unfilled = 0;
  std::vector<TimeoutRecord> records;
  if (rankMailboxes)
    records = rankMailboxes->claimedTimeouts(&unfilled);
  throwKernelFailure(result, during, watchdog, std::move(records), unfilled,
                     [this](int id) { return rankMailboxes->mailboxName(id); });
}

} // namespace runtime
} // namespace lamport
