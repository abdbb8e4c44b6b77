//===- TacticModel.h - Tactic families and their cost model -----*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// What lamport-select-tactics knows about the kernels lamport.gemm_publish
// can become: each kernel family is one entry of getTacticFamilies(), with
// the tactics it can launch a shape with (the sweep space lamport-tune
// walks, defined here once), an estimate of a tactic's time at M tokens
// and why it cannot launch a shape at all. A new family is one more entry.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_LIB_DIALECT_LAMPORT_TRANSFORMS_TACTICMODEL_H
#define LAMPORT_LIB_DIALECT_LAMPORT_TRANSFORMS_TACTICMODEL_H

#include "lamport/Dialect/Lamport/IR/Lamport.h"
#include "lamport/Dialect/Lamport/Transforms/BulkCopies.h"

#include <optional>
#include <string>

namespace mlir::lamport {

/// A GEMM the tactics are chosen for: y[M, n] = x[M, k] @ W[n, k]^T, with
/// its publish (if any) into tp copies over `transport`.
struct GemmProblem {
  int64_t n = 0, k = 0;
  bool publishes = false;
  int64_t tp = 1;
  Transport transport = Transport::unicast;
  /// How the generator fills the bulk pipeline's stages (its
  /// `bulk-copies`), which the bulk tactics' layout follows.
  BulkCopies bulkCopies = BulkCopies::automatic;
};

/// The chip's figures the model uses (docs/tactics.md, "The cost model").
struct ChipModel {
  std::string chip;
  /// Streaming multiprocessors.
  int64_t sms = 132;
  /// Device-memory bandwidth a weight stream reaches, bytes per us.
  double dramBytesPerUs = 4.25e6;
  /// What one SM's loads can pull, bytes per us.
  double smBytesPerUs = 81.9e3;
  /// L2 to SM bandwidth for the activations, bytes per us.
  double l2BytesPerUs = 11.9e6;
  /// How x's time from L2 falls with the tiles a CTA owns: as
  /// tiles^-xTileSaving, not as the bytes (1 / tiles) the fewer CTAs read.
  double xTileSaving = 0.5;
  /// Bandwidth of the publishing epilogue's copies, bytes per us.
  double publishBytesPerUs = 4.4e6;
  /// A kernel's fixed cost under PDL in a graph, us.
  double launchUs = 0.641;
  /// Latency of one memory round trip under load, us.
  double latencyUs = 0.565;
  /// Each further wave of CTAs with one CTA per SM, us: the SM idles while
  /// a CTA drains and the next ramps; more CTAs per SM hide part of it.
  double waveUs = 2.95;
  /// One mma.sync of a warp's chain of MMAs on one accumulator, us.
  double mmaUs = 0.0112;
  /// The split-K exchange through the cluster, us.
  double clusterUs = 0.022;
  /// Each further split's share of the exchange, us.
  double splitUs = 0.177;
  /// Each further pass's reduce and store, us.
  double passUs = 0.269;
  /// The weight stream over its floor.
  double streamOverFloor = 1.0;
  /// The stream without the register budget hint (ptxas keeps registers
  /// low and issues some loads late).
  double noHintFactor = 1.04;
  /// What early dependents save of the launch, us.
  double earlyUs = 0.188;
  /// The share of x's load one and two late chunks overlap.
  double lateOverlap1 = 0.00162, lateOverlap2 = 0.684;
  /// The share of x's load two late chunks overlap with 16-token tiles.
  double lateOverlap2Wide = 0.35;
  /// Each late chunk of each tile, us.
  double lateChunkUs = 0.0678;
  /// The warps' partials through shared memory, us per word.
  double reduceWordUs = 11.5e-6;
  /// Each 8 registers a thread wants past its budget (ptxas delays loads
  /// or spills): the share of time it adds.
  double spillPer8Registers = 0.04;
  /// A thread's registers besides the weights, sums and x.
  int64_t baseRegisters = 18;

  /// The bulk-stream family's own figures (docs/tactics.md, "The bulk
  /// pipeline's estimate"): its set-up beyond a launch (the ring's
  /// barriers, the first copies) and the bulk copies the GPU completes a
  /// microsecond, fitted to its kernels at the fitted shapes; a bulk
  /// copy's round trip under load, us, set (the fit is flat in it).
  double bulkSetupUs = 0.409;
  double bulkCopiesPerUs = 3760;
  double bulkLatencyUs = 0.1;

