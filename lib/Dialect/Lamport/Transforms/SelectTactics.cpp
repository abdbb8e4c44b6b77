//===- SelectTactics.cpp - Choose the tactics of gemm_publish -------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// lamport-select-tactics: each lamport.gemm_publish without tactics gets,
// for each M it can take, the tactic of the chip's table or else the cost
// model's best (TacticModel.h); consecutive M with one tactic share it.
//
//===----------------------------------------------------------------------===//

#include "TacticModel.h"
#include "TacticTable.h"

#include "lamport/Dialect/Lamport/Transforms/Passes.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

namespace mlir::lamport {
#define GEN_PASS_DEF_LAMPORTSELECTTACTICS
#include "lamport/Dialect/Lamport/Transforms/Passes.h.inc"
} // namespace mlir::lamport

using namespace mlir;
using namespace mlir::lamport;

namespace {
/// How many of the table's nearest shapes the model's prior takes, and the
/// factor on a tactic's estimate, as the exponent's weight, of the knobs in
/// which it differs from their tactics, averaged over them: fitted on the
/// measured candidates of real-model shapes, each model family judged
/// against the tuned tactics of the others (docs/tactics.md, "The prior").
constexpr size_t kPriorShapes = 3;
constexpr double kPriorWeight = 0.1;

/// Where the tactic serving one M came from.
struct Choice {
  TacticAttr tactic;
  const TacticTableEntry *entry = nullptr;
  double estimateUs = 0, runnerUpUs = 0;
  /// The two estimates weighed by the prior.
  double scoreUs = 0, runnerUpScoreUs = 0;
  /// How many knobs the tactic differs in from the prior's tactics (their
  /// average), and the least of its family's tactics.
  double differing = 0, familyDiffering = 0;
  /// The table's nearest shapes the model's ranking leaned on.
  SmallVector<const TacticTableEntry *> prior;
};

/// A tactic as the model ranks it: its estimate, times the prior's factor
/// for the knobs it differs in from the prior's tactics beyond the least
/// its family's tactics do.
struct Ranked {
  double score, estimateUs;
  TacticAttr tactic;
  double differing, familyDiffering;
};

/// Consecutive M served by one tactic from one source.
struct Run {
  Choice choice;
  int64_t firstM, lastM;
};

/// A tactic's short name in remarks: "s1 kw128 tiles2 p2 a1 occ1 early
/// late1", and for the bulk pipeline its ring: "bulk 3 x 32 KiB, 16 lanes".
std::string describe(TacticAttr tactic) {
  std::string text =
      llvm::formatv("s{0} kw{1}", tactic.getSplits(), tactic.getKw());
  if (tactic.getTiles() > 1)
    text += " tiles" + std::to_string(tactic.getTiles());
  if (tactic.getPasses() > 1)
    text += " p" + std::to_string(tactic.getPasses());
  text += " a" + std::to_string(tactic.getAccs());
  if (tactic.getMinCtasPerSm())
    text += " occ" + std::to_string(tactic.getMinCtasPerSm());
  if (tactic.getEarlyDependents())
    text += " early";
  if (tactic.getLateChunks())
    text += " late" + std::to_string(tactic.getLateChunks());
  if (tactic.getPipeline() == GemmPipeline::bulk) {
    text += llvm::formatv(" bulk {0} x {1} KiB", tactic.getStages(),
                          tactic.getStageBytes() / 1024);
    if (tactic.getProducerLanes() > 1)
      text += llvm::formatv(", {0} lanes", tactic.getProducerLanes());
  }
  return text;
}

struct LamportSelectTacticsPass
    : public lamport::impl::LamportSelectTacticsBase<LamportSelectTacticsPass> {
  using Base::Base;

  void runOnOperation() override;

private:
  LogicalResult selectFor(GemmPublishOp op);
  /// Remarks that `op`'s written tactics are kept, with the model's
  /// estimate for the one serving its largest M.
  void explainWritten(GemmPublishOp op);
  /// Every launchable tactic of every family, best first at `m`, each
  /// estimate weighed by how far the tactic is from those of `prior`.
  SmallVector<Ranked> rank(const GemmProblem &problem,
                           ArrayRef<TacticAttr> tactics, int64_t m,
                           ArrayRef<const TacticTableEntry *> prior);

  std::optional<TacticTable> table;
  /// Why no table is read, for explanations.
  std::string noTableReason;
  ChipModel chipModel;
};
} // namespace

