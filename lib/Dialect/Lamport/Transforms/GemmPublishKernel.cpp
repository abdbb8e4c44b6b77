//===- GemmPublishKernel.cpp - The small-M GEMM with a publish epilogue ---===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// lamport.gemm_publish as a kernel: y[M, N] = x[M, K] @ W[N, K]^T for
// 1 <= M <= 16, memory-bound on the weight, so the whole design is about
// keeping enough weight bytes in flight and touching each byte once.
//
// Grid (N / (16 R P), splits) for R = `tiles` and P = `passes`, a cluster
// of `splits` CTAs along y. CTA (t, s) owns output features [16RPt,
// 16RP(t + 1)) (P blocks of R tiles of 16) and the K slice s; each of its
// warps owns `kw` consecutive K of that slice. Every lane loads its operands
// straight into registers with 16-byte loads, weights before
// griddepcontrol.wait (but for the tactic's late chunks, loaded behind x)
// and activations after it, and feeds mma.sync.m16n8k16 (A = 16 weight rows
// of one tile, B = 8 tokens). The R tiles' MMAs of one step
// share the B operand: x is loaded once per CTA for 16R features instead of 16,
// which divides the activation traffic from L2 by R and puts R times the weight
// bytes in flight per CTA.
//
// Register-direct operands: within each 32-wide K chunk, lane (g, t) of a
// warp (g = lane / 4, t = lane % 4) loads the 8 consecutive K [8t, 8t + 8)
// of weight rows g and g + 8 and of token g. mma.sync expects lane (g, t) to
// hold K {2t, 2t+1, 2t+8, 2t+9} of its rows; since a dot product does not
// care in which order K is summed, we let the MMA's logical K slots stand
// for a permutation of the physical K, the same one for A and B: the first
// four loaded K feed the chunk's first MMA, the last four its second.
//
// Reduction: each warp writes its [token tile, 16R] FP32 partial to shared
// memory; the CTA sums its warps in warp order; every other cluster rank
// sends its sum into rank 0's shared memory (lamport.cluster.send), whose
// bytes complete rank 0's mbarrier (lamport.cluster.expect_bytes, released
// to the cluster before the weight loads, so no cluster barrier waits at
// the tail); rank 0
// sums the splits in split order, rounds to BF16 and stores y. The order
// depends only on splits, kw and accs (not on R or the passes: a feature's
// sums are the same whichever tile or pass holds it), so runs are bitwise
// reproducible and every such variant gives the bits of R = 1.
//
// Passes: with `passes` P > 1 (one split only) a CTA takes P consecutive
// blocks of 16R features in turn. x is loaded once for all of them; the
// next block's weights are loaded before the current block's MMAs, so they
// fly while it multiplies, reduces and stores (two sets of weight
// registers); the grid is P times smaller, which fits o_proj's 512 blocks
// in one wave.
// With a mailbox, rank 0 also publishes y, one 16-byte fragment per thread
// (lamport.mailbox.publish: -0.0 stored as +0.0) and sets ACTIVE, the bytes
// and stage word lamport.publish_rows would write; with a ticket the stage
// is the ticket's and no stage word is written.
//
// The reduction and the epilogue are in GemmPublishReduction.cpp; the
// kernels of an op and their launches in GemmPublishGeneration.cpp.
//
//===----------------------------------------------------------------------===//

#include "GemmPublishKernel.h"
#include "KernelGeneration.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::lamport;

GemmLaunchShape GemmLaunchShape::of(TacticAttr tactic, int64_t n, int64_t k,
                                    int64_t tokenTile) {
  GemmLaunchShape shape;
  shape.n = n;
  shape.k = k;
  shape.splits = tactic.getSplits();
  shape.kw = tactic.getKw();
  shape.accs = tactic.getAccs();
  shape.tiles = tactic.getTiles();
  shape.passes = tactic.getPasses();
  shape.warps = k / (shape.splits * shape.kw);
  shape.earlyDependents = tactic.getEarlyDependents();
  shape.lateChunks = tactic.getLateChunks();
  shape.tokenTile = tokenTile;
  if (tactic.getPipeline() == GemmPipeline::bulk) {
    shape.bulk = true;
    shape.stages = tactic.getStages();
    shape.stageBytes = tactic.getStageBytes();
    shape.producerLanes = tactic.getProducerLanes();
    if (std::optional<unsigned> early = tactic.getEarlyReads())
      shape.earlyReads = *early;
  }
  return shape;
}

