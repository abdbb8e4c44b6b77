//===- TacticModel.cpp - Tactic families and their cost model -------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// The register-direct family (GemmPublishKernel.cpp) is memory-bound on the
// weights: its time is the fixed cost of a launch, the weight stream at the
// bandwidth the tactic keeps in flight, x from L2 after the PDL wait, the
// MMAs, the reductions and the epilogue. The figures are fitted to the seed
// shapes' measurements and to two tuner runs over sixteen real-model shapes;
// bench/fit_tactic_model.py mirrors this file, refits the figures and checks
// them (docs/tactics.md, "The cost model"). The bulk-stream family
// (GemmPublishBulk.cpp's own launch shapes) takes the same terms with the
// weight stream from its ring; its own figures are fitted by
// bench/fit_bulk_estimate.py.
//
//===----------------------------------------------------------------------===//

#include "TacticModel.h"

#include "GemmPublishKernel.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mlir::lamport;

std::optional<ChipModel> ChipModel::get(StringRef chip) {
  bool hopper = chip == "sm_90" || chip == "sm_90a";
  bool blackwell = chip == "sm_100" || chip == "sm_100a" || chip == "sm_100f";
  if (!hopper && !blackwell)
    return std::nullopt;
  ChipModel model;
  model.chip = chip.str();
  // B200: 148 SMs and about 1.9x the H200's device-memory bandwidth.
  if (blackwell) {
    model.sms = 148;
    model.dramBytesPerUs = 7.7e6;
    model.l2BytesPerUs = 16e6;
  }
  return model;
}

TacticAttr mlir::lamport::registerTactic(
    MLIRContext *ctx, int64_t splits, int64_t kw, int64_t accs, int64_t tiles,
    int64_t passes, int64_t minCtasPerSm, bool earlyDependents,
    int64_t lateChunks, ArrayRef<int64_t> tokenTiles) {
  // The bulk ring's knobs stay at their defaults, which a register tactic
  // does not print.
  TacticAttr::Knobs knobs;
  knobs.splits = splits;
  knobs.kw = kw;
  knobs.accs = accs;
  knobs.tiles = tiles;
  knobs.passes = passes;
  knobs.minCtasPerSm = minCtasPerSm;
  knobs.earlyDependents = earlyDependents;
  knobs.lateChunks = lateChunks;
  knobs.tokenTiles.assign(tokenTiles.begin(), tokenTiles.end());
  return TacticAttr::get(ctx, knobs);
}

TacticAttr mlir::lamport::withTokenTiles(TacticAttr tactic, int64_t last) {
  TacticAttr::Knobs knobs = tactic.getKnobs();
  knobs.tokenTiles.clear();
  for (int64_t m = 1; m <= last; ++m)
    knobs.tokenTiles.push_back(naturalTokenTile(m));
  return TacticAttr::get(tactic.getContext(), knobs);
}

/// The launch shape of `tactic` for `problem` at `tokenTile`, its bulk
/// stages filled as the generator will fill them.
static GemmLaunchShape launchShape(const GemmProblem &problem,
                                   TacticAttr tactic, int64_t tokenTile) {
  GemmLaunchShape shape =
      GemmLaunchShape::of(tactic, problem.n, problem.k, tokenTile);
  shape.bulkCopies = problem.bulkCopies;
  return shape;
}

std::string mlir::lamport::launchUnsupportedAt(const GemmProblem &problem,
                                               TacticAttr tactic, int64_t m) {
  std::string reason =
      GemmPublishOp::launchUnsupported(problem.n, problem.k, tactic);
  if (reason.empty())
    reason = launchShape(problem, tactic, naturalTokenTile(m)).unsupported();
  return reason;
}

/// Registers a thread of a 32-bit register file holds at most.
static constexpr int64_t kMaxRegisters = 255;
/// Registers and threads of one SM.
static constexpr int64_t kSmRegisters = 65536, kSmThreads = 2048;

