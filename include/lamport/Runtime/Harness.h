//===- Harness.h - Decode steps, checked and timed --------------*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// What lamport-run does with a Session: runs decode steps of a bundle's
// program on every rank, eagerly or as captured CUDA graphs, checks every
// rank's output against the host reference of the consumer op, and times
// the steps with CUDA events.
//
// Step s uses batch position j = s % B (B = --batch): input set j (a hash of
// the seed, j, the rank and the element) and m_j tokens (--tokens, or
// 1 + j % capacity for --tokens all). A row left over from the last use of
// a generation (3 steps back) is input set j - 3 (mod B), which differs from
// set j whenever B >= 4 (the harness never runs more than 3 steps with a
// smaller B), so a stale row fails the check.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_RUNTIME_HARNESS_H
#define LAMPORT_RUNTIME_HARNESS_H

#include "lamport/Runtime/Manifest.h"
#include "lamport/Runtime/Options.h"
#include "lamport/Runtime/Reference.h"
#include "lamport/Runtime/Session.h"

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace lamport {
namespace runtime {

/// What a run did and measured.
struct RunReport {
  std::string device;
  std::string image;
  std::string mode; ///< "eager" or "graph".
  int batch = 0;
  uint64_t steps = 0;
  /// Per-step latency samples in microseconds: eager steps one by one,
  /// graph replays as replay time / B.
  std::vector<double> stepMicros;
  double medianMicros = 0, p99Micros = 0, minMicros = 0, meanMicros = 0;
  /// Bytes the publishes store into mailboxes per step (every destination).
  double mailboxBytesPerStep = 0;
  bool checked = false;
  uint64_t stepsChecked = 0;
  uint64_t stepsHostChecked = 0;
  /// Graph replay of the checked batch gave the eager batch's bytes.
  std::optional<bool> graphEqualsEager;
};

/// Median, p99, min and mean of \p samples into \p report.
void summarizeLatency(RunReport &report);

/// The consumer ops lamport-run has a host reference for.
bool hasReference(const std::string &op);

class Harness {
public:
  /// Validates the options against the bundle (tp, tokens, ops with a
  /// reference, skip-publish), then brings the session up.
  Harness(const Bundle &bundle, const RunOptions &options);
  ~Harness();

  /// Runs every step. Throws Error on a wrong result and KernelFailure when
  /// the GPU fails (a timeout trap among them).
  RunReport run();

  /// When the batch that was running last started (the trap timing of
  /// --timeout-check).
  std::chrono::steady_clock::time_point batchStart() const {
    return lastBatchStart;
  }
  /// The watchdog of one wait, in seconds.
  double watchdogSeconds() const { return watchdog; }
  /// The largest timeout_ns any kernel declares, 0 when none does.
  uint64_t declaredTimeoutNs() const { return timeoutNs; }

private:
  struct Consumer;

  void planReferences();
  void allocateBuffers();
  void computeExpected();
  void prepareParams();
  void enqueueStep(int j, bool checks);
  void runEager(uint64_t first, uint64_t count, bool checks, RunReport *timing);
  void hostVerify(uint64_t first, uint64_t count, std::vector<uint64_t> *hashes,
                  bool compareHashes, bool *equal);
  void readChecks(uint64_t first, uint64_t count);
  std::string describeElement(int arg, int j, std::size_t element) const;

  const Bundle &bundle;
  RunOptions options;
  std::unique_ptr<Session> session;
  int batch = 0;
  std::vector<int32_t> tokens; ///< m_j per batch position.
  double watchdog = 30;
  uint64_t timeoutNs = 0;
  std::vector<std::unique_ptr<Consumer>> consumers;
  std::vector<PatternKind> patterns; ///< Per argument (inputs).
  std::vector<int> outputs;          ///< Argument indices checked.
  /// Buffer pointers per (argument, j, rank), stable: parameters point here.
  std::vector<CUdeviceptr> buffers;
  std::vector<std::size_t> allocElements; ///< Per argument, 16-bit words.
  /// Expected bytes per (argument, j): host, and device per (arg, j, rank).
  std::vector<std::vector<uint16_t>> expectedHost;
  std::vector<CUdeviceptr> expectedDevice;
  std::vector<CUdeviceptr> checkResults; ///< Per rank.
  /// Parameter pointer arrays per (j, rank, kernel).
  std::vector<std::vector<void *>> params;
  std::vector<CUevent> startEvents, endEvents;
  CUgraphExec checkedGraph = nullptr, plainGraph = nullptr;
  std::chrono::steady_clock::time_point lastBatchStart;

  std::size_t bufferIndex(int arg, int j, int rank) const {
    return (std::size_t(arg) * batch + j) * options.tp + rank;
  }
};

} // namespace runtime
} // namespace lamport

#endif // LAMPORT_RUNTIME_HARNESS_H