/// The knobs of `a` and `b` that differ, of those that shape the kernel.
static int differingKnobs(TacticAttr a, TacticAttr b) {
  return (a.getSplits() != b.getSplits()) + (a.getKw() != b.getKw()) +
         (a.getTiles() != b.getTiles()) + (a.getPasses() != b.getPasses()) +
         (a.getAccs() != b.getAccs()) +
         (a.getLateChunks() != b.getLateChunks());
}

SmallVector<Ranked>
LamportSelectTacticsPass::rank(const GemmProblem &problem,
                               ArrayRef<TacticAttr> tactics, int64_t m,
                               ArrayRef<const TacticTableEntry *> prior) {
  // How far each tactic is from the prior's, and the least of its family:
  // the prior orders a family's tactics, and the families compete on the
  // estimate of each one's best (a tactic is weighed by how much further
  // it is than its family's nearest), so a family the neighbours do not
  // run is not ruled out by their knobs.
  SmallVector<double> differing;
  llvm::DenseMap<const TacticFamily *, double> nearest;
  for (TacticAttr tactic : tactics) {
    double knobs = 0;
    for (const TacticTableEntry *entry : prior)
      knobs += differingKnobs(tactic, entry->tactic);
    if (!prior.empty())
      knobs /= prior.size();
    differing.push_back(knobs);
    auto [it, inserted] = nearest.try_emplace(&getTacticFamily(tactic), knobs);
    if (!inserted)
      it->second = std::min(it->second, knobs);
  }
  SmallVector<Ranked> ranked;
  for (auto [tactic, knobs] : llvm::zip_equal(tactics, differing)) {
    const TacticFamily &family = getTacticFamily(tactic);
    double us = family.estimateUs(chipModel, problem, tactic, m);
    double least = nearest[&family];
    ranked.push_back({us * std::exp(kPriorWeight * (knobs - least)), us, tactic,
                      knobs, least});
  }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](auto &a, auto &b) { return a.score < b.score; });
  return ranked;
}

/// The problem `op` poses, publishes over `transport` where it sets none,
/// its bulk stages filled as `bulkCopies` says.
static GemmProblem getProblem(GemmPublishOp op, Transport transport,
                              BulkCopies bulkCopies) {
  MemRefType weightType = op.getWeight().getType();
  GemmProblem problem;
  problem.n = weightType.getDimSize(0);
  problem.k = weightType.getDimSize(1);
  problem.publishes = bool(op.getMailbox());
  if (op.getMailbox())
    problem.tp = op.getMailbox().getType().getTp();
  problem.transport = op.getTransport() ? *op.getTransport() : transport;
  problem.bulkCopies = bulkCopies;
  return problem;
}