/// Where a launch's CTAs live: the register budget each thread gets, the
/// cost of registers past it, the CTAs an SM holds, those resident at once
/// and the waves of them.
struct Residency {
  double spill;
  int64_t perSm, resident, waves;
};

/// The residency of `ctas` CTAs of `threads` threads, each thread wanting
/// `registers` and each CTA `sharedBytes` of shared memory, under the
/// register budget hint `hint` (min_ctas_per_sm).
static Residency residencyOf(const ChipModel &chip, int64_t ctas,
                             int64_t threads, int64_t registers, int64_t hint,
                             int64_t sharedBytes) {
  int64_t budget = std::min<int64_t>(
      kMaxRegisters, kSmRegisters / (threads * std::max<int64_t>(hint, 1)));
  Residency out;
  out.spill = registers > budget
                  ? 1 + chip.spillPer8Registers * (registers - budget) / 8.0
                  : 1;
  out.perSm = std::max<int64_t>(
      std::min<int64_t>({kSmThreads / threads,
                         kSmRegisters / (threads * std::min(registers, budget)),
                         kMaxSharedBytes / (sharedBytes + 1024), 32}),
      1);
  out.resident = std::min(ctas, chip.sms * out.perSm);
  out.waves = (ctas + out.resident - 1) / out.resident;
  return out;
}

/// The MMAs a warp issues once its operands are in (two per chunk for each
/// tile and token block), over the accumulators that take turns; and the
/// reductions: the warps' partials in shared memory, the splits through the
/// cluster, and each further pass's reduce and store before the CTA moves
/// on (8 passes, and passes at o_proj tp16, lose: docs/design/gemm.md).
static double mmaAndReductionsUs(const ChipModel &chip,
                                 const GemmLaunchShape &shape) {
  int64_t tokenBlocks = shape.tokenTile / kTokensPerMma,
          chunks = shape.kw / kChunkK;
  double mma =
      double(chunks * 2 * shape.tiles * tokenBlocks) / shape.accs * chip.mmaUs;
  double reduce = 0.02 + chip.reduceWordUs * shape.warps * shape.tokenTile *
                             shape.featuresPerCta() * shape.passes;
  if (shape.splits > 1)
    reduce += chip.clusterUs + chip.splitUs * (shape.splits - 1);
  reduce += chip.passUs * (shape.passes - 1);
  return mma + reduce;
}

/// The epilogue at `m` tokens: y, and with a publish tp copies of it.
static double epilogueUs(const ChipModel &chip, const GemmProblem &problem,
                         int64_t m) {
  double yBytes = 2.0 * m * problem.n;
  double epilogue = yBytes / chip.l2BytesPerUs;
  if (problem.publishes)
    epilogue += problem.tp * yBytes / chip.publishBytesPerUs;
  return epilogue;
}

/// A launch's fixed cost under PDL, less what early dependents overlap.
static double launchCostUs(const ChipModel &chip, TacticAttr tactic) {
  return chip.launchUs - (tactic.getEarlyDependents() ? chip.earlyUs : 0);
}

//===----------------------------------------------------------------------===//
// The register-direct family
//===----------------------------------------------------------------------===//

/// The sweep's splits and kw: what the seed shapes' sweeps found worth
/// measuring (docs/design/gemm.md: kw 256 and 4 splits at K = 4096 lose).
/// Other (splits, kw) that launch a shape are its candidates only where
/// none of these does.
static constexpr int64_t kSweptSplits[] = {1, 2, 4};
static constexpr int64_t kSweptKw[] = {64, 128};

/// Why the register-direct kernel cannot take `tactic` for [n, k].
static std::string registerUnsupported(int64_t n, int64_t k,
                                       TacticAttr tactic) {
  std::string reason = GemmPublishOp::launchUnsupported(n, k, tactic);
  if (reason.empty() && tactic.getKw() % kChunkK)
    reason = "kw = " + std::to_string(tactic.getKw()) +
             " must be a multiple of 32 (the kernel loads K in chunks of 32)";
  return reason;
}

