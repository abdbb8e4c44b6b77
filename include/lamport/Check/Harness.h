//===- Harness.h - Decode steps, checked and timed --------------*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// What lamport-run does with a Session: runs decode steps of a bundle's
// program on every rank, eagerly or as captured CUDA graphs, checks every
// rank's outputs against the host simulation of the whole program
// (Simulator.h), and times the steps with CUDA events.
//
// Step s uses batch position j = s % B (B = --batch): input set j (inputs
// by role, Inputs.h) and m_j tokens (--tokens, or 1 + j % capacity for
// --tokens all). A row left over from the last use of a generation (3 steps
// back) is input set j - 3 (mod B), which differs from set j whenever
// B >= 4 (the harness never runs more than 3 steps with a smaller B), so a
// stale row fails the check.
//
// Exact outputs are compared bit for bit; a dual norm's outputs are
// compared in the first batch within a bound of the FP64 reference (rank 0)
// and between ranks, and rank 0's bytes then become every later step's
// expected bytes (docs/runtime.md).
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_CHECK_HARNESS_H
#define LAMPORT_CHECK_HARNESS_H

#include "lamport/Check/CheckKernel.h"
#include "lamport/Check/FaultKernel.h"
#include "lamport/Check/Options.h"
#include "lamport/Check/Reference.h"
#include "lamport/Check/Simulator.h"
#include "lamport/Runtime/Manifest.h"
#include "lamport/Runtime/Session.h"

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace lamport {
namespace check {

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
  /// The same per publishing kernel, in launch order.
  std::vector<std::pair<std::string, double>> mailboxBytesByKernel;
  bool checked = false;
  uint64_t stepsChecked = 0;
  uint64_t stepsHostChecked = 0;
  /// Graph replay of the checked batch gave the eager batch's bytes.
  std::optional<bool> graphEqualsEager;
  /// Per checked output (argument name): the FNV-1a hash of rank 0's bytes
  /// of the elements the step writes (its shape for m_j), per batch
  /// position, from the host-checked batch.
  std::vector<std::pair<std::string, std::vector<uint64_t>>> outputHashes;
  /// Per dual-norm output: the worst |got - ref| / bound of rank 0 in the
  /// host-checked batch (below 1 passes).
  std::vector<std::pair<std::string, double>> normErrorVsBound;
  /// The largest of those, when a dual norm was checked.
  std::optional<double> normErrorVsBoundMax;
  /// Host seconds of the setup: plan, simulation, session, inputs, uploads;
  /// and of its two largest parts.
  double setupSeconds = 0, simulationSeconds = 0, inputSeconds = 0;
  /// Steps between reads of the device checks' results.
  uint64_t stepsPerCheck = 0;
};

/// Median, p99, min and mean of \p samples into \p report.
void summarizeLatency(RunReport &report);

/// The ops lamport-run can simulate, and so check (hasSimulation).
bool hasReference(const std::string &op);

class Harness {
public:
  /// Validates the options against the bundle (tp, tokens, ops with a
  /// reference, skip-publish), then brings the session up.
  Harness(const runtime::Bundle &bundle, const RunOptions &options);
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
  /// How long the polls wait: --poll-timeout-ns where given, else the
  /// largest timeout_ns any kernel declares, 0 when none does.
  uint64_t declaredTimeoutNs() const { return timeoutNs; }
  /// What the injected fault (--fault) did, in one sentence; empty without
  /// one.
  const std::string &faultDescription() const { return faultNote; }

private:
  /// An argument the step writes and the run checks.
  struct Output {
    int arg = -1;
    OutputCheck check = OutputCheck::None;
  };

  // Setting the run up and enqueueing steps (Harness.cpp).

  /// The options against the bundle: tp, tokens, a mailbox, something to
  /// skip for --skip-publish, timeout_ns; and the watchdog from them.
  void checkRequest();
  /// The program plan, and with --check the outputs to check, poison and
  /// restore.
  void planChecks();
  /// The batch positions and each one's token count.
  void chooseBatch();
  /// Each argument's allocation; the device bytes of all of them.
  double sizeBuffers();
  /// The host memory the run needs at its peak, estimated from above in
  /// bytes: the inputs' host copy and, with --check, the simulated step,
  /// the expected bytes of every batch position and one output's
  /// downloads.
  double hostBytesNeeded() const;
  /// Throws before anything is allocated on the host when
  /// hostBytesNeeded() exceeds what the host has available (or
  /// --max-host-memory).
  void checkHostMemory() const;
  void simulate();
  void allocateBuffers();

  // Injecting the fault (HarnessFaults.cpp).

  /// The fault against the bundle: something to delay or shift (a
  /// publishing launch), something to corrupt (an input published as it
  /// is) and a row and column of it that this run publishes.
  void checkFault();
  /// Once the buffers hold their inputs: loads the delay kernel, moves the
  /// rank's stage words ahead or alters the value to corrupt.
  void injectFault();
  /// The host watchdog of a wait for \p steps steps.
  double waitSeconds(uint64_t steps) const {
    return watchdog + (0.01 + stepDelaySeconds) * double(steps);
  }

  void uploadExpected();
  void prepareParams();
  /// Without \p forkJoin the step's launches go straight onto the ranks'
  /// streams, after the step before it (--pipelined).
  void enqueueStep(int j, bool checks, bool forkJoin = true);
  void runEager(uint64_t first, uint64_t count, bool checks, RunReport *timing);

  // Checking what the steps wrote (HarnessChecks.cpp).

  void hostVerify(uint64_t first, uint64_t count, std::vector<uint64_t> *hashes,
                  bool compareHashes, bool *equal);
  void verifyNorm(uint64_t step, std::size_t output,
                  const std::vector<std::vector<uint8_t>> &got);
  void setGolden(std::size_t output, int j, std::vector<uint8_t> bytes);
  void readChecks(uint64_t first, uint64_t count);
  std::string describeElement(int arg, int j, std::size_t element) const;
  std::string elementBits(int arg, const uint8_t *bytes,
                          std::size_t element) const;

  // Running the steps and timing them (HarnessTiming.cpp).

  /// What run() does, failures of the context aside.
  RunReport runSteps();
  /// The host-checked first batch (and, with --graph, its replay);
  /// returns the steps run.
  uint64_t runHostChecked(RunReport &report, RunReport &timing);
  /// The remaining steps as graph replays, \p perRead replays between
  /// reads of the device checks.
  void runGraphs(RunReport &report, uint64_t &done, uint64_t remaining,
                 bool checks, uint64_t perRead);
  void runEagerSteps(RunReport &report, uint64_t &done, uint64_t remaining,
                     bool checks);
  /// A graph of one batch of steps.
  CUgraphExec captureBatch(bool checks);
  /// Replays \p graph once and waits; the time per step in microseconds.
  double replayOnce(CUgraphExec graph, uint64_t first);
  /// Replays \p graph \p n times back to back, then waits; one sample per
  /// replay (time per step).
  void replayChunk(CUgraphExec graph, uint64_t first, uint64_t n,
                   std::vector<double> &samples);
  void countMailboxBytes(RunReport &report) const;
  void reportChecks(RunReport &report, bool checks, uint64_t perRead) const;

  const runtime::Bundle &bundle;
  RunOptions options;
  std::unique_ptr<runtime::Session> session;
  /// The device checks' kernel (with --check); unloaded before the session
  /// ends.
  std::unique_ptr<CheckKernel> checkKernel;
  /// The late-publish delay (with --fault late-publish); unloaded before
  /// the session ends.
  std::unique_ptr<FaultKernel> faultKernel;
  /// --fault corrupt: the argument whose value is altered.
  int corruptArgument = -1;
  /// The seconds a late publish adds to a step.
  double stepDelaySeconds = 0;
  std::string faultNote;
  std::unique_ptr<ProgramPlan> plan;
  int batch = 0;
  std::vector<int32_t> tokens; ///< m_j per batch position.
  double watchdog = 30;
  uint64_t timeoutNs = 0;
  double setupSeconds = 0, simulationSeconds = 0, inputSeconds = 0;
  std::vector<Output> outputs; ///< Checked (with --check).
  std::vector<int> poisoned;   ///< Arguments poisoned before checked steps.
  std::vector<int> restored;   ///< Arguments restored before checked steps.
  std::vector<std::size_t> allocBytes; ///< Per argument (16-byte multiple).
  /// Buffer pointers per (argument, j, rank), stable: parameters point here.
  std::vector<CUdeviceptr> buffers;
  /// Pristine copies of the restored arguments per (argument, j, rank).
  std::vector<CUdeviceptr> pristine;
  /// What the simulation says each step must give, per batch position.
  std::vector<StepExpectation> expected;
  /// Expected bytes on the device per (argument, j, rank); 0 while unknown
  /// (a dual norm's output before the first batch was verified).
  std::vector<CUdeviceptr> expectedDevice;
  /// Where a dual norm's golden goes, per (argument, j, rank).
  std::vector<CUdeviceptr> goldenDevice;
  /// A dual norm's outputs: rank 0's bytes of the first run, per
  /// (output, j); empty until then.
  std::vector<std::vector<uint8_t>> golden;
  std::vector<std::vector<uint64_t>> hashesByOutput; ///< [output][j]
  std::vector<double> normWorst;                     ///< [output]
  std::vector<CUdeviceptr> checkResults;             ///< Per rank.
  /// Parameter pointer arrays per (j, rank, kernel).
  std::vector<std::vector<void *>> params;
  std::vector<CUevent> startEvents, endEvents;
  /// Around one replay, and around each replay of a chunk.
  CUevent replayStart = nullptr, replayEnd = nullptr;
  std::vector<CUevent> chunkStart, chunkEnd;
  CUgraphExec checkedGraph = nullptr, plainGraph = nullptr;
  std::chrono::steady_clock::time_point lastBatchStart;

  std::size_t bufferIndex(int arg, int j, int rank) const {
    return (std::size_t(arg) * batch + j) * options.tp + rank;
  }
};

} // namespace check
} // namespace lamport

#endif // LAMPORT_CHECK_HARNESS_H
