//===- BoundaryBench.h - lamport-boundary-bench's host logic ----*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// The parts of lamport-boundary-bench (the fused attention boundary over
// the peer transport against NCCL's all-reduce, the same dual norm and
// cuBLAS, one GPU per rank) that need no GPU, kept apart so they are
// unit-tested on machines without one:
//
//   - the command line and its usage errors;
//   - pairing the two bundles: the fused boundary (gemm_publish into a
//     mailbox, then all_reduce_dual_norm) and the standalone dual_norm the
//     baseline launches after ncclAllReduce, bound to their roles, with the
//     same H, gates, weights, eps and output shapes, so that both get the
//     same inputs (lamport-run's inputs by role) and must write the same
//     bytes;
//   - the plan --plan prints;
//   - the baseline's checks on the host: the GEMM's partials and the
//     all-reduce exact (up to the sign of a zero), the dual norm within the
//     bounds lamport-run uses, hashes as lamport-run's output_hashes;
//   - latency summaries (lamport-run's percentile rule) and the table.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_BENCH_BOUNDARYBENCH_H
#define LAMPORT_BENCH_BOUNDARYBENCH_H

#include "lamport/Check/Reference.h"
#include "lamport/Check/Simulator.h"
#include "lamport/Check/Statistics.h"
#include "lamport/Runtime/Manifest.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace lamport {
namespace bench {

/// How the steps of a measurement reach the GPUs.
enum class TimingMode {
  /// A CUDA graph of one batch of steps, replayed: per step, replay / batch.
  /// Every step forks the ranks' streams from one stream and joins them
  /// back, so each step ends with a cross-GPU join.
  Graph,
  /// As Graph, but each rank runs the batch's steps back to back, forked
  /// and joined once per replay, as a decode loop runs layer after layer
  /// (lamport-run --pipelined).
  Pipelined,
  /// Steps enqueued one by one, each between two events.
  Eager,
};

const char *timingModeName(TimingMode mode);

/// Everything lamport-boundary-bench was asked to do.
struct BenchOptions {
  std::string fusedBundle;
  std::string normBundle;
  /// Optional (--boundary): the boundary alone from a partial already in
  /// memory (all_reduce_dual_norm publishing it, or publish_rows then
  /// all_reduce_dual_norm); timed beside NCCL's all-reduce, which starts
  /// from the same partials (the comparison the target is set on: NCCL's
  /// all-reduce at least twice the boundary's time).
  std::string boundaryBundle;
  /// Ranks, on devices 0 .. tp - 1; 0 until given (--plan then takes the
  /// fused bundle's).
  int tp = 0;
  std::vector<int> tokens{1, 4, 16};
  uint64_t steps = 4000;
  /// Batch positions: input sets (and weight copies) per rank, and steps
  /// per captured graph, for ours and the baseline alike.
  int batch = 32;
  uint64_t seed = 1;
  std::vector<TimingMode> modes{TimingMode::Pipelined};
  std::string jsonPath;
  /// Skip ours: the baseline alone, at any tp (tp = 1 smoke tests).
  bool baselineOnly = false;
  /// Launch without programmatic stream serialization (ours and the
  /// baseline's dual norm).
  bool noPdl = false;
  /// Host watchdog per wait in seconds; 0: lamport-run's rule for ours,
  /// 60 s for the baseline.
  double watchdogSeconds = 0;
  bool plan = false;
  bool help = false;
};

/// The usage text.
std::string benchUsage();

/// Parses the arguments (without the program name). Throws
/// runtime::UsageError naming the bad option. Reads no bundle.
BenchOptions parseBenchOptions(const std::vector<std::string> &args);

/// "1,4,16" into {1, 4, 16}: integers in [1, 16], no repeats. Throws
/// runtime::UsageError.
std::vector<int> parseTokenList(const std::string &text);

/// The two bundles bound to their roles. The alternatives of one op that a
/// program chooses by M count as that op; lamport-run's Harness runs the
/// one for each step's M.
struct BoundaryPair {
  /// The fused bundle: its GEMM kernels (one, or the alternatives the
  /// program chooses by M: docs/bundle.md `tokens`), its consumer kernel,
  /// and role -> argument (x, weight, y of the GEMM; stream, alpha, beta,
  /// post_weight, next_weight, out of the consumer).
  std::vector<int> gemmKernels;
  int consumerKernel = -1;
  std::map<std::string, int> fusedRoles;
  /// The dual_norm bundle: its kernel and role -> argument (reduced, stream,
  /// alpha, beta, post_weight, next_weight, out).
  int normKernel = -1;
  std::map<std::string, int> normRoles;
  /// H (the mailbox width, the GEMM's N, the dual norm's row), K, the
  /// mailbox's tp and capacity.
  int64_t h = 0, k = 0;
  int mailboxTp = 0, capacity = 0;
  bool postWeight = false;
  double eps = 1e-6;