/// The (splits, kw) pairs whose warps per CTA are 1..32: the swept ones;
/// with `wide` also 8 splits and kw 256; with `any` every splits (1, 2, 4,
/// 8) and kw from K / (splits x warps) that is a multiple of 32.
enum class SweepWidth { swept, wide, any };
static SmallVector<std::pair<int64_t, int64_t>> splitKwPairs(int64_t k,
                                                             SweepWidth width) {
  static constexpr int64_t kWideKw[] = {64, 128, 256};
  SmallVector<std::pair<int64_t, int64_t>> pairs;
  for (int64_t splits : {1, 2, 4, 8})
    for (int64_t warps = GemmPublishOp::kMaxWarps; warps >= 1; --warps) {
      if (k % (splits * warps))
        continue;
      int64_t kw = k / (splits * warps);
      if (kw % kChunkK)
        continue;
      if (width == SweepWidth::swept &&
          (!llvm::is_contained(kSweptSplits, splits) ||
           !llvm::is_contained(kSweptKw, kw)))
        continue;
      if (width == SweepWidth::wide && !llvm::is_contained(kWideKw, kw))
        continue;
      pairs.push_back({splits, kw});
    }
  return pairs;
}

static void enumerateRegister(MLIRContext *ctx, const GemmProblem &problem,
                              int64_t /*tokenTile*/, bool wide,
                              SmallVectorImpl<TacticAttr> &tactics) {
  auto sweep = [&](SweepWidth width) {
    for (auto [splits, kw] : splitKwPairs(problem.k, width))
      for (int64_t passes : {1, 2, 4}) {
        if (passes > 1 && splits > 1)
          continue;
        for (int64_t tiles : {1, 2, 4})
          for (int64_t accs : {1, 2, 4})
            for (int64_t hint : {0, 1})
              for (bool early : {false, true})
                for (int64_t late : {0, 1, 2}) {
                  if (late * kChunkK >= kw)
                    continue;
                  auto tactic = registerTactic(ctx, splits, kw, accs, tiles,
                                               passes, hint, early, late);
                  if (registerUnsupported(problem.n, problem.k, tactic).empty())
                    tactics.push_back(tactic);
                }
      }
  };
  size_t before = tactics.size();
  sweep(wide ? SweepWidth::wide : SweepWidth::swept);
  if (tactics.size() == before)
    sweep(SweepWidth::any);
}

static bool ownsRegister(TacticAttr tactic) {
  return tactic.getPipeline() == GemmPipeline::registers;
}