std::string GemmLaunchShape::unsupported() const {
  if (bulk) {
    std::string reason = bulkUnsupported();
    if (!reason.empty())
      return reason;
  }
  if (kw % kChunkK)
    return llvm::formatv("kw = {0}: the generated kernel loads K in chunks of "
                         "{1} (16 bytes per lane), so kw must be a multiple "
                         "of {1}",
                         kw, kChunkK);
  if (tokenTile != 8 && tokenTile != 16)
    return llvm::formatv("token tile {0} must be 8 or 16", tokenTile);
  // The verifier's bounds (32 warps, 8 splits, 4 tiles) keep the reduction
  // within (32 + 8) x 16 x 64 x 4 bytes = 160 KiB: past the static budget
  // it moves to dynamic shared memory, which always has room for it.
  assert(sharedBytes() <= kMaxSharedBytes - kOtherSharedBytes &&
         "the op's verifier bounds warps, splits and tiles");
  return "";
}

Value GemmBodyBuilder::elementAddress(Value base, Value index, Type elementType,
                                      Type ptrTy) {
  // Weights reach 2^31 bytes only past 1G elements; index in 64 bits anyway
  // so the products never wrap.
  Value wide = arith::ExtUIOp::create(b, b.getI64Type(), index);
  return LLVM::GEPOp::create(b, ptrTy, elementType, base, ValueRange{wide},
                             LLVM::GEPNoWrapFlags::inbounds);
}

Value GemmBodyBuilder::loadFragment(Value base, Value index, bool invariant) {
  Value address = elementAddress(base, index, b.getBF16Type(), globalPtr);
  if (invariant)
    return LoadFragmentOp::create(b, address, weightPolicy);
  return LLVM::LoadOp::create(b, fragmentWords, address, /*alignment=*/16);
}

void GemmBodyBuilder::build(gpu::GPUModuleOp module) {
  if (shape.bulk)
    return buildBulk(module);
  createReductionBuffers(module);
  computeLaneCoordinates();
  weightPolicy = EvictFirstPolicyOp::create(b);
  if (shape.splits > 1)
    initSplitBarrier(module);

  // With early dependents the next kernel may launch now: its CTAs take
  // the SMs this grid leaves free and issue their weight loads while this
  // one streams its own (pays where this grid fills the SMs, docs/design/
  // gemm.md).
  if (values.pdl && shape.earlyDependents)
    NVVM::GriddepcontrolOp::create(b,
                                   NVVM::GridDepActionKind::launch_dependents);
  // Weights first: they do not depend on the previous kernel, so with PDL
  // their loads overlap its tail.
  // Two sets of weight fragments: with several passes, the next pass's
  // loads fly while the current pass multiplies and reduces.
  // With late chunks, the warp's last chunks load after x instead (below).
  Fragments upperRows[2], lowerRows[2];
  int64_t earlyChunks = chunks - shape.lateChunks;
  loadWeights(passFeature(0), upperRows[0], lowerRows[0], 0, earlyChunks);
  waitForPredecessor();
  // The stage word (or the ticket) is the previous kernels' output, so it is
  // read after the wait, but here rather than in the epilogue: its load then
  // overlaps the activations and the MMAs instead of adding a dependent
  // global load to every CTA's tail (measured: up to half the GEMM's time
  // at N = 8192, K = 512). Thread 0 alone reads it and hands it to the
  // epilogue through shared memory: a stage every thread held from here on
  // let the publish addresses be computed early and kept live through the
  // MMAs (70 registers instead of 58, half the CTAs per SM at 512 threads).
  Value earlyStage = readStageEarly(module);
  // x once, for every pass.
  Fragments activations = loadActivations();
  // The late chunks: issued behind x, whose loads would otherwise queue
  // behind the CTA's whole weight share (unpooler tp 4 at M = 16: 6.3 ->
  // 6.0 us with 1 of 4 chunks late, docs/design/gemm.md).
  if (shape.lateChunks)
    loadWeights(passFeature(0), upperRows[0], lowerRows[0], earlyChunks,
                chunks);
  for (int64_t pass = 0; pass < shape.passes; ++pass) {
    const Fragments &upper = upperRows[pass % 2], &lower = lowerRows[pass % 2];
    if (pass + 1 < shape.passes)
      loadWeights(passFeature(pass + 1), upperRows[(pass + 1) % 2],
                  lowerRows[(pass + 1) % 2], 0, chunks);
    finishPass(multiply(upper, lower, activations), pass, earlyStage);
  }
}