  /// The figures of `chip` (sm_90, sm_90a: H200; sm_100, sm_100a,
  /// sm_100f: B200), or none for a chip the model has no figures for.
  static std::optional<ChipModel> get(StringRef chip);
};

/// The token tile the generator uses for `m` tokens: 8 up to 8, else 16.
inline int64_t naturalTokenTile(int64_t m) { return m <= 8 ? 8 : 16; }

/// Why the generator cannot launch `tactic` for `problem` at `m` tokens
/// (the op's rules, then the kernel's launch shape at m's token tile), or
/// an empty string.
std::string launchUnsupportedAt(const GemmProblem &problem, TacticAttr tactic,
                                int64_t m);

/// A tactic of the register pipeline (the bulk ring's knobs at their
/// defaults).
TacticAttr registerTactic(MLIRContext *ctx, int64_t splits, int64_t kw,
                          int64_t accs, int64_t tiles, int64_t passes,
                          int64_t minCtasPerSm, bool earlyDependents,
                          int64_t lateChunks,
                          ArrayRef<int64_t> tokenTiles = {});

/// `tactic` with the token tiles of M = 1..last (each M's natural tile).
TacticAttr withTokenTiles(TacticAttr tactic, int64_t last);

/// The bulk pipeline's tactics of `tactic`'s launch shape (splits, kw,
/// tiles, passes; its accs, hint and early dependents kept) that lamport-tune
/// times beside it: a ring of about 64 and of about 128 KiB in stages of
/// about 32 KiB, filled from as many producer lanes as a stage has copies (up
/// to 32, one instruction), each one the bulk kernel launches at both token
/// tiles. The model ranks only the bulk pipeline's own launch shapes
/// (below); these rings are timed, not ranked (docs/tactics.md).
void appendBulkVariants(MLIRContext *ctx, const GemmProblem &problem,
                        TacticAttr tactic,
                        SmallVectorImpl<TacticAttr> &variants);

/// The bulk `tactic` (its `early_reads` left out) with the other choice of
/// reads before the PDL wait, which lamport-tune times beside it: none where
/// the generator's rule reads some (one pass), the loads that fit the rule's
/// register budget where it reads none (several passes); null where the two
/// are the same kernel. Which wins depends on the tactic (docs/design/
/// gemm.md, "Reads before the wait").
TacticAttr earlyReadsTwin(const GemmProblem &problem, TacticAttr tactic);

/// The loads of the bulk `tactic`'s ring that its kernel reads before the
/// PDL wait at `problem`: its `early_reads`, else the generator's rule; 0
/// for a register tactic; a ring the generator refuses, its `early_reads`
/// as written (-1 where left out). Two tactics that spell the same count
/// differently (left to the rule, or written) are one kernel.
int64_t earlyReadLoads(const GemmProblem &problem, TacticAttr tactic);

/// The bulk pipeline's own launch shapes, which lamport-tune times beside
/// the model's: one split, 4, 8 or 16 warps (kw = K / warps, outside the
/// register sweep at large K), 2, 4 or 8 passes over grids of at least 64
/// CTAs, 1 or 2 tiles, x and the sums within a thread's registers at
/// `tokenTile`, rings of about 96, 128 and 192 KiB in stages of about
/// 32 KiB. A
/// wave of long-lived CTAs streams its weights through the ring pass after
/// pass and reads x once (docs/design/gemm.md, "The bulk pipeline"). These
/// are the bulk-stream family's sweep space.
void appendBulkLaunches(MLIRContext *ctx, const GemmProblem &problem,
                        int64_t tokenTile, ArrayRef<int64_t> tokenTiles,
                        SmallVectorImpl<TacticAttr> &tactics);

/// One kernel family of lamport.gemm_publish.
struct TacticFamily {
  /// The family's name in explanations and errors.
  StringRef name;
  /// Appends every tactic of the family that launches `problem` at token
  /// tile `tokenTile` (8 or 16; token tiles left empty): the sweep space
  /// for the M that tile serves; `wide` adds the launch shapes the model
  /// ranks less well, for lamport-tune to time.
  void (*enumerate)(MLIRContext *ctx, const GemmProblem &problem,
                    int64_t tokenTile, bool wide,
                    SmallVectorImpl<TacticAttr> &tactics);
  /// Whether `tactic` is one of this family's.
  bool (*owns)(TacticAttr tactic);
  /// Estimated time of one launch at `m` tokens, us; NaN where the model
  /// has no figures for the tactic.
  double (*estimateUs)(const ChipModel &chip, const GemmProblem &problem,
                       TacticAttr tactic, int64_t m);
  /// Why no tactic of the family launches `problem`, or an empty string.
  std::string (*whyNot)(MLIRContext *ctx, const GemmProblem &problem);
};

/// Every kernel family, in the order their tactics are preferred on a tie.
ArrayRef<TacticFamily> getTacticFamilies();

/// The family `tactic` belongs to.
const TacticFamily &getTacticFamily(TacticAttr tactic);

} // namespace mlir::lamport

#endif // LAMPORT_LIB_DIALECT_LAMPORT_TRANSFORMS_TACTICMODEL_H