/// The register-direct kernel's time at `m` tokens.
static double estimateRegister(const ChipModel &chip,
                               const GemmProblem &problem, TacticAttr tactic,
                               int64_t m) {
  GemmLaunchShape shape = launchShape(problem, tactic, naturalTokenTile(m));
  int64_t threads = shape.threads(), ctas = shape.gridX() * shape.splits;
  int64_t tokenBlocks = shape.tokenTile / kTokensPerMma,
          chunks = shape.kw / kChunkK;

  // Registers: the weight fragments in flight (twice with several passes),
  // the accumulators, one x fragment per token block, and the rest.
  int64_t weightRegisters =
      chunks * shape.tiles * 8 * (shape.passes > 1 ? 2 : 1);
  int64_t registers = chip.baseRegisters + weightRegisters +
                      shape.accs * shape.tiles * tokenBlocks * 4 +
                      tokenBlocks * 4;
  int64_t hint = tactic.getMinCtasPerSm();
  auto [spill, perSm, resident, waves] =
      residencyOf(chip, ctas, threads, registers, hint, shape.sharedBytes());
  int64_t activeSms = std::min(ctas, chip.sms);

  // The weight stream: what the resident CTAs keep in flight over the
  // latency, what the SMs in use can pull, what the memory gives; each
  // further wave idles an SM while a CTA drains and the next ramps, which
  // the SM's other CTAs partly hide.
  double weightBytes = 2.0 * problem.n * problem.k;
  double ctaBytes = 2.0 * (problem.k / shape.splits) * shape.featuresPerCta() *
                    (shape.passes > 1 ? 2 : 1);
  double bandwidth =
      std::min({chip.dramBytesPerUs, resident * ctaBytes / chip.latencyUs,
                activeSms * chip.smBytesPerUs});
  double stream = weightBytes / bandwidth * chip.streamOverFloor +
                  (waves - 1) * chip.waveUs / perSm;
  // Without the register budget hint ptxas keeps registers low and issues
  // some weight loads late.
  if (!hint)
    stream *= chip.noHintFactor;

  // x from L2 after the wait: every CTA of a split reads its K slice of M
  // rows, once for all passes; late chunks overlap part of it. More tiles
  // a CTA mean fewer CTAs reading x, but the time falls slower than the
  // bytes (measured: docs/tactics.md, "The cost model").
  double xBytes = 2.0 * shape.gridX() * m * problem.k;
  double activations = xBytes / chip.l2BytesPerUs *
                       std::pow(shape.tiles, 1.0 - chip.xTileSaving);
  int64_t late = tactic.getLateChunks();
  // Two late chunks hide less of x with 16-token tiles (measured:
  // docs/tactics.md, "The cost model").
  double lateOverlap = late == 1                         ? chip.lateOverlap1
                       : shape.tokenTile > kTokensPerMma ? chip.lateOverlap2Wide
                                                         : chip.lateOverlap2;
  double lateGain = late ? activations * lateOverlap : 0;
  // Each late chunk is one more round of loads behind x, of every tile: its
  // bytes per warp grow with the tiles, and so does the part of it the rest
  // of the stream does not hide.
  double lateCost = chip.lateChunkUs * late * shape.tiles;

  return launchCostUs(chip, tactic) +
         (stream + activations - lateGain + lateCost +
          mmaAndReductionsUs(chip, shape)) *
             spill +
         epilogueUs(chip, problem, m);
}

static std::string whyNotRegister(MLIRContext *ctx,
                                  const GemmProblem &problem) {
  SmallVector<TacticAttr> tactics;
  enumerateRegister(ctx, problem, /*tokenTile=*/8, /*wide=*/false, tactics);
  if (!tactics.empty())
    return "";
  // The rules of the launch, at the tactic that asks the least of the shape:
  // one tile, and the most CTAs x warps that divide K's chunks of 32, so that
  // a thread holds the fewest.
  constexpr int64_t maxWarps = GemmPublishOp::kMaxWarps;
  bool nTiles = problem.n > 0 && problem.n % kFeaturesPerTile == 0;
  int64_t chunks =
      problem.k > 0 && problem.k % kChunkK == 0 ? problem.k / kChunkK : 0;
  if (nTiles && !chunks)
    return llvm::formatv("K = {0} must be a positive multiple of {1} (the "
                         "kernels load K in chunks of {1}: 16 bytes of a "
                         "weight row a lane)",
                         problem.k, kChunkK);
  // Of every (splits, kw) the kernels accept, the least kw (the first, of
  // fewer splits, where two tie); none where K is no whole chunks.
  int64_t splits = 1, kw = kChunkK;
  auto pairs = splitKwPairs(problem.k, SweepWidth::any);
  if (!pairs.empty())
    std::tie(splits, kw) = *llvm::min_element(
        pairs, [](auto &a, auto &b) { return a.second < b.second; });
  auto tactic = registerTactic(ctx, splits, kw, 1, 1, 1, 0, false, 0, {8});
  std::string reason = registerUnsupported(problem.n, problem.k, tactic);
  if (reason.empty())
    return llvm::formatv("K = {0} is no splits (1, 2, 4, 8) x 1..{1} warps "
                         "x a multiple of {2}",
                         problem.k, maxWarps, kChunkK)
        .str();
  // Too many chunks a thread: say how few ways K's chunks divide.
  if (nTiles && kw / kChunkK > GemmPublishOp::kMaxHeldChunks)
    return llvm::formatv("K = {0} is {1} chunks of {2}, which splits (1, 2, "
                         "4, 8) x warps (1..{3}) divide by at most {4}: {5}",
                         problem.k, chunks, kChunkK, maxWarps, problem.k / kw,
                         reason)
        .str();
  return reason;
}

