//===- RankRuntime.cpp - C API: one rank of a TP group per process --------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// include/lamport-c/RuntimeRank.h over RankRuntime, with the errors turned
// into statuses as Runtime.cpp does.
//
//===----------------------------------------------------------------------===//

#include "lamport-c/RuntimeRank.h"

#include "RuntimeHandle.h"
#include "lamport/Runtime/RankRuntime.h"

using namespace lamport::runtime;

struct LamportRank_ {
  std::unique_ptr<RankRuntime> runtime;
};

namespace {

RankRuntime &rankOf(LamportRank rank) {
  if (!rank || !rank->runtime)
    throw Error("the rank handle is null (not created, or creation failed)");
  return *rank->runtime;
}

/// One C buffer as the runtime checks it; strides must be row-major
/// contiguous.
BufferView viewOf(const RankRuntime &rank, const LamportBuffer &buffer,
                  int index) {
  const ArgumentSpec &spec = rank.manifest().arguments[index];
  std::string who =
      concat("rank ", rank.rank(), ", argument '", spec.name, "'");
  BufferView view;
  view.pointer = CUdeviceptr(buffer.pointer);
  switch (buffer.dtype) {
  case LAMPORT_DTYPE_BF16:
    view.dtype = DType::BF16;
    break;
  case LAMPORT_DTYPE_F32:
    view.dtype = DType::F32;
    break;
  case LAMPORT_DTYPE_I32:
    view.dtype = DType::I32;
    break;
  default:
    throw Error(concat(who, ": unknown dtype code ", buffer.dtype));
  }
  if (buffer.ndim < 0 || buffer.ndim > 8 || (buffer.ndim && !buffer.shape))
    throw Error(concat(who, ": a shape of ", buffer.ndim,
                       " dimension(s) needs 0 to 8 sizes"));
  view.shape.assign(buffer.shape, buffer.shape + buffer.ndim);
  if (buffer.strides) {
    int64_t expected = 1;
    for (int d = buffer.ndim - 1; d >= 0; --d) {
      if (buffer.shape[d] != 1 && buffer.strides[d] != expected)
        throw Error(concat(who, ": not contiguous (dimension ", d,
                           " has stride ", buffer.strides[d], ", ", expected,
                           " expected): kernels read row-major buffers"));
      expected *= buffer.shape[d];
    }
  }
  return view;
}

} // namespace

LamportStatus lamportRankCreate(const char *bundle, int rank, int tp,
                                int device, const char *rendezvous,
                                double rendezvousSeconds, int pdl,
                                LamportRank *result,
                                LamportErrorCallback errorCallback,
                                void *userData) {
  return lamportRankCreateWithTransport(bundle, rank, tp, device, rendezvous,
                                        rendezvousSeconds, pdl, "mailbox",
                                        result, errorCallback, userData);
}

LamportStatus lamportRankCreateWithTransport(
    const char *bundle, int rank, int tp, int device, const char *rendezvous,
    double rendezvousSeconds, int pdl, const char *transport,
    LamportRank *result, LamportErrorCallback errorCallback, void *userData) {
  return guarded(errorCallback, userData, [&] {
    requireResult(result, "lamportRankCreate");
    *result = nullptr;
    if (!bundle || !rendezvous)
      throw Error("lamportRankCreate: the bundle path and the rendezvous "
                  "address must not be null");
    if (!(rendezvousSeconds > 0))
      throw Error(concat("the rendezvous timeout must be a positive number "
                         "of seconds, got ",
                         rendezvousSeconds));
    RankConfig config;
    config.rank = rank;
    config.tp = tp;
    config.device = device;
    config.rendezvous = rendezvous;
    config.rendezvousSeconds = rendezvousSeconds;
    config.pdl = pdl != 0;
    config.transport = parseRankTransport(transport ? transport : "mailbox");
    auto handle = std::make_unique<LamportRank_>();
    handle->runtime = std::make_unique<RankRuntime>(bundle, config);
    *result = handle.release();
  });
}

void lamportRankDestroy(LamportRank rank) { delete rank; }

LamportStatus lamportRankGetArgumentCount(LamportRank rank, int *count,
                                          LamportErrorCallback errorCallback,
                                          void *userData) {
  return guarded(errorCallback, userData, [&] {
    requireResult(count, "lamportRankGetArgumentCount");
    *count = int(rankOf(rank).manifest().arguments.size());
  });
}

LamportStatus lamportRankStep(LamportRank rank, void *stream, int tokens,
                              const LamportBuffer *buffers, int count,
                              LamportErrorCallback errorCallback,
                              void *userData) {
  return guarded(errorCallback, userData, [&] {
    RankRuntime &runtime = rankOf(rank);
    int arguments = int(runtime.manifest().arguments.size());
    if (count != arguments || (count && !buffers))
      throw Error(concat("rank ", runtime.rank(), ": program '",
                         runtime.manifest().program, "' takes ", arguments,
                         " argument(s), got ", buffers ? count : 0,
                         " buffer(s)"));
    std::vector<BufferView> views(arguments);
    for (int i = 0; i < arguments; ++i)
      if (runtime.manifest().arguments[i].kind == ArgumentKind::Buffer)
        views[i] = viewOf(runtime, buffers[i], i);
    runtime.step(static_cast<CUstream>(stream), tokens, views);
  });
}

LamportStatus lamportRankWait(LamportRank rank, void *stream,
                              double watchdogSeconds,
                              LamportErrorCallback errorCallback,
                              void *userData) {
  return guarded(errorCallback, userData, [&] {
    requireWatchdog(watchdogSeconds);
    RankRuntime &runtime = rankOf(rank);
    runtime.wait(static_cast<CUstream>(stream), watchdogSeconds,
                 concat("rank ", runtime.rank(), ": waiting for its stream"));
  });
}

LamportStatus lamportRankSetPollTimeout(LamportRank rank, void *stream,
                                        uint64_t timeoutNs,
                                        LamportErrorCallback errorCallback,
                                        void *userData) {
  return guarded(errorCallback, userData, [&] {
    rankOf(rank).setPollTimeout(timeoutNs, static_cast<CUstream>(stream));
  });
}