void GemmBodyBuilder::waitForPredecessor() {
  if (!values.pdl)
    return;
  // Guarded: ptxas otherwise moves the wait above the loads (measured:
  // every weight load after it in the SASS, the stream then serialized
  // behind the previous kernel; 3-16% per GEMM, docs/design/gemm.md).
  // With a mailbox and one pass the guard stores the digest of the
  // publish's addresses: the epilogue's first reads of the peer addresses
  // (kernel parameters, in the constant bank) then hit a warm constant cache
  // instead of missing on every CTA's tail (0.02-0.20 us at tp 16). With
  // several passes the first pass's epilogue takes those misses while the
  // next pass's weights stream, and the digest made those kernels slower
  // (o_proj tp 8 at 2 passes 0.1-0.2 us, tp 4 M = 16 at 4 passes 0.5 us:
  // ptxas schedules the loads around it differently; docs/design/gemm.md).
  Value digest;
  if (values.mailbox && shape.passes == 1)
    digest = MailboxAddressDigestOp::create(b, b.getI64Type(), values.mailbox);
  PdlWaitOp::create(b, values.launchTokens, values.y, digest);
}

Value GemmBodyBuilder::readStageEarly(gpu::GPUModuleOp module) {
  if (!values.mailbox)
    return Value();
  stageSlot = sharedArray(module, "publish_stage", 1);
  auto read = scf::IfOp::create(b, i32, isThreadZero(),
                                /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&read.getThenRegion().front());
  scf::YieldOp::create(b, stageToPublish());
  b.setInsertionPointToStart(&read.getElseRegion().front());
  scf::YieldOp::create(b, constant(0));
  return read.getResult(0);
}

void GemmBodyBuilder::finishPass(const Accumulators &accumulators, int64_t pass,
                                 Value earlyStage) {
  bool lastPass = pass + 1 == shape.passes;
  if (lastPass && values.pdl && !shape.earlyDependents)
    NVVM::GriddepcontrolOp::create(b,
                                   NVVM::GridDepActionKind::launch_dependents);
  if (pass == 0 && values.mailbox) {
    // Ordered before the epilogue's reads by the barriers of the
    // reduction.
    auto write = scf::IfOp::create(b, isThreadZero(), /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&write.getThenRegion().front());
    Value asFloat = arith::BitcastOp::create(b, b.getF32Type(), earlyStage);
    LLVM::StoreOp::create(b, asFloat, sharedElement(stageSlot, constant(0)));
  }
  // One set of reduction buffers serves every pass: a pass's partials are
  // written after the barrier that ends the previous pass's sums, and its
  // sums after the barrier every epilogue thread reaches once done with
  // the previous pass's.
  storeWarpPartials(accumulators);
  NVVM::Barrier0Op::create(b);
  if (shape.splits > 1)
    NVVM::ClusterWaitOp::create(b, UnitAttr());
  sumWarpsIntoSplitSlot();
  emitEpilogue(synchronizeSplits(), passFeature(pass), lastPass);
}

void GemmBodyBuilder::computeLaneCoordinates() {
  thread = NVVM::ThreadIdXOp::create(b, i32);
  Value featureTile = NVVM::BlockIdXOp::create(b, i32);
  split = NVVM::BlockIdYOp::create(b, i32);
  warp = arith::ShRUIOp::create(b, thread, constant(5));
  Value lane = arith::AndIOp::create(b, thread, constant(31));
  group = arith::ShRUIOp::create(b, lane, constant(2));
  quad = arith::AndIOp::create(b, lane, constant(3));
  firstFeature = mul(featureTile, features * shape.passes);
  // First K of this lane: the split's slice, the warp's kw, the lane's 8.
  laneK = add(add(mul(split, shape.k / shape.splits), mul(warp, shape.kw)),
              mul(quad, 8));
  weight = globalPointer(values.weight);
  x = globalPointer(values.x);
  y = globalPointer(values.y);
}

void GemmBodyBuilder::loadWeights(Value blockFeature, Fragments &upperRows,
                                  Fragments &lowerRows, int64_t firstChunk,
                                  int64_t endChunk) {
  // Rows g and g + 8 of every tile; chunk by chunk, in the order the MMAs
  // consume them.
  Value upperBase = add(mul(add(blockFeature, group), shape.k), laneK);
  if (firstChunk == 0) {
    upperRows.assign(tiles, {});
    lowerRows.assign(tiles, {});
  }
  for (int64_t c = firstChunk; c < endChunk; ++c) {
    for (int64_t r = 0; r < tiles; ++r) {
      Value upper =
          add(upperBase, r * kFeaturesPerTile * shape.k + c * kChunkK);
      upperRows[r].push_back(loadFragment(weight, upper, /*invariant=*/true));
      lowerRows[r].push_back(
          loadFragment(weight, add(upper, 8 * shape.k), /*invariant=*/true));
    }
  }
}

