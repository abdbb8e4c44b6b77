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
/// How many of the table's nearest shapes the model's prior takes the
/// timed points of: chosen on the measured candidates of real-model shapes,
/// each model family judged against the timed points of the others
/// (docs/tactics.md, "The prior").
constexpr size_t kPriorShapes = 1;

/// The two pipelines' best scores closer than this (in the logarithm of
/// their ratio, about 10%) are a tie the model cannot break: between
/// near-equal kernels its estimates miss by 7-16% (docs/tactics.md).
constexpr double kFamilyTie = 0.1;

/// Where the prior's factor on a tactic's estimate comes from.
enum class SlowdownSource {
  /// The points timed the tactic's kernel.
  timed,
  /// They timed none of the tactics ranked, but this kernel at another
  /// width along K (kw; the bulk pipeline's warps).
  otherWidth,
  /// The median of every candidate the points timed.
  median,
};

/// A tactic as the model ranks it: its estimate, times its slowdown at the
/// prior's timed points.
struct Ranked {
  double score = 0, estimateUs = 0;
  TacticAttr tactic;
  /// The prior's factor on the estimate, and where it comes from.
  double slowdown = 1;
  SlowdownSource source = SlowdownSource::median;
  /// Ranked first by arbitrateFamilies rather than by its score.
  bool byFamilyPrior = false;
};

/// The tactic of one M and where it came from: a table entry, or the
/// model's ranking (then `pick` holds its figures).
struct Choice {
  const TacticTableEntry *entry = nullptr;
  Ranked pick;
  /// The best ranked tactic other than the pick (null tactic where the
  /// pick had no rival).
  Ranked runnerUp;
  /// The table's timed points the model's ranking leaned on.
  SmallVector<const MeasuredPoint *> prior;
  /// How many tactics were ranked, how many of those the prior's points
  /// timed, and (where they timed none) how many they timed at another
  /// width; the rest took their median.
  size_t rankedCount = 0, timedCount = 0, otherWidthCount = 0;
  /// The previous M's tactic, kept within 2% of the tactic ranked first.
  bool kept = false;
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
    if (std::optional<unsigned> early = tactic.getEarlyReads())
      text += llvm::formatv(", {0} read early", *early);
  }
  return text;
}

/// How a remark names where the pick's slowdown came from.
static StringRef slowdownSourceText(SlowdownSource source) {
  switch (source) {
  case SlowdownSource::timed:
    return "as timed";
  case SlowdownSource::otherWidth:
    return "as timed at other widths";
  case SlowdownSource::median:
    return "their median: not timed there";
  }
  llvm_unreachable("unknown slowdown source");
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
  /// estimate weighed by the tactic's slowdown at the timed points `prior`.
  SmallVector<Ranked> rank(const GemmProblem &problem,
                           ArrayRef<TacticAttr> tactics, int64_t m,
                           ArrayRef<const MeasuredPoint *> prior);
  /// Where the best of the other pipeline scores within kFamilyTie of the
  /// first, puts it first if its pipeline's fastest kernel ran faster at
  /// the prior's timed points than the first's pipeline's did.
  static void arbitrateFamilies(SmallVectorImpl<Ranked> &ranked,
                                ArrayRef<const MeasuredPoint *> prior);

  std::optional<TacticTable> table;
  /// Why no table is read, for explanations.
  std::string noTableReason;
  ChipModel chipModel;
};
} // namespace

/// Whether tactic `a` for `problem` is the kernel tactic `b` is for the
/// point `atB`: the same knobs, the bulk pipeline's warps in place of its
/// kw (its own launch shapes spread K over 4, 8 or 16 warps) and its reads
/// before the PDL wait counted, however spelled. With `anyWidth`, also at
/// another width along K: any kw, any count of bulk warps.
static bool sameKernel(const GemmProblem &problem, TacticAttr a,
                       const MeasuredPoint &atB, TacticAttr b,
                       bool anyWidth = false) {
  if (a.getPipeline() != b.getPipeline() || a.getSplits() != b.getSplits() ||
      a.getTiles() != b.getTiles() || a.getPasses() != b.getPasses() ||
      a.getAccs() != b.getAccs() ||
      a.getMinCtasPerSm() != b.getMinCtasPerSm() ||
      a.getEarlyDependents() != b.getEarlyDependents() ||
      a.getLateChunks() != b.getLateChunks())
    return false;
  if (a.getPipeline() == GemmPipeline::registers)
    return anyWidth || a.getKw() == b.getKw();
  GemmProblem problemB = problem;
  problemB.n = atB.n;
  problemB.k = atB.k;
  return a.getStages() == b.getStages() &&
         a.getStageBytes() == b.getStageBytes() &&
         a.getProducerLanes() == b.getProducerLanes() &&
         (anyWidth || problem.k / (a.getSplits() * a.getKw()) ==
                          atB.k / (b.getSplits() * b.getKw())) &&
         earlyReadLoads(problem, a) == earlyReadLoads(problemB, b);
}

