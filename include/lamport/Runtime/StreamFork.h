//===- StreamFork.h - A TP group's streams forked and joined ----*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// How one step (or one batch of steps) of a TP group becomes one piece of
// work on one stream: a main stream on rank 0's device forks into every
// rank's stream and joins back, with events. Work recorded on the main
// stream (timing events, a graph capture) then covers the whole group.
// Session forks and joins its ranks with it; a benchmark that drives its own
// streams (lamport-boundary-bench's NCCL baseline) uses the same, so that
// both time a step the same way.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_RUNTIME_STREAMFORK_H
#define LAMPORT_RUNTIME_STREAMFORK_H

#include <cuda.h>

#include <functional>
#include <vector>

namespace lamport {
namespace runtime {

/// The fork and join of one main stream and the ranks' streams. The streams
/// and events are the caller's and must outlive it; CUDA runtime streams
/// and events (cudaStream_t, cudaEvent_t) are these very handles.
class StreamFork {
public:
  /// Makes rank \p rank's context current: fork calls it for rank 0 (the
  /// main stream's device), join for each rank before using its stream.
  using UseRank = std::function<void(int rank)>;

  /// \p main and \p forkEvent live on rank 0's device; \p streams and
  /// \p joinEvents hold one per rank, each on its rank's device.
  StreamFork(CUstream main, CUevent forkEvent, std::vector<CUstream> streams,
             std::vector<CUevent> joinEvents, UseRank useRank);

  /// Every rank's stream waits for the work enqueued so far on the main
  /// stream. Throws Error naming the rank whose wait failed.
  void fork() const;
  /// The main stream waits for the work enqueued so far on every rank's
  /// stream. Throws Error naming the rank whose event failed.
  void join() const;

private:
  CUstream main;
  CUevent forkEvent;
  std::vector<CUstream> streams;
  std::vector<CUevent> joinEvents;
  UseRank useRank;
};

} // namespace runtime
} // namespace lamport

#endif // LAMPORT_RUNTIME_STREAMFORK_H