GemmBodyBuilder::Fragments
GemmBodyBuilder::loadActivations(function_ref<int64_t(int64_t)> chunkK) {
  // Token rows past M read token 0 (always valid memory) and are zeroed, so
  // every lane issues the same loads.
  Value zeroWords = arith::ConstantOp::create(
      b, fragmentWords, DenseElementsAttr::get(fragmentWords, int32_t(0)));
  Fragments activations(tokenBlocks);
  for (int64_t block = 0; block < tokenBlocks; ++block) {
    Value token = add(group, block * kTokensPerMma);
    Value inRange = lessThan(token, values.tokens);
    Value safeToken = arith::SelectOp::create(b, inRange, token, constant(0));
    Value base = add(mul(safeToken, shape.k), laneK);
    for (int64_t c = 0; c < chunks; ++c) {
      int64_t offset = chunkK ? chunkK(c) : c * kChunkK;
      Value loaded = loadFragment(x, add(base, offset), false);
      activations[block].push_back(
          arith::SelectOp::create(b, inRange, loaded, zeroWords));
    }
  }
  return activations;
}

GemmBodyBuilder::Accumulators GemmBodyBuilder::zeroAccumulators() {
  Value zero = arith::ConstantOp::create(b, b.getF32FloatAttr(0.0f));
  return Accumulators(
      shape.accs, SmallVector<SmallVector<SmallVector<Value>>>(
                      tiles, SmallVector<SmallVector<Value>>(
                                 tokenBlocks, SmallVector<Value>(4, zero))));
}

GemmBodyBuilder::Accumulators
GemmBodyBuilder::multiply(const Fragments &upperRows,
                          const Fragments &lowerRows,
                          const Fragments &activations) {
  Accumulators accumulators = zeroAccumulators();
  int64_t stepIndex = 0;
  for (int64_t c = 0; c < chunks; ++c)
    multiplyChunk(accumulators, upperRows, lowerRows, activations, c, c,
                  stepIndex);
  return accumulators;
}

void GemmBodyBuilder::multiplyChunk(
    Accumulators &accumulators, const Fragments &upperRows,
    const Fragments &lowerRows, const Fragments &activations,
    int64_t weightChunk, int64_t activationChunk, int64_t &stepIndex) {
  // Step j of a chunk takes words 2j and 2j+1 of every fragment; consecutive
  // steps rotate over `accs` accumulators so the MMAs of one warp do not wait
  // on each other. Within a step the tiles' MMAs sit side by side on the
  // same B operand: independent, and each feature sees the MMAs of one tile
  // in the order it would alone.
  auto accumulatorType = LLVM::LLVMStructType::getLiteral(
      b.getContext(), SmallVector<Type>(4, b.getF32Type()));
  SmallVector<SmallVector<Value>> upper(tiles), lower(tiles);
  for (int64_t r = 0; r < tiles; ++r) {
    for (int64_t i = 0; i < 4; ++i) {
      upper[r].push_back(word(upperRows[r][weightChunk], i));
      lower[r].push_back(word(lowerRows[r][weightChunk], i));
    }
  }
  for (int64_t step = 0; step < 2; ++step, ++stepIndex) {
    for (int64_t block = 0; block < tokenBlocks; ++block) {
      SmallVector<Value> bOperand = {
          word(activations[block][activationChunk], 2 * step),
          word(activations[block][activationChunk], 2 * step + 1)};
      for (int64_t r = 0; r < tiles; ++r) {
        SmallVector<Value> a = {upper[r][2 * step], lower[r][2 * step],
                                upper[r][2 * step + 1], lower[r][2 * step + 1]};
        SmallVector<Value> &acc =
            accumulators[stepIndex % shape.accs][r][block];
        Value result = NVVM::MmaOp::create(
            b, accumulatorType, a, bOperand, acc, ArrayRef<int64_t>{16, 8, 16},
            std::nullopt, std::nullopt,
            std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::bf16,
                                          NVVM::MMATypes::bf16},
            std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                           NVVM::MMALayout::col});
        for (int64_t i = 0; i < 4; ++i)
          acc[i] = LLVM::ExtractValueOp::create(b, result, i);
      }
    }
  }
}

void mlir::lamport::buildGemmPublishBody(ImplicitLocOpBuilder &b,
                                         gpu::GPUModuleOp module,
                                         const GemmLaunchShape &shape,
                                         const GemmKernelValues &values) {
  GemmBodyBuilder(b, shape, values).build(module);
}
