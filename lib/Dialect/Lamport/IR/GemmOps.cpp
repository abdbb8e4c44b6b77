//===- GemmOps.cpp - The small-M GEMM with a publish epilogue -------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#include "lamport/Dialect/Lamport/IR/Lamport.h"
#include "lamport/Dialect/Lamport/IR/Verification.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::lamport;

/// K of one mma.sync.m16n8k16.
static constexpr int64_t kBlockK = 16;
/// Most CTAs one SM holds on sm_90 and sm_100a: the ceiling of
/// `.minnctapersm`.
static constexpr unsigned kMaxCtasPerSm = 32;

std::string GemmPublishOp::launchUnsupported(int64_t n, int64_t k,
                                             TacticAttr tactic) {
  unsigned splits = tactic.getSplits(), kw = tactic.getKw(),
           accs = tactic.getAccs(), tiles = tactic.getTiles();
  if (!llvm::is_contained({1u, 2u, 4u}, tiles))
    return llvm::formatv("tiles = {0} must be one of 1, 2, 4", tiles);
  // One tile keeps its message; several name the tiles that round N up.
  if (tiles == 1 && (n <= 0 || n % kFeaturesPerTile))
    return llvm::formatv("N = {0} must be a positive multiple of {1} (the "
                         "MMA's weight rows per CTA)",
                         n, kFeaturesPerTile);
  int64_t featuresPerCta = kFeaturesPerTile * tiles;
  if (n <= 0 || n % featuresPerCta)
    return llvm::formatv("N = {0} must be a positive multiple of {1} (the "
                         "MMA's {2} weight rows x {3} tiles per CTA)",
                         n, featuresPerCta, kFeaturesPerTile, tiles);
  unsigned passes = tactic.getPasses();
  if (!llvm::is_contained({1u, 2u, 4u, 8u}, passes))
    return llvm::formatv("passes = {0} must be one of 1, 2, 4, 8", passes);
  if (n % (featuresPerCta * passes))
    return llvm::formatv("N = {0} must be a multiple of {1} (the MMA's {2} "
                         "weight rows x {3} tiles x {4} passes per CTA)",
                         n, featuresPerCta * passes, kFeaturesPerTile, tiles,
                         passes);
  if (!llvm::is_contained({1u, 2u, 4u, 8u}, splits))
    return llvm::formatv("splits = {0} must be one of 1, 2, 4, 8", splits);
  if (passes > 1 && splits != 1)
    return llvm::formatv("passes = {0} needs splits = 1 (the split-K sums "
                         "reach rank 0 once per launch), not {1}",
                         passes, splits);
  if (!llvm::is_contained({1u, 2u, 4u}, accs))
    return llvm::formatv("accs = {0} must be one of 1, 2, 4", accs);
  if (tactic.getMinCtasPerSm() > kMaxCtasPerSm)
    return llvm::formatv("min_ctas_per_sm = {0} must be at most {1} (the most "
                         "CTAs one SM holds), or 0 for no hint",
                         tactic.getMinCtasPerSm(), kMaxCtasPerSm);
  if (kw == 0 || kw % kBlockK)
    return llvm::formatv("kw = {0} must be a positive multiple of {1} (the "
                         "MMA's K)",
                         kw, kBlockK);
  bool bulk = tactic.getPipeline() == GemmPipeline::bulk;
  int64_t heldChunks = llvm::divideCeil(kw, kChunkK) * (bulk ? 1 : tiles);
  if (heldChunks > kMaxHeldChunks)
    return llvm::formatv(
        "kw = {0}{1} holds {2} chunks of {3} K in a thread ({4}); at most {5}: "
        "past that the kernel spills them and its compile time grows as the "
        "square of their count",
        kw,
        bulk || tiles == 1 ? "" : llvm::formatv(" x tiles = {0}", tiles).str(),
        heldChunks, kChunkK,
        bulk ? "the bulk pipeline holds x of each"
             : "the register pipeline holds the weights of each",
        kMaxHeldChunks);
  if (int64_t(tactic.getLateChunks()) * kChunkK >= kw)
    return llvm::formatv("late_chunks = {0} must leave a chunk before the PDL "
                         "wait: {0} x {1} K must be less than kw = {2}",
                         tactic.getLateChunks(), kChunkK, kw);
  if (std::optional<unsigned> early = tactic.getEarlyReads()) {
    if (tactic.getPipeline() != GemmPipeline::bulk)
      return llvm::formatv("early_reads = {0} needs pipeline = bulk (the "
                           "register pipeline loads every weight before the "
                           "PDL wait)",
                           *early);
    if (*early > tactic.getStages())
      return llvm::formatv("early_reads = {0} must be at most stages = {1}: "
                           "a load past the ring's first fill is copied only "
                           "after the PDL wait",
                           *early, tactic.getStages());
  }
  // The ring's knobs on the register pipeline would be ignored: a tactic
  // written as bulk that lost its `pipeline = bulk` must not run silently
  // as another kernel.
  if (tactic.getPipeline() != GemmPipeline::bulk) {
    TacticAttr::Knobs defaults;
    for (auto [name, value, byDefault] :
         {std::tuple("stages", tactic.getStages(), defaults.stages),
          std::tuple("stage_bytes", tactic.getStageBytes(),
                     defaults.stageBytes),
          std::tuple("producer_lanes", tactic.getProducerLanes(),
                     defaults.producerLanes)})
      if (value != byDefault)
        return llvm::formatv("{0} = {1} needs pipeline = bulk (the register "
                             "pipeline has no ring)",
                             name, value);
  }
  if (k % (int64_t(splits) * kw))
    return llvm::formatv("K = {0} does not split into {1} x warps x {2}", k,
                         splits, kw);
  int64_t warps = k / (int64_t(splits) * kw);
  if (warps < 1 || warps > kMaxWarps)
    return llvm::formatv("{0} warps per CTA; needs 1..{1} (K / (splits * kw))",
                         warps, kMaxWarps);
  return "";
}