//===----------------------------------------------------------------------===//
// The bulk pipeline's rings
//===----------------------------------------------------------------------===//

/// Appends the bulk tactics of register tactic `launch`'s launch shape for
/// `problem` (its splits, kw, accs, tiles, passes, budget hint and early
/// dependents) with rings of about each of `ringBytes` in stages of about
/// 32 KiB, the stage's copies issued by up to 32 producer lanes; each one
/// the bulk kernel launches at both token tiles.
static void appendRings(const GemmProblem &problem, TacticAttr launch,
                        ArrayRef<int64_t> ringBytes,
                        ArrayRef<int64_t> tokenTiles,
                        SmallVectorImpl<TacticAttr> &tactics) {
  constexpr int64_t kStageTargetBytes = 32 * 1024;
  GemmLaunchShape shape = launchShape(problem, launch, 16);
  // A stage holds j of each warp's chunks of 32 K, j dividing its chunks:
  // the largest stage up to the target, else the smallest.
  int64_t rows = shape.featuresPerCta(), chunks = shape.kw / kChunkK;
  int64_t stageBytes = 0;
  for (int64_t j = 1; j <= chunks; ++j) {
    if (chunks % j)
      continue;
    int64_t bytes = rows * 2 * j * kChunkK * shape.warps;
    if (!stageBytes || bytes <= kStageTargetBytes)
      stageBytes = bytes;
  }
  shape.bulk = true;
  shape.lateChunks = 0;
  shape.stageBytes = stageBytes;
  int64_t loads = shape.passes * shape.stagesPerPass();
  for (int64_t ring : ringBytes) {
    // At least two stages where there are two loads, so one fills while
    // the other is read.
    shape.stages = std::clamp<int64_t>((ring + stageBytes / 2) / stageBytes,
                                       std::min<int64_t>(loads, 2),
                                       std::min<int64_t>(loads, 16));
    shape.producerLanes = std::min<int64_t>(shape.copiesPerStage(), 32);
    GemmLaunchShape wide = shape, narrow = shape;
    wide.tokenTile = 16;
    narrow.tokenTile = 8;
    if (!wide.bulkUnsupported().empty() || !narrow.bulkUnsupported().empty())
      continue;
    TacticAttr::Knobs knobs = launch.getKnobs();
    knobs.lateChunks = 0;
    knobs.pipeline = GemmPipeline::bulk;
    knobs.stages = shape.stages;
    knobs.stageBytes = shape.stageBytes;
    knobs.producerLanes = shape.producerLanes;
    knobs.tokenTiles.assign(tokenTiles.begin(), tokenTiles.end());
    auto tactic = TacticAttr::get(launch.getContext(), knobs);
    if (!llvm::is_contained(tactics, tactic))
      tactics.push_back(tactic);
  }
}

void mlir::lamport::appendBulkVariants(MLIRContext *ctx,
                                       const GemmProblem &problem,
                                       TacticAttr tactic,
                                       SmallVectorImpl<TacticAttr> &variants) {
  appendRings(problem, tactic, {64 * 1024, 128 * 1024}, tactic.getTokenTiles(),
              variants);
}

TacticAttr mlir::lamport::earlyReadsTwin(const GemmProblem &problem,
                                         TacticAttr tactic) {
  if (tactic.getPipeline() != GemmPipeline::bulk || tactic.getEarlyReads())
    return nullptr;
  GemmLaunchShape shape = launchShape(problem, tactic, 16);
  // A ring the kernel refuses has no loads to count.
  if (!shape.bulkUnsupported().empty())
    return nullptr;
  int64_t rule = shape.earlyReadLoads();
  shape.earlyReads = shape.passes > 1 ? shape.budgetedEarlyReads() : 0;
  int64_t twin = shape.earlyReadLoads();
  if (twin == rule)
    return nullptr;
  TacticAttr::Knobs knobs = tactic.getKnobs();
  knobs.earlyReads = unsigned(twin);
  return TacticAttr::get(tactic.getContext(), knobs);
}

