//===- RankProcess.h - One rank of lamport-launch ---------------*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// What each rank process of lamport-launch runs: the rank opened through the
// RankRuntime, lamport-run's inputs for the same seed, steps on a stream of
// its own, every output checked against the host simulation, timings, and a
// JSON report the launcher joins.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_TOOLS_LAMPORT_LAUNCH_RANKPROCESS_H
#define LAMPORT_TOOLS_LAMPORT_LAUNCH_RANKPROCESS_H

#include "lamport/Runtime/Transport.h"

#include <cstdint>
#include <string>

namespace lamport {
namespace launch {

struct RankOptions {
  std::string bundle;
  int rank = 0, tp = 0, device = 0;
  std::string rendezvous;
  double rendezvousSeconds = 30;
  double watchdogSeconds = 30;
  /// How long the polls wait (RankRuntime::setPollTimeout); 0: as compiled.
  double pollTimeoutSeconds = 0;
  uint64_t steps = 64;
  int tokens = 0; ///< 0: step s carries 1 + (s mod batch) mod capacity.
  int batch = 16;
  uint64_t seed = 1;
  bool pdl = true;
  /// Mailbox: the compiled kernels; nccl: each all-reduce as ncclAllReduce,
  /// its outputs checked within the BF16 bound of the FP64 sum.
  runtime::RankTransport transport = runtime::RankTransport::Mailbox;
  /// After the first (eager) batch, the batch is captured into a CUDA graph
  /// on the rank's stream and replayed for the remaining steps.
  bool graph = false;
  /// With graph: every how many replays all of a replay's outputs are
  /// downloaded and checked (1: every replay).
  uint64_t checkEvery = 1;
  /// Faults for tests: this rank exits after this many steps (-1: never).
  int64_t dieAfterSteps = -1;
  /// Exits at once, never reaching the rendezvous.
  bool absent = false;
  std::string report; ///< The JSON report's path.
};

/// Runs one rank; returns the process's exit code (0 pass, 1 wrong result or
/// GPU failure, 2 bad bundle or option, 3 no GPU) after writing the report.
int runRank(const RankOptions &options);

} // namespace launch
} // namespace lamport

#endif // LAMPORT_TOOLS_LAMPORT_LAUNCH_RANKPROCESS_H
