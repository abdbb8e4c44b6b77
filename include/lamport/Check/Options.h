//===- Options.h - lamport-run's command line -------------------*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// The options of lamport-run and their parser, in the library so that every
// usage error is unit-tested without a GPU.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_CHECK_OPTIONS_H
#define LAMPORT_CHECK_OPTIONS_H

#include "lamport/Check/Faults.h"
#include "lamport/Runtime/Transport.h"

#include <cstdint>
#include <string>
#include <vector>

namespace lamport {
namespace check {

/// Everything lamport-run was asked to do.
struct RunOptions {
  std::string bundle;
  int tp = 0;
  runtime::TransportKind transport = runtime::TransportKind::Loopback;
  /// Tokens per step; 0 means "all": step s carries 1 + s % capacity.
  int tokens = 0;
  uint64_t steps = 1;
  bool check = false;
  bool bench = false;
  bool graph = false;
  std::string jsonPath;
  uint64_t seed = 1;
  /// The rank that skips its publishes (--skip-publish R, or --fault
  /// skip-publish:rank=R), -1 for none.
  int skipPublishRank = -1;
  /// The one injected fault, skip-publish included (Faults.h).
  Fault fault;
  bool timeoutCheck = false;
  /// Steps per batch: distinct input sets, and steps per captured graph.
  int batch = 64;
  /// Graph replays: steps between reads of the device checks' results,
  /// rounded up to a multiple of the batch; 0 reads them after every batch.
  uint64_t stepsPerCheck = 0;
  /// Host watchdog per wait, in seconds; 0 derives it from the kernels'
  /// timeout_ns.
  double watchdogSeconds = 0;
  /// How long the polls wait (Session::setPollTimeout), in ns; 0: the
  /// compiled timeouts.
  int64_t pollTimeoutNs = 0;
  int device = 0;
  /// The most host memory, in GiB, the run's host copies (inputs, the
  /// simulation, the expected bytes) may take; 0: what the host has
  /// available.
  int64_t maxHostMemoryGiB = 0;
  bool allowMulticast = false;
  /// Launch without the programmatic-stream-serialization attribute even
  /// where a kernel's `pdl` allows it (a fallback, and a comparison).
  bool noPdl = false;
  /// Loopback insurance: every rank's consumers wait until every rank's
  /// publishers have finished, so no spinning poller can keep a publisher
  /// off the GPU's SMs (at the cost of the overlap a real step has).
  bool publishBarrier = false;
  /// With graph: a batch's steps run back to back on every rank, forked
  /// from and joined to the capture stream once per replay instead of once
  /// per step, as a decode loop runs them (the mailbox's stage rotation
  /// needs no barrier between steps). Each replay still gives replay / B.
  bool pipelined = false;
  /// Print the bundle's plan and exit: no GPU, and only BUNDLE is needed.
  bool plan = false;
};

/// The usage text (printed after a usage error).
std::string usage();
/// The usage text and the faults' forms (--help).
std::string help();

/// Parses lamport-run's arguments (without the program name). Throws
/// UsageError naming the bad option. Does not read the bundle.
RunOptions parseRunOptions(const std::vector<std::string> &args);

/// An integer option value in [lo, hi]; throws UsageError naming \p option
/// (shared by lamport-run and the benchmarks, so their messages agree).
int64_t parseIntegerOption(const std::string &option, const std::string &text,
                           int64_t lo, int64_t hi);

/// The ranges lamport-run and lamport-launch take: ranks of a group, steps
/// (and steps or replays between checks), tokens a step, batch positions,
/// the device index.
constexpr int64_t kMaxTp = 64;
constexpr int64_t kMaxSteps = int64_t(1) << 40;
constexpr int64_t kMaxTokens = int64_t(1) << 16;
constexpr int64_t kMaxBatch = 4096;
constexpr int64_t kMaxDevice = 1023;

/// --tokens: M in [1, kMaxTokens], or `all` (0: every M in turn).
int parseTokensOption(const std::string &option, const std::string &text);

/// \p bytes with one decimal in B, KiB, MiB or GiB ("8.5 MiB").
std::string formatBytes(double bytes);

} // namespace check
} // namespace lamport

#endif // LAMPORT_CHECK_OPTIONS_H