int64_t mlir::lamport::earlyReadLoads(const GemmProblem &problem,
                                      TacticAttr tactic) {
  if (tactic.getPipeline() != GemmPipeline::bulk)
    return 0;
  GemmLaunchShape shape = launchShape(problem, tactic, 16);
  // A ring the kernel refuses has no loads to count: its count as written.
  if (!shape.bulkUnsupported().empty())
    return tactic.getEarlyReads() ? int64_t(*tactic.getEarlyReads()) : -1;
  return shape.earlyReadLoads();
}

/// The least grid of the bulk pipeline's own launch shapes: enough CTAs for
/// about half of an H200's 132 SMs. Grids of 64-95 (72 at N = 4608 with two
/// tiles in 2 passes) were the better picks where a least grid of 96 left
/// them out (docs/tactics.md, "The bulk pipeline's estimate").
static constexpr int64_t kBulkMinCtas = 64;

void mlir::lamport::appendBulkLaunches(MLIRContext *ctx,
                                       const GemmProblem &problem,
                                       int64_t tokenTile,
                                       ArrayRef<int64_t> tokenTiles,
                                       SmallVectorImpl<TacticAttr> &tactics) {
  // Registers of a thread besides x and the sums (addresses, the ring's
  // phases, the loop).
  constexpr int64_t kOtherRegisters = 24;
  int64_t tokenBlocks = tokenTile / kTokensPerMma;
  int64_t accs = tokenTile > 8 ? 1 : 2;
  for (int64_t warps : {4, 8, 16}) {
    if (problem.k % (warps * kChunkK))
      continue;
    int64_t kw = problem.k / warps;
    for (int64_t passes : {2, 4, 8})
      for (int64_t tiles : {1, 2}) {
        int64_t rows = kFeaturesPerTile * tiles;
        if (problem.n % (rows * passes) ||
            problem.n / (rows * passes) < kBulkMinCtas)
          continue;
        // x of every chunk and the sums stay in registers for all passes.
        int64_t registers = kOtherRegisters + kw / kChunkK * tokenBlocks * 4 +
                            tiles * tokenBlocks * 4 * accs;
        if (registers >
            std::min<int64_t>(kMaxRegisters, kSmRegisters / (warps * 32)))
          continue;
        auto launch = registerTactic(ctx, /*splits=*/1, kw, accs, tiles, passes,
                                     /*minCtasPerSm=*/1,
                                     /*earlyDependents=*/true, 0);
        if (!registerUnsupported(problem.n, problem.k, launch).empty())
          continue;
        appendRings(problem, launch, {96 * 1024, 128 * 1024, 192 * 1024},
                    tokenTiles, tactics);
      }
  }
}

//===----------------------------------------------------------------------===//
// The bulk-stream family: the bulk pipeline's own launch shapes
//===----------------------------------------------------------------------===//

static void enumerateBulk(MLIRContext *ctx, const GemmProblem &problem,
                          int64_t tokenTile, bool /*wide*/,
                          SmallVectorImpl<TacticAttr> &tactics) {
  appendBulkLaunches(ctx, problem, tokenTile, /*tokenTiles=*/{}, tactics);
}

static bool ownsBulk(TacticAttr tactic) {
  return tactic.getPipeline() == GemmPipeline::bulk;
}