LogicalResult LamportSelectTacticsPass::selectFor(GemmPublishOp op) {
  MLIRContext *ctx = op.getContext();
  GemmProblem problem = getProblem(op, transport, bulkCopies);

  // The sweep at each token tile: the M up to 8 take the first, the rest
  // the second.
  SmallVector<TacticAttr> tacticsByTile[2];
  static constexpr int64_t kTokenTiles[] = {8, 16};
  for (auto [index, tokenTile] : llvm::enumerate(kTokenTiles))
    for (const TacticFamily &family : getTacticFamilies())
      family.enumerate(ctx, problem, tokenTile, wideSweep,
                       tacticsByTile[index]);
  auto tacticsFor = [&](int64_t m) -> ArrayRef<TacticAttr> {
    return tacticsByTile[naturalTokenTile(m) > 8];
  };

  int64_t needed = op.getNeededTokens();
  bool staticM = !op.getX().getType().isDynamicDim(0) ||
                 !op.getY().getType().isDynamicDim(0);
  int64_t firstM = staticM ? needed : 1;

  // Each M: the table's entry, else the model's best, leaning on the
  // tactics of the table's nearest shapes; the model keeps the previous
  // M's tactic while it is within 2% of the best, so M does not switch
  // kernels for nothing.
  SmallVector<Run> runs;
  for (int64_t m = firstM; m <= needed; ++m) {
    Choice choice;
    if (table && !priorOnly)
      choice.entry = table->lookup(problem, m);
    if (choice.entry) {
      choice.tactic = choice.entry->tactic;
    } else {
      ArrayRef<TacticAttr> tactics = tacticsFor(m);
      if (tactics.empty()) {
        InFlightDiagnostic diag = op.emitOpError()
                                  << "no tactic launches N = " << problem.n
                                  << ", K = " << problem.k << ":";
        for (const TacticFamily &family : getTacticFamilies())
          diag << " " << family.name
               << " kernel: " << family.whyNot(ctx, problem) << ";";
        return diag;
      }
      if (table)
        choice.prior = table->nearest(problem, m, kPriorShapes);
      auto ranked = rank(problem, tactics, m, choice.prior);
      choice.tactic = ranked.front().tactic;
      choice.estimateUs = ranked.front().estimateUs;
      choice.scoreUs = ranked.front().score;
      choice.differing = ranked.front().differing;
      choice.familyDiffering = ranked.front().familyDiffering;
      if (ranked.size() > 1) {
        choice.runnerUpUs = ranked[1].estimateUs;
        choice.runnerUpScoreUs = ranked[1].score;
      }
      if (!runs.empty() && !runs.back().choice.entry) {
        TacticAttr previous = runs.back().choice.tactic;
        for (const Ranked &candidate : ranked)
          if (candidate.tactic == previous &&
              candidate.score <= 1.02 * ranked.front().score) {
            choice.tactic = previous;
            choice.estimateUs = candidate.estimateUs;
            choice.scoreUs = candidate.score;
            choice.differing = candidate.differing;
            choice.familyDiffering = candidate.familyDiffering;
          }
      }
    }
    if (!runs.empty() && runs.back().choice.tactic == choice.tactic &&
        runs.back().choice.entry == choice.entry)
      runs.back().lastM = m;
    else
      runs.push_back({choice, m, m});
  }

  SmallVector<Attribute> list;
  for (const Run &run : runs)
    list.push_back(withTokenTiles(run.choice.tactic, run.lastM));
  op.setTacticsAttr(ArrayAttr::get(ctx, list));

  if (candidates) {
    // The best tactic of each launch shape (splits, kw, tiles, passes), in
    // the order of the estimate: a sweep of N distinct launches rather than
    // N variants of the model's favourite. With `candidate-variants`, each
    // launch shape's best at every other late-chunk count follows it, then
    // its bulk rings: knobs the model ranks less well than it ranks launch
    // shapes, which the tuner times instead; last, the bulk pipeline's own
    // launch shapes.
    using LaunchKey =
        std::tuple<GemmPipeline, unsigned, unsigned, unsigned, unsigned>;
    auto launchKey = [](TacticAttr tactic) -> LaunchKey {
      return {tactic.getPipeline(), tactic.getSplits(), tactic.getKw(),
              tactic.getTiles(), tactic.getPasses()};
    };
    SmallVector<const TacticTableEntry *> prior;
    if (table)
      prior = table->nearest(problem, needed, kPriorShapes);
    SmallVector<Ranked> ranked =
        rank(problem, tacticsFor(needed), needed, prior);
    SmallVector<TacticAttr> best;
    llvm::DenseSet<LaunchKey> seen;
    for (const Ranked &candidate : ranked) {
      if (best.size() == candidates)
        break;
      if (seen.insert(launchKey(candidate.tactic)).second)
        best.push_back(withTokenTiles(candidate.tactic, needed));
    }
    SmallVector<Attribute> listed;
    for (TacticAttr launch : best) {
      listed.push_back(launch);
      // A bulk launch's other rings are among the bulk launches below.
      if (!candidateVariants || launch.getPipeline() == GemmPipeline::bulk)
        continue;
      llvm::DenseSet<unsigned> lateSeen = {launch.getLateChunks()};
      for (const Ranked &candidate : ranked)
        if (launchKey(candidate.tactic) == launchKey(launch) &&
            lateSeen.insert(candidate.tactic.getLateChunks()).second)
          listed.push_back(withTokenTiles(candidate.tactic, needed));
      SmallVector<TacticAttr> rings;
      appendBulkVariants(ctx, problem, launch, rings);
      listed.append(rings.begin(), rings.end());
    }
    if (candidateVariants) {
      SmallVector<TacticAttr> launches;
      appendBulkLaunches(ctx, problem, naturalTokenTile(needed),
                         best.front().getTokenTiles(), launches);
      for (TacticAttr launch : launches)
        if (!llvm::is_contained(listed, Attribute(launch)))
          listed.push_back(launch);
    }
    op->setAttr("lamport.candidates", ArrayAttr::get(ctx, listed));
  }

  if (explain) {
    InFlightDiagnostic remark = op.emitRemark()
                                << "tactics for N = " << problem.n
                                << ", K = " << problem.k << ":";
    for (const Run &run : runs) {
      remark << " M " << run.firstM << ".." << run.lastM << " "
             << describe(run.choice.tactic);
      if (run.choice.entry)
        remark << " from the table " << table->path << " (entry "
               << run.choice.entry->index << ", M " << run.choice.entry->firstM
               << ".." << run.choice.entry->lastM << ", "
               << run.choice.entry->source << ");";
      else {
        remark << llvm::formatv(
                      " from the cost model ({0}; estimate {1:F2} us at M = "
                      "{2}, the runner-up {3:F2} us",
                      !table      ? noTableReason
                      : priorOnly ? "the table as a prior only"
                                  : "no table entry",
                      run.choice.estimateUs, run.lastM, run.choice.runnerUpUs)
                      .str();
        if (!run.choice.prior.empty())
          remark << llvm::formatv(
                        "; weighed by the prior {0:F2} and {1:F2} us (the "
                        "pick's knobs differ from theirs by {2:F3}, the "
                        "least of its family's by {3:F3}), leaning on the "
                        "table's ",
                        run.choice.scoreUs, run.choice.runnerUpScoreUs,
                        run.choice.differing, run.choice.familyDiffering)
                        .str();
        for (auto [i, entry] : llvm::enumerate(run.choice.prior))
          remark << (i ? ", " : "") << entry->n << " x " << entry->k << " ("
                 << describe(entry->tactic) << ")";
        remark << ");";
      }
    }
  }
  return success();
}

