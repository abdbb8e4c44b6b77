//===- HostRuntime.cpp - C API: what host-lowered programs call -----------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// include/lamport-c/HostRuntime.h over HostLaunches. The entry points that
// lowered code calls without an error callback keep their failures for the
// step (HostLaunches::keepError), so lamportRuntimeEndStep reports them.
//
//===----------------------------------------------------------------------===//

#include "lamport-c/HostRuntime.h"

#include "RuntimeHandle.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>

using namespace lamport::runtime;

namespace {

/// The runtime's HostLaunches, made at the first use.
HostLaunches &hostOf(LamportRuntime runtime) {
  StepRunner &runner = runnerOf(runtime);
  if (!runtime->host)
    runtime->host = std::make_unique<HostLaunches>(runner.getSession());
  return *runtime->host;
}

/// A null handle in lowered code is a bug of its caller with nowhere to
/// report it but here.
[[noreturn]] void abortOnNull(const char *entryPoint, const char *what) {
  std::fprintf(stderr, "lamport: %s: the %s handle is null\n", entryPoint,
               what);
  std::abort();
}

std::atomic<uint64_t> moduleSerials{1};

} // namespace

LamportStatus lamportRuntimeCreateWithMailboxes(
    int tp, const char *transport, int firstDevice,
    const LamportMailboxShape *mailboxes, int count, LamportRuntime *runtime,
    LamportErrorCallback errorCallback, void *userData) {
  return guarded(errorCallback, userData, [&] {
    if (!runtime)
      throw Error("lamportRuntimeCreateWithMailboxes: the result pointer is "
                  "null");
    *runtime = nullptr;
    if (!transport)
      throw Error("lamportRuntimeCreateWithMailboxes: the transport must not "
                  "be null");
    if (tp < 1)
      throw Error(concat("tp must be positive, got ", tp));
    if (firstDevice < 0)
      throw Error(concat("the first device must be >= 0, got ", firstDevice));
    if (count < 1 || !mailboxes)
      throw Error(concat("a TP group needs at least one mailbox, got ", count));
    SessionConfig config;
    config.tp = tp;
    config.transport = parseTransport(transport);
    config.firstDevice = firstDevice;
    Bundle bundle;
    bundle.manifest.version = 1;
    bundle.manifest.transport = "unicast";
    bundle.manifest.program = "host-lowered program";
    for (int i = 0; i < count; ++i) {
      const LamportMailboxShape &shape = mailboxes[i];
      MailboxSpec spec;
      spec.id = i;
      spec.name = shape.name ? shape.name : concat("mailbox", i);
      spec.tp = tp;
      spec.capacity = shape.capacity;
      spec.width = shape.width;
      if (spec.capacity < 1 || spec.width < 8 || spec.width % 8)
        throw Error(concat("mailbox '", spec.name, "' (id ", i,
                           "): the capacity must be positive and the width a "
                           "positive multiple of 8 (16-byte fragments), got "
                           "capacity ",
                           spec.capacity, ", width ", spec.width));
      bundle.manifest.mailboxes.push_back(spec);
    }
    auto handle = std::make_unique<LamportRuntime_>();
    handle->runner = std::make_unique<StepRunner>(std::move(bundle), config);
    *runtime = handle.release();
  });
}

LamportStatus lamportRuntimeGetMailbox(LamportRuntime runtime, int rank,
                                       int mailbox, LamportMailbox *handle,
                                       LamportErrorCallback errorCallback,
                                       void *userData) {
  return guarded(errorCallback, userData, [&] {
    if (!handle)
      throw Error("lamportRuntimeGetMailbox: the result pointer is null");
    *handle = hostOf(runtime).mailbox(mailbox, rank);
  });
}

LamportStatus lamportRuntimeBeginStep(LamportRuntime runtime,
                                      LamportErrorCallback errorCallback,
                                      void *userData) {
  return guarded(errorCallback, userData, [&] { hostOf(runtime).beginStep(); });
}

LamportStatus lamportRuntimeEndStep(LamportRuntime runtime,
                                    double watchdogSeconds,
                                    LamportErrorCallback errorCallback,
                                    void *userData) {
  return guarded(errorCallback, userData,
                 [&] { hostOf(runtime).endStep(watchdogSeconds); });
}

const void *lamportMailboxDescriptor(LamportMailbox mailbox, int tp,
                                     int capacity, int width) {
  if (!mailbox)
    abortOnNull("lamportMailboxDescriptor", "mailbox");
  return mailbox->host->descriptor(*mailbox, tp, capacity, width);
}

const void *lamportTensorMap(LamportMailbox mailbox, const void *base,
                             int64_t rows, int64_t cols, int boxInner,
                             int boxOuter) {
  if (!mailbox)
    abortOnNull("lamportTensorMap", "mailbox");
  return mailbox->host->tensorMap(*mailbox, base, rows, cols, boxInner,
                                  boxOuter);
}

LamportStream lamportMailboxStream(LamportMailbox mailbox) {
  if (!mailbox)
    abortOnNull("lamportMailboxStream", "mailbox");
  return mailbox->host->stream(mailbox->rank);
}

LamportModule lamportModuleLoad(const void *image, size_t bytes, int optLevel) {
  auto *module = new LamportModule_;
  module->serial = moduleSerials++;
  module->image = image;
  module->bytes = bytes;
  module->optLevel = optLevel;
  return module;
}

void lamportModuleUnload(LamportModule module) { delete module; }

LamportFunction lamportModuleGetFunction(LamportModule module,
                                         const char *name) {
  if (!module)
    abortOnNull("lamportModuleGetFunction", "module");
  std::lock_guard<std::mutex> lock(module->mutex);
  std::unique_ptr<LamportFunction_> &function = module->functions[name];
  if (!function) {
    function = std::make_unique<LamportFunction_>();
    function->module = module;
    function->name = name;
  }
  return function.get();
}

LamportStatus lamportLaunchKernel(LamportFunction function,
                                  LamportStream stream, const unsigned grid[3],
                                  const unsigned block[3],
                                  const unsigned *cluster, unsigned sharedBytes,
                                  void **params, int paramCount,
                                  LamportErrorCallback errorCallback,
                                  void *userData) {
  return guarded(errorCallback, userData, [&] {
    if (!stream || !HostLaunches::isLive(stream))
      throw Error(concat("lamportLaunchKernel: the stream is not a rank's "
                         "stream of a live runtime (lamportMailboxStream "
                         "gives one)",
                         function ? concat(", launching '", function->name, "'")
                                  : std::string()));
    HostLaunches *host = stream->host;
    HostLaunchShape shape;
    for (int d = 0; d < 3; ++d) {
      shape.grid[d] = grid[d];
      shape.block[d] = block[d];
      shape.cluster[d] = cluster ? cluster[d] : 1;
    }
    shape.sharedBytes = sharedBytes;
    try {
      if (!function)
        throw Error("lamportLaunchKernel: the function handle is null");
      host->hold(*function, stream->rank, shape, params, paramCount);
    } catch (const std::exception &error) {
      host->keepError(error.what());
      throw;
    }
  });
}