  /// The fused bundle's argument of \p role (-1 for none).
  int fused(const std::string &role) const;
  /// The dual_norm bundle's argument of \p role (-1 for none).
  int norm(const std::string &role) const;
};

/// Binds and checks the bundles for a TP group of \p tp. Throws
/// runtime::Error naming the bundle, kernel, role and rule when the first is
/// not a fused attention boundary, the second not a standalone dual norm of
/// one kernel for every M,
/// they disagree on H, a role's dtype or shape, post_weight or eps, or (for
/// ours, without \p baselineOnly) \p tp is not the mailbox's.
BoundaryPair pairBundles(const runtime::Manifest &fused,
                         const runtime::Manifest &norm, int tp,
                         bool baselineOnly);

/// Checks that \p boundary (--boundary) is the boundary alone for \p pair: a
/// step of all_reduce_dual_norm publishing its partial, or of publish_rows
/// then all_reduce_dual_norm, through one mailbox of the fused bundle's tp,
/// width (H) and eps. Throws runtime::Error naming the
/// bundle and the rule.
void checkBoundaryBundle(const runtime::Manifest &boundary,
                         const BoundaryPair &pair);

/// Bytes the runtime allocates for each argument of \p manifest: the most
/// tokens, rounded up to 16 (0 for mailboxes), as lamport-run does; inputs
/// generated into allocations of these sizes match lamport-run's bit for
/// bit.
std::vector<std::size_t> allocationBytes(const runtime::Manifest &manifest);

/// What --plan prints: the pair, the boundary alone (with --boundary), the
/// baseline's calls per rank, what is checked, bytes per step and device
/// memory per rank.
std::string describeBenchPlan(const runtime::Manifest &fused,
                              const runtime::Manifest &norm,
                              const BoundaryPair &pair,
                              const BenchOptions &options,
                              const runtime::Manifest *boundary = nullptr);

/// FNV-1a, 64 bits: lamport-run's output_hashes (the runtime's own).
using check::fnv1a;

/// Where two arrays of BF16 differ.
struct Mismatch {
  std::size_t count = 0;
  std::size_t first = 0; ///< Valid when count > 0.
};

/// Compares \p count BF16 values; with \p zeroSignsEqual, +0.0 and -0.0 are
/// the same (the sign of a zero sum is cuBLAS's and NCCL's own).
Mismatch compareBf16(const uint16_t *got, const uint16_t *want,
                     std::size_t count, bool zeroSignsEqual);

/// The exact all-reduce of integer-valued partials: bf16 of the FP32 sum of
/// every rank's element (any order gives it for |sum| <= 256).
std::vector<uint16_t>
integerAllReduce(const std::vector<const uint16_t *> &partials,
                 std::size_t count);

/// A dual norm's output checked against its FP64 reference and bounds
/// (Simulator.h's NormExpectation, the first rows * rowLength elements).
struct NormCheck {
  /// The worst |got - ref| / bound.
  double worst = 0;
  std::size_t violations = 0;
  std::size_t first = 0; ///< The worst violation, when there is one.
};

/// \p got holds rows * rowLength elements of \p dtype (BF16 or F32).
NormCheck checkNorm(const void *got, runtime::DType dtype,
                    const check::NormExpectation &expected);

/// Median, p99 (lamport-run's rule: sorted[ceil(q n) - 1]), min and mean:
/// the runtime's summary, so both tools' tables mean the same.
using Latency = check::LatencyStats;
inline Latency summarize(std::vector<double> samples) {
  return check::summarizeSamples(std::move(samples));
}

/// One (tp, M, mode) of the table; a measurement that did not run is empty.
struct TableRow {
  int tp = 0;
  int m = 0;
  TimingMode mode = TimingMode::Graph;
  std::optional<Latency> ours, allReduce, allReduceNorm, baseline;
  /// The standalone dual norm alone, PDL between steps: no exchange.
  std::optional<Latency> normAlone;
  /// The boundary alone (--boundary): publish_rows + all_reduce_dual_norm.
  std::optional<Latency> boundary;
  /// "PASS", or what failed.
  std::string check;
};

/// \p numerator / \p denominator of two medians, or nullopt.
std::optional<double> medianRatio(const std::optional<Latency> &numerator,
                                  const std::optional<Latency> &denominator);

/// The closing table: tp, M, mode, ours fused (GEMM + boundary), the
/// boundary alone, NCCL all-reduce, all-reduce + dual norm, the full baseline
/// (median/p99, us), NCCL all-reduce / the boundary alone (the target:
/// >= 2), the full baseline / ours fused, and the check.
std::string formatTable(const std::vector<TableRow> &rows);

} // namespace bench
} // namespace lamport

#endif // LAMPORT_BENCH_BOUNDARYBENCH_H