/// The bulk kernel's time at `m` tokens: the register kernel's launch, x,
/// MMAs, reductions and epilogue, with the weight stream from the ring: the
/// bytes a CTA keeps in flight are its ring (a stage less where it is
/// refilled) over a copy's round trip, which adds to the device's own time
/// for the bytes; the GPU completes only so many copies a microsecond.
static double estimateBulk(const ChipModel &chip, const GemmProblem &problem,
                           TacticAttr tactic, int64_t m) {
  GemmLaunchShape shape = launchShape(problem, tactic, naturalTokenTile(m));
  // A ring the kernel refuses (a written tactic) has no estimate.
  if (!shape.bulkUnsupported().empty())
    return std::nan("");
  int64_t threads = shape.threads(), ctas = shape.gridX() * shape.splits;
  int64_t tokenBlocks = shape.tokenTile / kTokensPerMma,
          chunks = shape.kw / kChunkK;
  int64_t rows = shape.featuresPerCta();

  // Registers: x of every chunk, the sums, one chunk's weight fragments.
  int64_t registers = chip.baseRegisters + chunks * tokenBlocks * 4 +
                      shape.accs * shape.tiles * tokenBlocks * 4 +
                      shape.tiles * 8;
  auto [spill, perSm, resident, waves] =
      residencyOf(chip, ctas, threads, registers, tactic.getMinCtasPerSm(),
                  shape.dynamicSharedBytes());

  // The stream: the ring's bytes in flight (a stage less where it is
  // refilled) over the round trip, beside the device's bandwidth; and the
  // copy count, where short row copies bound it.
  int64_t loads = shape.passes * shape.stagesPerPass();
  double share = 2.0 * (problem.k / shape.splits) * rows * shape.passes;
  double stage = 2.0 * rows * shape.stageK();
  double inFlight =
      std::min(share, stage * (loads <= shape.stages
                                   ? double(shape.stages)
                                   : std::max(shape.stages - 1.0, 0.5)));
  double weightBytes = 2.0 * problem.n * problem.k;
  double bytesUs = weightBytes / chip.dramBytesPerUs +
                   weightBytes * chip.bulkLatencyUs / (resident * inFlight);
  double copies = double(ctas) * loads * shape.copiesPerStage();
  double stream = std::max(bytesUs, copies / chip.bulkCopiesPerUs) +
                  (waves - 1) * chip.waveUs / perSm;

  // x from L2 once for every pass; the MMAs, reductions, epilogue and
  // launch as in the register kernel, with the ring's set-up.
  double activations = 2.0 * shape.gridX() * m * problem.k / chip.l2BytesPerUs;
  return launchCostUs(chip, tactic) + chip.bulkSetupUs +
         (stream + activations + mmaAndReductionsUs(chip, shape)) * spill +
         epilogueUs(chip, problem, m);
}

static std::string whyNotBulk(MLIRContext *ctx, const GemmProblem &problem) {
  SmallVector<TacticAttr> tactics;
  for (int64_t tokenTile : {8, 16})
    enumerateBulk(ctx, problem, tokenTile, /*wide=*/false, tactics);
  if (!tactics.empty())
    return "";
  // A K the bulk launches' 16 warps of one split cannot hold: x of more
  // chunks than a thread may hold.
  int64_t kw =
      llvm::divideCeil(std::max<int64_t>(problem.k, 1), 16 * kChunkK) * kChunkK;
  if (kw > GemmPublishOp::kMaxHeldChunks * kChunkK) {
    TacticAttr::Knobs knobs;
    knobs.kw = kw;
    knobs.accs = 1;
    knobs.pipeline = GemmPipeline::bulk;
    knobs.tokenTiles = {8};
    return GemmPublishOp::launchUnsupported(problem.n, problem.k,
                                            TacticAttr::get(ctx, knobs));
  }
  // The MMA's rows and K chunks bind both kernels.
  std::string shared = whyNotRegister(ctx, problem);
  if (!shared.empty())
    return shared;
  return "no launch of one split, 4, 8 or 16 warps and 2, 4 or 8 passes "
         "leaves " +
         std::to_string(kBulkMinCtas) + " CTAs with a ring that fits";
}

ArrayRef<TacticFamily> mlir::lamport::getTacticFamilies() {
  static const TacticFamily families[] = {
      {"register-direct", enumerateRegister, ownsRegister, estimateRegister,
       whyNotRegister},
      {"bulk-stream", enumerateBulk, ownsBulk, estimateBulk, whyNotBulk},
  };
  return families;
}

const TacticFamily &mlir::lamport::getTacticFamily(TacticAttr tactic) {
  for (const TacticFamily &family : getTacticFamilies())
    if (family.owns(tactic))
      return family;
  return getTacticFamilies().front();
}