void LamportSelectTacticsPass::explainWritten(GemmPublishOp op) {
  int64_t m = op.getNeededTokens();
  TacticAttr tactic = op.getTacticFor(m);
  GemmProblem problem = getProblem(op, transport, bulkCopies);
  double us = getTacticFamily(tactic).estimateUs(chipModel, problem, tactic, m);
  if (std::isnan(us)) {
    op.emitRemark() << "tactics written on the op: kept (the cost model has "
                       "no estimate for "
                    << describe(tactic)
                    << ": its kernel does not launch this shape, as "
                       "lamport-generate-kernels will say)";
    return;
  }
  op.emitRemark() << llvm::formatv(
      "tactics written on the op: kept (the cost model's estimate for {0} at "
      "M = {1}: {2:F2} us)",
      describe(tactic), m, us);
}

void LamportSelectTacticsPass::runOnOperation() {
  ModuleOp module = getOperation();
  SmallVector<GemmPublishOp> ops;
  module.walk([&](GemmPublishOp op) { ops.push_back(op); });
  if (ops.empty())
    return;
  chipModel = ChipModel::get(chip);
  std::string path = tacticTable;
  if (noTable)
    noTableReason = "no table read";
  else if (path.empty() && (path = findTacticTable(chip)).empty())
    noTableReason = "no table for " + chip;
  if (!noTable && !path.empty()) {
    llvm::Expected<TacticTable> read = readTacticTable(&getContext(), path);
    if (!read) {
      module.emitError() << llvm::toString(read.takeError());
      return signalPassFailure();
    }
    table = std::move(*read);
  }

  bool failed = false;
  for (GemmPublishOp op : ops) {
    if (!op.getTacticList().empty()) {
      if (explain)
        explainWritten(op);
      continue;
    }
    failed |= mlir::failed(selectFor(op));
  }
  if (failed)
    signalPassFailure();
}