/// The median time over the best of every candidate of `points`.
static double medianSlowdown(ArrayRef<const MeasuredPoint *> points) {
  SmallVector<double> all;
  for (const MeasuredPoint *point : points)
    for (const MeasuredCandidate &candidate : point->candidates)
      all.push_back(candidate.overBest);
  if (all.empty())
    return 1;
  llvm::sort(all);
  size_t middle = all.size() / 2;
  return all.size() % 2 ? all[middle] : (all[middle - 1] + all[middle]) / 2;
}

/// The geometric mean over the points of `prior` that timed a kernel of
/// `pipeline` of the fastest one's time over the point's best; nullopt
/// where none did.
static std::optional<double>
familyBestAtPrior(ArrayRef<const MeasuredPoint *> prior,
                  GemmPipeline pipeline) {
  double logSum = 0;
  int points = 0;
  for (const MeasuredPoint *point : prior) {
    std::optional<double> fastest;
    for (const MeasuredCandidate &candidate : point->candidates)
      if (candidate.tactic.getPipeline() == pipeline)
        fastest =
            std::min(fastest.value_or(candidate.overBest), candidate.overBest);
    if (fastest) {
      logSum += std::log(*fastest);
      ++points;
    }
  }
  if (!points)
    return std::nullopt;
  return std::exp(logSum / points);
}

void LamportSelectTacticsPass::arbitrateFamilies(
    SmallVectorImpl<Ranked> &ranked, ArrayRef<const MeasuredPoint *> prior) {
  if (ranked.empty())
    return;
  GemmPipeline first = ranked.front().tactic.getPipeline();
  auto other = llvm::find_if(ranked, [&](const Ranked &candidate) {
    return candidate.tactic.getPipeline() != first;
  });
  if (other == ranked.end() ||
      std::abs(std::log(other->score / ranked.front().score)) >= kFamilyTie)
    return;
  std::optional<double> firstAtPrior = familyBestAtPrior(prior, first),
                        otherAtPrior = familyBestAtPrior(
                            prior, other->tactic.getPipeline());
  if (!firstAtPrior || !otherAtPrior || *otherAtPrior >= *firstAtPrior)
    return;
  other->byFamilyPrior = true;
  std::rotate(ranked.begin(), other, std::next(other));
}