int64_t GemmPublishOp::getMaxTokens() {
  if (getMailbox())
    return getMailbox().getType().getMaxTokens();
  return LamportDialect::kMaxTokens;
}

TacticAttr GemmPublishOp::getTacticFor(int64_t m) {
  SmallVector<TacticAttr> tactics = getTacticList();
  if (tactics.empty())
    return nullptr;
  for (TacticAttr tactic : tactics)
    if (int64_t(tactic.getTokenTiles().size()) >= m)
      return tactic;
  return tactics.back();
}

int64_t GemmPublishOp::getNeededTokens() {
  std::optional<int64_t> xm = staticDim(getX().getType(), 0),
                         ym = staticDim(getY().getType(), 0);
  return xm ? *xm : ym ? *ym : getMaxTokens();
}

/// Token tiles the kernel is generated for.
static bool isTokenTile(int64_t tile) { return tile == 8 || tile == 16; }

LogicalResult GemmPublishOp::verify() {
  MemRefType xType = getX().getType(), wType = getWeight().getType(),
             yType = getY().getType();
  if (wType.isDynamicDim(0) || wType.isDynamicDim(1))
    return emitOpError() << "the weight must have a static [N, K] shape, got "
                         << wType;
  int64_t n = wType.getDimSize(0), k = wType.getDimSize(1);
  if (auto xk = staticDim(xType, 1); !xk || *xk != k)
    return emitOpError() << "x " << xType << " must be [M, K] with K = " << k
                         << " (the weight's K)";
  if (auto yn = staticDim(yType, 1); !yn || *yn != n)
    return emitOpError() << "y " << yType << " must be [M, N] with N = " << n
                         << " (the weight's N)";
  std::optional<int64_t> xm = staticDim(xType, 0), ym = staticDim(yType, 0);
  if (xm && ym && *xm != *ym)
    return emitOpError() << "x has M = " << *xm << " but y has M = " << *ym;

  if (getTicket() && !getMailbox())
    return emitOpError() << "a ticket stage needs a mailbox";
  if (getTicket() && getTicket().getType().getDimSize(0) != 1)
    return emitOpError() << "the ticket must be int32 [1], got "
                         << getTicket().getType();
  if (getTransport() && !getMailbox())
    return emitOpError() << "a transport needs a mailbox to publish into";
  if (getMailbox()) {
    MailboxType mailbox = getMailbox().getType();
    if (int64_t(mailbox.getWidth()) != n)
      return emitOpError() << "mailbox width " << mailbox.getWidth()
                           << " != GEMM N " << n;
  }

  SmallVector<TacticAttr> tactics = getTacticList();
  // One tactic keeps its messages as they were; several name the one at
  // fault by its place in the list.
  auto named = [&](size_t i) {
    return tactics.size() == 1 ? std::string()
                               : llvm::formatv("tactic {0}: ", i).str();
  };
  for (auto [i, tactic] : llvm::enumerate(tactics)) {
    std::string reason = launchUnsupported(n, k, tactic);
    if (!reason.empty())
      return emitOpError() << named(i) << reason;
  }

  if (failed(verifyTokens(*this, xType, "x", getMaxTokens())) ||
      failed(verifyTokens(*this, yType, "y", getMaxTokens())))
    return failure();
  // Without tactics the op is complete as a program; lamport-select-tactics
  // gives it some before kernel generation.
  if (tactics.empty())
    return success();
  // Each tactic serves the M past the previous one's, up to the op's bound;
  // the token tiles must cover every M a launch can carry: x's (or y's)
  // static M alone where it has one, else 1..the bound.
  int64_t maxTokens = getMaxTokens();
  int64_t neededTokens = getNeededTokens();
  // Each tactic serves the M past the previous one's token_tiles, up to its
  // own: a list no longer than the previous one would serve none.
  int64_t served = 0;
  for (auto [i, tactic] : llvm::enumerate(tactics)) {
    int64_t covers = tactic.getTokenTiles().size();
    if (i > 0 && (covers <= served || served >= maxTokens))
      return emitOpError() << named(i)
                           << "serves no M: its token_tiles cover M 1.."
                           << covers
                           << " and earlier tactics already serve M 1.."
                           << served
                           << (served >= maxTokens ? " (every M the op takes)"
                                                   : "");
    served = covers;
  }
  // token_tiles[m - 1] serves m tokens: a generated tile of at least m.
  auto isTileFor = [](int64_t tile, int64_t m) {
    return isTokenTile(tile) && tile >= m;
  };
  for (auto [i, tactic] : llvm::enumerate(tactics)) {
    ArrayRef<int64_t> tiles = tactic.getTokenTiles();
    bool last = i + 1 == tactics.size();
    bool covered = !last || int64_t(tiles.size()) >= neededTokens;
    int64_t checked = std::min<int64_t>(tiles.size(), neededTokens);
    for (int64_t m = 1; covered && m <= checked; ++m)
      covered = isTileFor(tiles[m - 1], m);
    if (!covered) {
      InFlightDiagnostic diag = emitOpError() << named(i) << "token tiles [";
      llvm::interleaveComma(tiles, diag);
      return diag << "] do not cover M 1.." << (last ? neededTokens : checked)
                  << ": token_tiles[m - 1] must be 8 or 16 and at least m";
    }
    // Entries past the M the op needs are never launched, but one that is
    // no tile there is a typo, not a choice: refuse it too, and a 17th.
    if (int64_t(tiles.size()) > int64_t(LamportDialect::kMaxTokens))
      return emitOpError() << named(i) << "token_tiles has " << tiles.size()
                           << " entries; a launch carries at most "
                           << LamportDialect::kMaxTokens << " tokens";
    for (int64_t m = checked + 1; m <= int64_t(tiles.size()); ++m)
      if (!isTileFor(tiles[m - 1], m))
        return emitOpError()
               << named(i) << "token_tiles[" << m - 1 << "] = " << tiles[m - 1]
               << " is not a token tile for M = " << m
               << " (8 or 16 and at least M): entries no launch uses must "
                  "be valid too";
  }
  return success();
}

void GemmPublishOp::getBufferRoles(SmallVectorImpl<BufferRole> &roles) {
  roles.push_back({getWeight(), "weight", BufferAccess::Read, std::nullopt});
  roles.push_back({getX(), "x", BufferAccess::Read, 0u});
  roles.push_back({getY(), "y", BufferAccess::Write, 0u});
  if (getTicket())
    roles.push_back({getTicket(), "ticket", BufferAccess::Read, std::nullopt});
}

MailboxUse GemmPublishOp::getMailboxUse() {
  // Without a mailbox the op is a plain GEMM.
  return {getMailbox(), /*publishes=*/bool(getMailbox()), /*consumes=*/false};
}
