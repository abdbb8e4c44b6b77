//===- HostLaunches.cpp - The launches of host-lowered programs -----------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#include "HostLaunches.h"
#include "RuntimeHandle.h"
#include "lamport/Runtime/TensorMap.h"

#include "lamport/Runtime/Driver.h"
#include "lamport/Runtime/KernelLoader.h"

#include <algorithm>
#include <cstring>
#include <unordered_set>

namespace lamport {
namespace runtime {

namespace {

/// Every stream handle of a live runtime: a launch names its runtime only
/// through its stream, so a stale or foreign pointer is refused, not used.
std::mutex liveMutex;
std::unordered_set<const LamportStream_ *> liveStreams;

std::string shapeText(int tp, int capacity, int width) {
  return concat("<tp = ", tp, ", capacity = ", capacity, ", width = ", width,
                ">");
}

} // namespace

HostLaunches::HostLaunches(Session &session) : session(session) {
  const Manifest &m = session.manifest();
  int tp = session.tp();
  for (int r = 0; r < tp; ++r) {
    auto stream = std::make_unique<LamportStream_>();
    stream->host = this;
    stream->rank = r;
    streams.push_back(std::move(stream));
  }
  for (const MailboxSpec &spec : m.mailboxes)
    for (int r = 0; r < tp; ++r) {
      auto handle = std::make_unique<LamportMailbox_>();
      handle->host = this;
      handle->rank = r;
      handle->spec = spec;
      mailboxes.push_back(std::move(handle));
    }
  held.resize(tp);
  done = session.createEvent(false);
  std::lock_guard<std::mutex> lock(liveMutex);
  for (auto &stream : streams)
    liveStreams.insert(stream.get());
}

HostLaunches::~HostLaunches() {
  {
    std::lock_guard<std::mutex> lock(liveMutex);
    for (auto &stream : streams)
      liveStreams.erase(stream.get());
  }
  // Best effort: after a trap the context is lost and these calls fail.
  for (auto &[key, loaded] : modules) {
    try {
      session.makeCurrent(loaded.rank);
      api().cuModuleUnload(loaded.module);
    } catch (const Error &) {
    }
  }
}

bool HostLaunches::isLive(const LamportStream_ *stream) {
  std::lock_guard<std::mutex> lock(liveMutex);
  return liveStreams.count(stream) != 0;
}

LamportMailbox_ *HostLaunches::mailbox(int id, int rank) {
  int tp = session.tp();
  int count = int(session.manifest().mailboxes.size());
  if (rank < 0 || rank >= tp)
    throw Error(concat("rank ", rank, " is out of range: tp = ", tp));
  if (id < 0 || id >= count)
    throw Error(concat("mailbox ", id, " is out of range: the TP group has ",
                       count, " mailbox(es)"));
  return mailboxes[id * tp + rank].get();
}

const void *HostLaunches::descriptor(const LamportMailbox_ &mailbox, int tp,
                                     int capacity, int width) {
  const MailboxSpec &spec = mailbox.spec;
  if (spec.tp == tp && spec.capacity == capacity && spec.width == width)
    return session.descriptor(spec.id, mailbox.rank);
  keepError(concat(
      "rank ", mailbox.rank, ": the program passes mailbox '", spec.name,
      "' (id ", spec.id, ", ", shapeText(spec.tp, spec.capacity, spec.width),
      ") to a kernel compiled for a mailbox ", shapeText(tp, capacity, width)));
  std::size_t bytes = 40 + 8 * std::size_t(std::max(tp, 0));
  zeroDescriptors.push_back(std::make_unique<uint8_t[]>(bytes));
  return zeroDescriptors.back().get();
}

const void *HostLaunches::tensorMap(const LamportMailbox_ &mailbox,
                                    const void *base, int64_t rows,
                                    int64_t cols, int boxInner, int boxOuter) {
  lastTensorMap = TensorMapSlot();
  try {
    encodeTensorMap("tensor-mapped", rows, cols, boxInner, boxOuter,
                    reinterpret_cast<CUdeviceptr>(base), lastTensorMap,
                    concat("rank ", mailbox.rank));
  } catch (const Error &error) {
    keepError(error.what());
    lastTensorMap = TensorMapSlot();
  }
  return &lastTensorMap.map;
}

void HostLaunches::keepError(const std::string &message) {
  if (error.empty())
    error = message;
}

void HostLaunches::beginStep() {
  if (failed)
    throw Error("an earlier step failed on the GPU: its context is lost, so "
                "this TP group can run no more steps");
  if (inStep)
    throw Error(concat("step ", steps,
                       " has begun already: end it with "
                       "lamportRuntimeEndStep before the next"));
  inStep = true;
}

void HostLaunches::endStep(double watchdogSeconds) {
  if (!inStep)
    throw Error("lamportRuntimeEndStep without lamportRuntimeBeginStep: no "
                "step has begun");
  requireWatchdog(watchdogSeconds);
  inStep = false;
  std::vector<std::vector<Held>> launches(session.tp());
  launches.swap(held);
  std::string kept;
  kept.swap(error);
  if (!kept.empty())
    throw Error(
        concat("step ", steps, ": ", kept, " (none of its launches ran)"));
  std::size_t rounds = 0;
  for (const auto &rank : launches)
    rounds = std::max(rounds, rank.size());
  try {
    session.fork();
    for (std::size_t i = 0; i < rounds; ++i)
      for (int r = 0; r < session.tp(); ++r)
        if (i < launches[r].size())
          issue(r, launches[r][i]);
    session.join();
    session.record(done, concat("after step ", steps));
    session.wait(done, watchdogSeconds,
                 concat("step ", steps, " of a host-lowered program"));
  } catch (const KernelFailure &) {
    failed = true;
    throw;
  } catch (const Error &) {
    // A driver call after the launches (the join) can be the first to
    // hear of a kernel's failure: then it is the GPU's, with its records.
    failIfStreamFailed();
    throw;
  }
  ++steps;
}

void HostLaunches::failIfStreamFailed() {
  for (int r = 0; r < session.tp(); ++r) {
    session.makeCurrent(r);
    CUresult result = api().cuStreamQuery(session.stream(r));
    if (result != CUDA_SUCCESS && result != CUDA_ERROR_NOT_READY) {
      failed = true;
      session.fail(result,
                   concat("step ", steps, " of a host-lowered program (rank ",
                          r, "'s stream)"));
    }
  }
}

void HostLaunches::issue(int rank, Held &launch) {
  std::vector<void *> params;
  for (std::size_t offset : launch.offsets)
    params.push_back(launch.bytes.data() + offset);
  // Host-lowered launches are plain stream-ordered launches, without PDL.
  CUlaunchConfig config;
  CUlaunchAttribute attributes[2];
  setLaunchConfig(launch.shape, session.stream(rank), /*pdl=*/false, config,
                  attributes);
  session.makeCurrent(rank);
  CUresult result =
      api().cuLaunchKernelEx(&config, launch.function, params.data(), nullptr);
  if (result != CUDA_SUCCESS)
    session.fail(result, concat("rank ", rank, ": launching kernel '",
                                launch.name, "' in step ", steps));
}

void HostLaunches::hold(LamportFunction_ &function, int rank,
                        const HostLaunchShape &shape, void **params,
                        int paramCount) {
  std::string who = concat("rank ", rank, ": kernel '", function.name, "'");
  if (!inStep)
    throw Error(concat(who,
                       " is launched outside a step: call "
                       "lamportRuntimeBeginStep before the program's calls "
                       "and lamportRuntimeEndStep after them"));
  for (int d = 0; d < 3; ++d)
    if (!shape.grid[d] || !shape.block[d] || !shape.cluster[d])
      throw Error(concat(who, ": a grid, block or cluster dimension is 0"));
  const Loaded &loaded = load(function, rank);
  if (paramCount >= 0 && std::size_t(paramCount) != loaded.sizes.size())
    throw Error(concat(who, " takes ", loaded.sizes.size(),
                       " parameter(s), the launch passes ", paramCount));
  Held launch;
  launch.function = loaded.function;
  launch.name = function.name;
  launch.shape = shape;
  for (std::size_t i = 0; i < loaded.sizes.size(); ++i) {
    // Each parameter 8-byte aligned in the copy, as the largest needs.
    std::size_t offset = (launch.bytes.size() + 7) / 8 * 8;
    launch.offsets.push_back(offset);
    launch.bytes.resize(offset + loaded.sizes[i]);
  }
  for (std::size_t i = 0; i < loaded.sizes.size(); ++i)
    std::memcpy(launch.bytes.data() + launch.offsets[i], params[i],
                loaded.sizes[i]);
  if (shape.sharedBytes) {
    session.makeCurrent(rank);
    optIntoSharedMemory(loaded.function, shape.sharedBytes, who);
  }
  held[rank].push_back(std::move(launch));
}

const HostLaunches::Loaded &HostLaunches::load(LamportFunction_ &function,
                                               int rank) {
  int ordinal = session.device(rank).ordinal;
  auto key = std::make_tuple(function.module->serial, function.name, ordinal);
  auto found = functions.find(key);
  if (found != functions.end())
    return found->second;
  std::string who = concat("rank ", rank, ": kernel '", function.name, "'");
  CUmodule module = loadModule(*function.module, rank);
  Loaded loaded;
  CUresult result = api().cuModuleGetFunction(&loaded.function, module,
                                              function.name.c_str());
  if (result != CUDA_SUCCESS)
    throw Error(concat(who,
                       ": the program's kernel image has no entry point "
                       "of that name (",
                       describeResult(result), ")"));
  if (!api().cuFuncGetParamInfo)
    throw Error(concat(who,
                       ": the driver cannot tell the sizes of its parameters "
                       "(cuFuncGetParamInfo, CUDA 12.4 or later), which a "
                       "held launch copies"));
  for (std::size_t p = 0;; ++p) {
    std::size_t offset = 0, size = 0;
    if (api().cuFuncGetParamInfo(loaded.function, p, &offset, &size) !=
        CUDA_SUCCESS)
      break;
    loaded.sizes.push_back(size);
  }
  return functions.emplace(key, std::move(loaded)).first->second;
}

CUmodule HostLaunches::loadModule(LamportModule_ &module, int rank) {
  int ordinal = session.device(rank).ordinal;
  auto key = std::make_pair(module.serial, ordinal);
  auto found = modules.find(key);
  if (found != modules.end())
    return found->second.module;
  session.makeCurrent(rank);
  CUmodule loaded = nullptr;
  std::string who =
      concat("rank ", rank, ": loading a kernel image of the program on ",
             session.device(rank).describe());
  if (module.bytes) {
    LAMPORT_CU(cuModuleLoadData(&loaded, module.image), who);
  } else {
    // PTX: the driver JIT-compiles it; its log says why it refused.
    char log[8192] = {0};
    CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER,
                              CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                              CU_JIT_OPTIMIZATION_LEVEL};
    void *values[] = {log, reinterpret_cast<void *>(sizeof(log) - 1),
                      reinterpret_cast<void *>(intptr_t(module.optLevel))};
    CUresult result =
        api().cuModuleLoadDataEx(&loaded, module.image, 3, options, values);
    if (result != CUDA_SUCCESS)
      throw Error(concat(who, ": the driver could not JIT-compile its PTX: ",
                         describeResult(result),
                         log[0] ? concat("\n", log) : std::string()));
  }
  LoadedModule entry;
  entry.module = loaded;
  entry.rank = rank;
  try {
    entry.pollTimeout = findPollTimeout(loaded, who);
    if (entry.pollTimeout && session.pollTimeout())
      writePollTimeouts(rank, {entry.pollTimeout});
  } catch (...) {
    api().cuModuleUnload(loaded);
    throw;
  }
  modules.emplace(key, entry);
  return loaded;
}

void HostLaunches::applyPollTimeout() {
  // One write and wait a device: its images share one context.
  std::map<int, std::pair<int, std::vector<CUdeviceptr>>> byDevice;
  for (const auto &[key, loaded] : modules)
    if (loaded.pollTimeout) {
      auto &[rank, overrides] = byDevice[key.second];
      rank = loaded.rank;
      overrides.push_back(loaded.pollTimeout);
    }
  for (const auto &[ordinal, images] : byDevice)
    writePollTimeouts(images.first, images.second);
}

void HostLaunches::writePollTimeouts(
    int rank, const std::vector<CUdeviceptr> &overrides) {
  uint64_t ns = session.pollTimeout();
  session.makeCurrent(rank);
  // Ranks that share a GPU share the images but not the streams: the writes
  // land before any of them launches from one.
  writePollTimeoutsNow(overrides, ns,
                       concat("rank ", rank, ": the program's kernel images"));
}

} // namespace runtime
} // namespace lamport