SmallVector<Ranked>
LamportSelectTacticsPass::rank(const GemmProblem &problem,
                               ArrayRef<TacticAttr> tactics, int64_t m,
                               ArrayRef<const MeasuredPoint *> prior) {
  // Each tactic's estimate times its slowdown where the nearest shapes were
  // timed: the geometric mean of its time over the best at the points that
  // timed the same kernel, else the median of every candidate's there (a
  // kernel the tuner did not time there ranked below the model's best
  // there). The model is right about what differs by much; what was
  // measured at similar shapes decides between near-equals, where it errs.
  // Where the points timed none of the tactics (a K whose kw none of the
  // nearest shapes' kernels has), each takes the slowdown of its kernel at
  // the other widths they timed: how its tiles, passes and accumulators
  // fared there says more than the median.
  auto timedSlowdown = [&](TacticAttr tactic,
                           bool anyWidth) -> std::optional<double> {
    double logSum = 0;
    int timed = 0;
    for (const MeasuredPoint *point : prior)
      for (const MeasuredCandidate &candidate : point->candidates)
        if (sameKernel(problem, tactic, *point, candidate.tactic, anyWidth)) {
          logSum += std::log(candidate.overBest);
          ++timed;
        }
    if (!timed)
      return std::nullopt;
    return std::exp(logSum / timed);
  };
  double median = medianSlowdown(prior);
  SmallVector<Ranked> ranked;
  for (TacticAttr tactic : tactics) {
    double us =
        getTacticFamily(tactic).estimateUs(chipModel, problem, tactic, m);
    Ranked entry;
    entry.estimateUs = us;
    entry.tactic = tactic;
    entry.slowdown = median;
    if (std::optional<double> slowdown = timedSlowdown(tactic, false)) {
      entry.slowdown = *slowdown;
      entry.source = SlowdownSource::timed;
    }
    ranked.push_back(entry);
  }
  bool noneTimed = llvm::none_of(ranked, [](const Ranked &entry) {
    return entry.source == SlowdownSource::timed;
  });
  for (Ranked &entry : ranked) {
    if (noneTimed)
      if (std::optional<double> slowdown = timedSlowdown(entry.tactic, true)) {
        entry.slowdown = *slowdown;
        entry.source = SlowdownSource::otherWidth;
      }
    entry.score = entry.estimateUs * entry.slowdown;
  }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](auto &a, auto &b) { return a.score < b.score; });
  arbitrateFamilies(ranked, prior);
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
  // What the pick is ranked among: each bulk tactic followed by its other
  // choice of reads before the PDL wait. The model does not tell the two
  // apart (a tie keeps the rule's); the prior's timed points do.
  SmallVector<TacticAttr> rankedByTile[2];
  for (auto [tactics, withTwins] : llvm::zip(tacticsByTile, rankedByTile))
    for (TacticAttr tactic : tactics) {
      withTwins.push_back(tactic);
      if (TacticAttr twin = earlyReadsTwin(problem, tactic))
        withTwins.push_back(twin);
    }

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
      // The table is read before the generator's options are known: an
      // entry whose kernel the generator refuses is the table's error.
      std::string reason =
          launchUnsupportedAt(problem, choice.entry->tactic, m);
      if (!reason.empty())
        return op.emitOpError()
               << "tactic table '" << table->path << "' entry "
               << choice.entry->index << " cannot launch N = " << problem.n
               << ", K = " << problem.k << " at M = " << m << ": " << reason;
      choice.pick.tactic = choice.entry->tactic;
    } else {
      ArrayRef<TacticAttr> tactics = rankedByTile[naturalTokenTile(m) > 8];
      if (tactics.empty()) {
        InFlightDiagnostic diag = op.emitOpError()
                                  << "no tactic launches N = " << problem.n
                                  << ", K = " << problem.k << ":";
        // A family that fails for a reason already given names the first
        // that gave it rather than repeat it.
        SmallVector<std::pair<StringRef, std::string>> reasons;
        for (const TacticFamily &family : getTacticFamilies()) {
          std::string reason = family.whyNot(ctx, problem);
          diag << (reasons.empty() ? " " : "; ") << family.name << " kernel: ";
          auto same = llvm::find_if(reasons, [&](const auto &given) {
            return given.second == reason;
          });
          if (same != reasons.end())
            diag << "as the " << same->first << " kernel";
          else
            diag << reason;
          reasons.push_back({family.name, std::move(reason)});
        }
        return diag;
      }
      if (table)
        choice.prior = table->nearestMeasured(problem, m, kPriorShapes);
      auto ranked = rank(problem, tactics, m, choice.prior);
      choice.pick = ranked.front();
      choice.rankedCount = ranked.size();
      auto countFrom = [&](SlowdownSource source) {
        return llvm::count_if(ranked, [&](const Ranked &candidate) {
          return candidate.source == source;
        });
      };
      choice.timedCount = countFrom(SlowdownSource::timed);
      choice.otherWidthCount = countFrom(SlowdownSource::otherWidth);
      // Not across a pipeline the prior's timed points put first.
      if (!runs.empty() && !runs.back().choice.entry) {
        TacticAttr previous = runs.back().choice.pick.tactic;
        for (const Ranked &candidate : ranked)
          if (candidate.tactic == previous &&
              candidate.score <= 1.02 * ranked.front().score &&
              (!ranked.front().byFamilyPrior ||
               previous.getPipeline() == ranked.front().tactic.getPipeline())) {
            choice.pick = candidate;
            choice.kept = candidate.tactic != ranked.front().tactic;
          }
      }
      for (const Ranked &candidate : ranked)
        if (candidate.tactic != choice.pick.tactic) {
          choice.runnerUp = candidate;
          break;
        }
    }
    if (!runs.empty() && runs.back().choice.pick.tactic == choice.pick.tactic &&
        runs.back().choice.entry == choice.entry) {
      // The run's figures are its last M's, as the remark says.
      runs.back().choice = choice;
      runs.back().lastM = m;
    } else
      runs.push_back({choice, m, m});
  }

  SmallVector<Attribute> list;
  for (const Run &run : runs)
    list.push_back(withTokenTiles(run.choice.pick.tactic, run.lastM));
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
    SmallVector<const MeasuredPoint *> prior;
    if (table)
      prior = table->nearestMeasured(problem, needed, kPriorShapes);
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
    // Each bulk candidate's other choice of reads before the PDL wait
    // follows it: the rule's gains and losses vary by tactic.
    if (candidateVariants) {
      SmallVector<Attribute> withTwins;
      for (Attribute candidate : listed) {
        withTwins.push_back(candidate);
        if (TacticAttr twin =
                earlyReadsTwin(problem, cast<TacticAttr>(candidate)))
          withTwins.push_back(twin);
      }
      listed = std::move(withTwins);
    }
    op->setAttr("lamport.candidates", ArrayAttr::get(ctx, listed));
  }

  if (explain) {
    InFlightDiagnostic remark = op.emitRemark()
                                << "tactics for N = " << problem.n
                                << ", K = " << problem.k << ":";
    for (const Run &run : runs) {
      remark << " M " << run.firstM << ".." << run.lastM << " "
             << describe(run.choice.pick.tactic);
      if (run.choice.entry) {
        remark << " from the table " << table->path << " (entry "
               << run.choice.entry->index << ", M " << run.choice.entry->firstM
               << ".." << run.choice.entry->lastM;
        if (!run.choice.entry->source.empty())
          remark << ", " << run.choice.entry->source;
        remark << ");";
      } else {
        const Ranked &runnerUp = run.choice.runnerUp;
        remark << llvm::formatv(
                      " from the cost model ({0}; estimate {1:F2} us at M = "
                      "{2}",
                      !table ? noTableReason
                      : priorOnly
                          ? "the table " + table->path + " as a prior only"
                          : "no entry in the table " + table->path,
                      run.choice.pick.estimateUs, run.lastM)
                      .str();
        if (runnerUp.tactic)
          remark << llvm::formatv(", the runner-up {0} {1:F2} us",
                                  describe(runnerUp.tactic),
                                  runnerUp.estimateUs)
                        .str();
        else
          remark << ", the only tactic that launches";
        if (!run.choice.prior.empty()) {
          remark << llvm::formatv(
                        "; weighed by the prior {0:F2}{1} us (the pick's "
                        "slowdown there {2:F3}, {3}), leaning on the table's "
                        "timed points ",
                        run.choice.pick.score,
                        runnerUp.tactic
                            ? llvm::formatv(" and {0:F2}", runnerUp.score).str()
                            : std::string(),
                        run.choice.pick.slowdown,
                        slowdownSourceText(run.choice.pick.source))
                        .str();
          for (auto [i, point] : llvm::enumerate(run.choice.prior))
            remark << (i ? ", " : "") << point->n << " x " << point->k
                   << " at M = " << point->m;
          // Where the points timed none of them, the tactics took the
          // slowdowns of their kernels at other widths or the median: such
          // picks miss more often (docs/tactics.md, "The prior").
          if (run.choice.timedCount)
            remark << "; " << run.choice.timedCount << " of the "
                   << run.choice.rankedCount
                   << " tactics ranked were timed there";
          else {
            remark << "; none of the " << run.choice.rankedCount
                   << " tactics ranked was timed there, so ";
            if (run.choice.otherWidthCount)
              remark << run.choice.otherWidthCount
                     << " took their kernel's slowdown at other widths and "
                        "the rest their median";
            else
              remark << "each took their median";
            remark << " (lamport-tune can time this shape)";
          }
          if (run.choice.pick.byFamilyPrior)
            remark << "; ahead of the runner-up, the other pipeline's best "
                      "and within 10% of it, as the "
                   << (run.choice.pick.tactic.getPipeline() ==
                               GemmPipeline::bulk
                           ? "bulk"
                           : "register")
                   << " pipeline's fastest kernel ran faster there";
        }
        // A run's figures are its last M's, where the pick may trail.
        if (run.choice.kept)
          remark << "; ranked first at M = " << run.firstM
                 << " and kept while within 2% of the first, so that M does "
                    "not switch kernels for less";
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
  // no-table reads no table, so an option that names or uses one would be
  // silently ignored.
  if (noTable && (priorOnly || !tacticTable.empty())) {
    module.emitError() << "lamport-select-tactics: no-table reads no tactic "
                          "table, so it cannot be combined with "
                       << (priorOnly ? "prior-only (which takes the timed "
                                       "points of one)"
                                     : "tactic-table (which names one)");
    return signalPassFailure();
  }
  SmallVector<GemmPublishOp> ops;
  module.walk([&](GemmPublishOp op) { ops.push_back(op); });
  if (ops.empty())
    return;
  // The table is read only where an op has no tactics to keep.
  auto *firstToChoose = llvm::find_if(
      ops, [](GemmPublishOp op) { return op.getTacticList().empty(); });
  bool choosing = firstToChoose != ops.end();
  // The model's figures are needed to choose and to explain.
  if (std::optional<ChipModel> model = ChipModel::get(chip)) {
    chipModel = *model;
  } else if (choosing || explain) {
    // The op that needs them: the first to choose for, else to explain.
    (choosing ? *firstToChoose : ops.front()).emitOpError()
        << "has no cost model for chip '" << chip << "' to "
        << (choosing ? "choose" : "explain")
        << " its tactics with (the model has figures for sm_90 and sm_90a, "
           "the H200, and sm_100, sm_100a and sm_100f, the B200)"
        << (choosing ? ": write its tactics" : "");
    return signalPassFailure();
  }
  std::string path = tacticTable;
  if (noTable)
    noTableReason = "no table read";
  else if (path.empty() && (path = findTacticTable(chip)).empty())
    noTableReason = "no table for " + chip;
  if (choosing && !noTable && !path.empty()) {
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
