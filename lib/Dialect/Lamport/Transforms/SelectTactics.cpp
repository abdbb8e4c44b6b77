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

namespace mlir::lamport {
#define GEN_PASS_DEF_LAMPORTSELECTTACTICS
#include "lamport/Dialect/Lamport/Transforms/Passes.h.inc"
} // namespace mlir::lamport

using namespace mlir;
using namespace mlir::lamport;

namespace {
/// Where the tactic serving one M came from.
struct Choice {
  TacticAttr tactic;
  const TacticTableEntry *entry = nullptr;
  double estimateUs = 0, runnerUpUs = 0;
};

/// Consecutive M served by one tactic from one source.
struct Run {
  Choice choice;
  int64_t firstM, lastM;
};

/// A tactic's short name in remarks: "s1 kw128 tiles2 p2 a1 occ1 early
/// late1".
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
  /// Every launchable tactic of every family, best first at `m`.
  SmallVector<std::pair<double, TacticAttr>>
  rank(const GemmProblem &problem, ArrayRef<TacticAttr> tactics, int64_t m);

  std::optional<TacticTable> table;
  /// Why no table is read, for explanations.
  std::string noTableReason;
  ChipModel chipModel;
};
} // namespace

SmallVector<std::pair<double, TacticAttr>>
LamportSelectTacticsPass::rank(const GemmProblem &problem,
                               ArrayRef<TacticAttr> tactics, int64_t m) {
  SmallVector<std::pair<double, TacticAttr>> ranked;
  for (TacticAttr tactic : tactics)
    ranked.push_back(
        {getTacticFamily(tactic).estimateUs(chipModel, problem, tactic, m),
         tactic});
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](auto &a, auto &b) { return a.first < b.first; });
  return ranked;
}

/// The problem `op` poses, publishes over `transport` where it sets none.
static GemmProblem getProblem(GemmPublishOp op, Transport transport) {
  MemRefType weightType = op.getWeight().getType();
  GemmProblem problem;
  problem.n = weightType.getDimSize(0);
  problem.k = weightType.getDimSize(1);
  problem.publishes = bool(op.getMailbox());
  if (op.getMailbox())
    problem.tp = op.getMailbox().getType().getTp();
  problem.transport = op.getTransport() ? *op.getTransport() : transport;
  return problem;
}

LogicalResult LamportSelectTacticsPass::selectFor(GemmPublishOp op) {
  MLIRContext *ctx = op.getContext();
  GemmProblem problem = getProblem(op, transport);

  SmallVector<TacticAttr> tactics;
  for (const TacticFamily &family : getTacticFamilies())
    family.enumerate(ctx, problem, wideSweep, tactics);

  int64_t needed = op.getNeededTokens();
  bool staticM = !op.getX().getType().isDynamicDim(0) ||
                 !op.getY().getType().isDynamicDim(0);
  int64_t firstM = staticM ? needed : 1;

  // Each M: the table's entry, else the model's best; the model keeps the
  // previous M's tactic while it is within 2% of the best, so M does not
  // switch kernels for nothing.
  SmallVector<Run> runs;
  for (int64_t m = firstM; m <= needed; ++m) {
    Choice choice;
    if (table)
      choice.entry = table->lookup(problem, m);
    if (choice.entry) {
      choice.tactic = choice.entry->tactic;
    } else {
      if (tactics.empty()) {
        InFlightDiagnostic diag = op.emitOpError()
                                  << "no tactic launches N = " << problem.n
                                  << ", K = " << problem.k << ":";
        for (const TacticFamily &family : getTacticFamilies())
          diag << " " << family.name
               << " kernel: " << family.whyNot(ctx, problem) << ";";
        return diag;
      }
      auto ranked = rank(problem, tactics, m);
      choice.tactic = ranked.front().second;
      choice.estimateUs = ranked.front().first;
      choice.runnerUpUs = ranked.size() > 1 ? ranked[1].first : 0;
      if (!runs.empty() && !runs.back().choice.entry) {
        TacticAttr previous = runs.back().choice.tactic;
        for (auto &[us, tactic] : ranked)
          if (tactic == previous && us <= 1.02 * ranked.front().first) {
            choice.tactic = previous;
            choice.estimateUs = us;
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
    // N variants of the model's favourite.
    SmallVector<Attribute> best;
    llvm::DenseSet<std::tuple<unsigned, unsigned, unsigned, unsigned>> seen;
    for (auto &[us, tactic] : rank(problem, tactics, needed)) {
      if (best.size() == candidates)
        break;
      if (seen.insert({tactic.getSplits(), tactic.getKw(), tactic.getTiles(),
                       tactic.getPasses()})
              .second)
        best.push_back(withTokenTiles(tactic, needed));
    }
    op->setAttr("lamport.candidates", ArrayAttr::get(ctx, best));
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
      else
        remark << llvm::formatv(" from the cost model ({0}; estimate {1:F2} "
                                "us at M = {2}, the runner-up {3:F2} us);",
                                table ? "no table entry" : noTableReason,
                                run.choice.estimateUs, run.lastM,
                                run.choice.runnerUpUs)
                      .str();
    }
  }
  return success();
}

void LamportSelectTacticsPass::explainWritten(GemmPublishOp op) {
  int64_t m = op.getNeededTokens();
  TacticAttr tactic = op.getTacticFor(m);
  GemmProblem problem = getProblem(op, transport);
  double us = getTacticFamily(tactic).estimateUs(chipModel, problem, tactic, m);
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
