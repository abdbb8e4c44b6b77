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
// sends its sum into rank 0's shared memory with st.async, whose bytes
// complete rank 0's mbarrier (initialized and released to the cluster
// before the weight loads, so no cluster barrier waits at the tail); rank 0
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
// With M dynamic the op becomes one kernel per distinct token tile its
// tactic asks for over 1..max M, and the program chooses by M at launch: an
// scf.if on M <= the last M of each run of equal tiles (docs/bundle.md), so
// small M does not pay for the 16-token tile. Each kernel is the one its
// tile alone would give.
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
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::lamport;

/// Output features of one tile: the 16 rows of one MMA A operand.
static constexpr int64_t kFeaturesPerTile = GemmPublishOp::kFeaturesPerTile;
/// Features of one fragment: what one epilogue thread stores and publishes.
static constexpr int64_t kFragmentFeatures = LamportDialect::kFragmentLanes;
/// Shared memory a CTA may take on sm_90 and sm_100 (227 KiB, static and
/// dynamic together, the dynamic part opted into at load time).
[[maybe_unused]] static constexpr int64_t kMaxSharedBytes = 227 * 1024;
/// K one lane covers with one 16-byte load, times the 4 lanes of a row.
static constexpr int64_t kChunkK = GemmPublishOp::kChunkK;
/// Tokens of one MMA B operand.
static constexpr int64_t kTokensPerMma = 8;

std::string GemmLaunchShape::unsupported() const {
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

namespace {
/// Builds the kernel body: one instance per gpu.func.
class GemmBodyBuilder {
public:
  GemmBodyBuilder(ImplicitLocOpBuilder &b, const GemmLaunchShape &shape,
                  const GemmKernelValues &values)
      : b(b), shape(shape), values(values), i32(b.getI32Type()),
        globalPtr(LLVM::LLVMPointerType::get(b.getContext(), 1)),
        sharedPtr(LLVM::LLVMPointerType::get(b.getContext(), 3)),
        fragmentWords(VectorType::get({4}, i32)),
        tokenBlocks(shape.tokenTile / kTokensPerMma),
        chunks(shape.kw / kChunkK), tiles(shape.tiles),
        features(shape.featuresPerCta()),
        ctaElements(shape.tokenTile * features) {}

  void build(gpu::GPUModuleOp module);

private:
  /// Per token block (activations) or per feature tile (weight rows), per
  /// 32-wide K chunk: one lane's 16-byte fragment.
  using Fragments = SmallVector<SmallVector<Value>>;
  /// Per accumulator, per feature tile, per token block: one MMA's four FP32
  /// values.
  using Accumulators =
      SmallVector<SmallVector<SmallVector<SmallVector<Value>>>>;

  /// The kernel's phases, in the order build() emits them.
  void computeLaneCoordinates();
  /// The weight rows of the block of `features` features from
  /// `blockFeature` (this lane's fragments) in chunks [firstChunk,
  /// endChunk), appended to the tiles' lists (which chunk 0 starts afresh).
  void loadWeights(Value blockFeature, Fragments &upperRows,
                   Fragments &lowerRows, int64_t firstChunk, int64_t endChunk);
  /// The first feature of this CTA's block in pass `pass`.
  Value passFeature(int64_t pass) {
    return pass ? add(firstFeature, pass * features) : firstFeature;
  }
  Fragments loadActivations();
  Accumulators multiply(const Fragments &upperRows, const Fragments &lowerRows,
                        const Fragments &activations);
  void storeWarpPartials(const Accumulators &accumulators);
  /// With several splits: rank 0's split barrier, an mbarrier expecting the
  /// other ranks' sums, initialized and released to the cluster before the
  /// weight loads.
  void initSplitBarrier(gpu::GPUModuleOp module);
  void sumWarpsIntoSplitSlot();
  /// Orders every split's sum before rank 0 reads them; true on rank 0.
  Value synchronizeSplits();
  /// The stage the epilogue publishes into: NEXT, or the ticket's.
  Value stageToPublish();
  /// Rank 0 stores (and publishes) the block from `blockFeature`; after the
  /// last pass, CTA (0, 0) also sets ACTIVE.
  void emitEpilogue(Value isRankZero, Value blockFeature, bool lastPass);
  Value isThreadZero() {
    return arith::CmpIOp::create(b, arith::CmpIPredicate::eq, thread,
                                 constant(0));
  }
  /// One epilogue thread's work: slot `slot` of `slots` (token, fragment)
  /// pairs; slots past the last or tokens past M do nothing.
  void storeFragment(Value slot, int64_t slots, Value stage,
                     Value blockFeature);

  Value constant(int64_t value) {
    return arith::ConstantIntOp::create(b, i32, value);
  }
  Value add(Value lhs, Value rhs) { return arith::AddIOp::create(b, lhs, rhs); }
  Value add(Value lhs, int64_t rhs) { return add(lhs, constant(rhs)); }
  Value mul(Value lhs, int64_t rhs) {
    return arith::MulIOp::create(b, lhs, constant(rhs));
  }
  Value lessThan(Value lhs, Value rhs) {
    return arith::CmpIOp::create(b, arith::CmpIPredicate::ult, lhs, rhs);
  }

  /// The raw global pointer of a kernel memref (a bare pointer parameter).
  Value globalPointer(Value memref) {
    return getGlobalPointer(b, b.getLoc(), memref);
  }
  /// Address of element `index` (i32, elements of `elementType`) past
  /// `base`.
  Value elementAddress(Value base, Value index, Type elementType, Type ptrTy);
  /// One 16-byte load of `base[index]` (BF16 elements) as four i32 words;
  /// `invariant` (the weights) loads under the evict-first L2 policy, by
  /// the coherent path: ptxas may sink non-coherent loads past the PDL
  /// wait whatever precedes it (lamport.pdl.wait).
  Value loadFragment(Value base, Value index, bool invariant);
  Value word(Value fragment, int64_t i) {
    return LLVM::ExtractElementOp::create(b, i32, fragment, constant(i));
  }
  /// One of the reduction's buffers: its array and the first element there
  /// (both buffers share the dynamic array when they live in it).
  struct SharedBuffer {
    LLVM::GlobalOp array;
    int64_t first = 0;
  };
  /// The reduction's buffers, in static shared memory where they fit, else
  /// one after the other in the kernel's dynamic shared memory.
  void createReductionBuffers(gpu::GPUModuleOp module);
  Value sharedElement(const SharedBuffer &buffer, Value index) {
    return sharedElement(buffer.array,
                         buffer.first ? add(index, buffer.first) : index);
  }
  /// A shared-memory array of `elements` FP32 in `module`.
  LLVM::GlobalOp sharedArray(gpu::GPUModuleOp module, StringRef name,
                             int64_t elements, Type elementType = Type()) {
    return createSharedArray(b, b.getLoc(), module, name,
                             elementType ? elementType : b.getF32Type(),
                             elements);
  }
  Value sharedElement(LLVM::GlobalOp array, Value index,
                      Type elementType = Type()) {
    Value base = LLVM::AddressOfOp::create(b, array);
    return elementAddress(
        base, index, elementType ? elementType : b.getF32Type(), sharedPtr);
  }
  /// Rank 0's split barrier (an i64 mbarrier).
  Value splitBarrierAddress() {
    return sharedElement(splitBarrier, constant(0), b.getI64Type());
  }

  ImplicitLocOpBuilder &b;
  const GemmLaunchShape &shape;
  const GemmKernelValues &values;
  Type i32, globalPtr, sharedPtr;
  VectorType fragmentWords;
  /// MMA token blocks per token tile, 32-wide K chunks per warp, feature
  /// tiles per CTA, features per CTA (16 per tile), and FP32 values of one
  /// CTA's [token tile, features] partial.
  int64_t tokenBlocks, chunks, tiles, features, ctaElements;
  /// The reduction's shared-memory buffers, and rank 0's mbarrier that the
  /// other ranks' sums complete (several splits only).
  SharedBuffer partials, splitSums;
  LLVM::GlobalOp splitBarrier;
  /// Cluster rank, and whether it is 0 (several splits only).
  Value rank, isRankZero;
  /// One word of shared memory: the stage thread 0 read after the PDL wait,
  /// for the epilogue (kept as the bits of an FP32, as sharedArray makes).
  LLVM::GlobalOp stageSlot;
  /// Lane coordinates (group = lane / 4, quad = lane % 4) and the first
  /// feature and K this lane touches.
  Value thread, split, warp, group, quad, firstFeature, laneK;
  /// Raw global pointers of the weight, x and y.
  Value weight, x, y;
  /// L2 policy of the weight loads: evict first. The weights are read once
  /// a step and are the bulk of the traffic; as the first lines to go they
  /// leave x, y and the mailboxes in L2 (1-3.5% at M = 8 and 16, 0.8% over
  /// issue 5's points, docs/design/gemm.md).
  Value weightPolicy;
};
} // namespace

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

void GemmBodyBuilder::createReductionBuffers(gpu::GPUModuleOp module) {
  if (!shape.dynamicSharedBytes()) {
    partials = {
        sharedArray(module, "warp_partials", shape.warps * ctaElements)};
    splitSums = {sharedArray(module, "split_sums", shape.splits * ctaElements)};
    return;
  }
  LLVM::GlobalOp reduction = createDynamicSharedArray(
      b, b.getLoc(), module, "reduction", b.getF32Type());
  partials = {reduction, 0};
  splitSums = {reduction, shape.warps * ctaElements};
}

void GemmBodyBuilder::build(gpu::GPUModuleOp module) {
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
  if (values.pdl) {
    Value digest;
    if (values.mailbox && shape.passes == 1)
      digest =
          MailboxAddressDigestOp::create(b, b.getI64Type(), values.mailbox);
    PdlWaitOp::create(b, values.launchTokens, values.y, digest);
  }
  // The stage word (or the ticket) is the previous kernels' output, so it is
  // read after the wait, but here rather than in the epilogue: its load then
  // overlaps the activations and the MMAs instead of adding a dependent
  // global load to every CTA's tail (measured: up to half the GEMM's time
  // at N = 8192, K = 512). Thread 0 alone reads it and hands it to the
  // epilogue through shared memory: a stage every thread held from here on
  // let the publish addresses be computed early and kept live through the
  // MMAs (70 registers instead of 58, half the CTAs per SM at 512 threads).
  Value earlyStage;
  if (values.mailbox) {
    stageSlot = sharedArray(module, "publish_stage", 1);
    auto read = scf::IfOp::create(b, i32, isThreadZero(),
                                  /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&read.getThenRegion().front());
    scf::YieldOp::create(b, stageToPublish());
    b.setInsertionPointToStart(&read.getElseRegion().front());
    scf::YieldOp::create(b, constant(0));
    earlyStage = read.getResult(0);
  }
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
    Accumulators accumulators = multiply(upper, lower, activations);
    bool lastPass = pass + 1 == shape.passes;
    if (lastPass && values.pdl && !shape.earlyDependents)
      NVVM::GriddepcontrolOp::create(
          b, NVVM::GridDepActionKind::launch_dependents);
    if (pass == 0 && values.mailbox) {
      // Ordered before the epilogue's reads by the barriers of the
      // reduction.
      auto write =
          scf::IfOp::create(b, isThreadZero(), /*withElseRegion=*/false);
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
}

void GemmBodyBuilder::initSplitBarrier(gpu::GPUModuleOp module) {
  splitBarrier = sharedArray(module, "split_barrier", 1, b.getI64Type());
  rank = NVVM::ClusterId::create(b, i32);
  isRankZero =
      arith::CmpIOp::create(b, arith::CmpIPredicate::eq, rank, constant(0));
  // Released by the cluster barrier a rank waits on after its MMAs, long
  // after every rank arrived here.
  expectClusterBytes(
      b, b.getLoc(), arith::AndIOp::create(b, isRankZero, isThreadZero()),
      splitBarrierAddress(), (shape.splits - 1) * ctaElements * 4);
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

GemmBodyBuilder::Fragments GemmBodyBuilder::loadActivations() {
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
      Value loaded = loadFragment(x, add(base, c * kChunkK), false);
      activations[block].push_back(
          arith::SelectOp::create(b, inRange, loaded, zeroWords));
    }
  }
  return activations;
}

GemmBodyBuilder::Accumulators
GemmBodyBuilder::multiply(const Fragments &upperRows,
                          const Fragments &lowerRows,
                          const Fragments &activations) {
  // Step j of a chunk takes words 2j and 2j+1 of every fragment; consecutive
  // steps rotate over `accs` accumulators so the MMAs of one warp do not wait
  // on each other. Within a step the tiles' MMAs sit side by side on the
  // same B operand: independent, and each feature sees the MMAs of one tile
  // in the order it would alone.
  auto accumulatorType = LLVM::LLVMStructType::getLiteral(
      b.getContext(), SmallVector<Type>(4, b.getF32Type()));
  Value zero = arith::ConstantOp::create(b, b.getF32FloatAttr(0.0f));
  Accumulators accumulators(
      shape.accs, SmallVector<SmallVector<SmallVector<Value>>>(
                      tiles, SmallVector<SmallVector<Value>>(
                                 tokenBlocks, SmallVector<Value>(4, zero))));
  int64_t stepIndex = 0;
  for (int64_t c = 0; c < chunks; ++c) {
    SmallVector<SmallVector<Value>> upper(tiles), lower(tiles);
    for (int64_t r = 0; r < tiles; ++r) {
      for (int64_t i = 0; i < 4; ++i) {
        upper[r].push_back(word(upperRows[r][c], i));
        lower[r].push_back(word(lowerRows[r][c], i));
      }
    }
    for (int64_t step = 0; step < 2; ++step, ++stepIndex) {
      for (int64_t block = 0; block < tokenBlocks; ++block) {
        SmallVector<Value> bOperand = {
            word(activations[block][c], 2 * step),
            word(activations[block][c], 2 * step + 1)};
        for (int64_t r = 0; r < tiles; ++r) {
          SmallVector<Value> a = {upper[r][2 * step], lower[r][2 * step],
                                  upper[r][2 * step + 1],
                                  lower[r][2 * step + 1]};
          SmallVector<Value> &acc =
              accumulators[stepIndex % shape.accs][r][block];
          Value result = NVVM::MmaOp::create(
              b, accumulatorType, a, bOperand, acc,
              ArrayRef<int64_t>{16, 8, 16}, std::nullopt, std::nullopt,
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
  return accumulators;
}

void GemmBodyBuilder::storeWarpPartials(const Accumulators &accumulators) {
  // Accumulators summed in order, into shared memory at
  // [warp][token * features + feature]: lane (g, t) holds features 16r + g
  // and 16r + g + 8 of tokens 2t and 2t + 1 of each tile r and token block.
  Value warpBase = mul(warp, ctaElements);
  Value pairToken = mul(quad, 2);
  for (int64_t r = 0; r < tiles; ++r) {
    for (int64_t block = 0; block < tokenBlocks; ++block) {
      for (int64_t i = 0; i < 4; ++i) {
        Value sum = accumulators[0][r][block][i];
        for (int64_t acc = 1; acc < shape.accs; ++acc)
          sum = arith::AddFOp::create(b, sum, accumulators[acc][r][block][i]);
        Value feature = add(group, r * kFeaturesPerTile + (i < 2 ? 0 : 8));
        Value token = add(pairToken, block * kTokensPerMma + i % 2);
        Value index = add(add(mul(token, features), feature), warpBase);
        LLVM::StoreOp::create(b, sum, sharedElement(partials, index));
      }
    }
  }
}

void GemmBodyBuilder::sumWarpsIntoSplitSlot() {
  // The CTA's sum over its warps, in warp order, into slot `split` of
  // cluster rank 0's split sums.
  int64_t threads = shape.threads();
  Value splitBase = mul(split, ctaElements);
  for (int64_t first = 0; first < ctaElements; first += threads) {
    Value element = add(thread, first);
    auto inTile = scf::IfOp::create(b, lessThan(element, constant(ctaElements)),
                                    /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&inTile.getThenRegion().front());
    Value sum;
    for (int64_t w = 0; w < shape.warps; ++w) {
      Value value = LLVM::LoadOp::create(
          b, b.getF32Type(),
          sharedElement(partials, add(element, w * ctaElements)));
      sum = sum ? Value(arith::AddFOp::create(b, sum, value)) : value;
    }
    Value slot = sharedElement(splitSums, add(splitBase, element));
    if (shape.splits == 1) {
      LLVM::StoreOp::create(b, sum, slot);
      continue;
    }
    // Rank 0 keeps its own sum; every other rank sends it into rank 0's
    // slot, where its bytes complete rank 0's split barrier.
    auto local = scf::IfOp::create(b, isRankZero, /*withElseRegion=*/true);
    OpBuilder::InsertionGuard localGuard(b);
    b.setInsertionPointToStart(&local.getThenRegion().front());
    LLVM::StoreOp::create(b, sum, slot);
    b.setInsertionPointToStart(&local.getElseRegion().front());
    ClusterSendOp::create(b, sum, slot, splitBarrierAddress(), constant(0));
  }
}

Value GemmBodyBuilder::synchronizeSplits() {
  // The CTA's own sums, written by other threads of it.
  NVVM::Barrier0Op::create(b);
  if (shape.splits == 1)
    return arith::ConstantIntOp::create(b, b.getI1Type(), 1);
  // On rank 0, the other ranks' sums: phase 0 of the split barrier completes
  // once all their bytes landed. No cluster barrier: the other ranks leave
  // as soon as they sent, and rank 0 leaves only after everything meant
  // for it arrived (no CTA reads another's shared memory).
  auto wait = scf::IfOp::create(b, isRankZero, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&wait.getThenRegion().front());
  ClusterWaitOp::create(b, splitBarrierAddress());
  return isRankZero;
}

Value GemmBodyBuilder::stageToPublish() {
  if (!values.ticket)
    return StageNextOp::create(b, values.mailbox);
  Value ticket = memref::LoadOp::create(
      b, values.ticket, ValueRange{arith::ConstantIndexOp::create(b, 0)});
  return StageFromTicketOp::create(b, ticket);
}

void GemmBodyBuilder::emitEpilogue(Value isRankZero, Value blockFeature,
                                   bool lastPass) {
  // On rank 0, one thread per (token, fragment) of the CTA's block; a CTA
  // with fewer threads than that takes several passes.
  auto epilogue = scf::IfOp::create(b, isRankZero, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&epilogue.getThenRegion().front());
  Value stage;
  if (values.mailbox)
    stage = arith::BitcastOp::create(
        b, i32,
        LLVM::LoadOp::create(b, b.getF32Type(),
                             sharedElement(stageSlot, constant(0))));
  int64_t slots = shape.tokenTile * (features / kFragmentFeatures);
  for (int64_t first = 0; first < slots; first += shape.threads())
    storeFragment(first ? add(thread, first) : thread, slots, stage,
                  blockFeature);
  if (values.mailbox && !values.ticket && lastPass) {
    // One CTA writes ACTIVE: the consumer reads it only after this whole
    // grid has completed (stream order, or griddepcontrol.wait, which waits
    // for completion), so no other CTA's publishes need ordering before it.
    // Writing it from every CTA cost each of them the set's system-scope
    // fence: several microseconds a launch at N = 8192 (512 CTAs, 4 waves).
    Value firstTile =
        arith::CmpIOp::create(b, arith::CmpIPredicate::eq,
                              NVVM::BlockIdXOp::create(b, i32), constant(0));
    auto writer = scf::IfOp::create(b, firstTile, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard writerGuard(b);
    b.setInsertionPointToStart(&writer.getThenRegion().front());
    NVVM::Barrier0Op::create(b);
    auto lead = scf::IfOp::create(
        b,
        arith::CmpIOp::create(b, arith::CmpIPredicate::eq, thread, constant(0)),
        /*withElseRegion=*/false);
    b.setInsertionPointToStart(&lead.getThenRegion().front());
    // The consumer is the next kernel, which reads ACTIVE after this grid
    // completed: no fence (a system-scope one here waited for every remote
    // store of the CTA at the tail of the GEMM).
    StageSetActiveOp::create(b, values.mailbox, stage,
                             /*readAfterGrid=*/true);
  }
}

void GemmBodyBuilder::storeFragment(Value slot, int64_t slots, Value stage,
                                    Value blockFeature) {
  // Slot (token, fragment) sums the fragment's 8 features over the splits in
  // split order, rounds to BF16, stores y and publishes the fragment.
  int64_t fragmentsPerToken = features / kFragmentFeatures;
  Value token = arith::ShRUIOp::create(
      b, slot, constant(llvm::Log2_64(fragmentsPerToken)));
  Value fragmentIndex =
      arith::AndIOp::create(b, slot, constant(fragmentsPerToken - 1));
  Value active = arith::AndIOp::create(b, lessThan(slot, constant(slots)),
                                       lessThan(token, values.tokens));
  auto store = scf::IfOp::create(b, active, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&store.getThenRegion().front());
  Value firstInCta = mul(fragmentIndex, kFragmentFeatures);
  Value first = add(mul(token, features), firstInCta);
  SmallVector<Value> lanes;
  for (int64_t q = 0; q < kFragmentFeatures; ++q) {
    Value sum;
    for (int64_t s = 0; s < shape.splits; ++s) {
      Value value = LLVM::LoadOp::create(
          b, b.getF32Type(),
          sharedElement(splitSums, add(first, s * ctaElements + q)));
      sum = sum ? Value(arith::AddFOp::create(b, sum, value)) : value;
    }
    lanes.push_back(arith::TruncFOp::create(b, b.getBF16Type(), sum));
  }
  auto fragmentType = VectorType::get({kFragmentFeatures}, b.getBF16Type());
  Value fragment = vector::FromElementsOp::create(b, fragmentType, lanes);
  Value column = add(blockFeature, firstInCta);
  Value yIndex = add(mul(token, shape.n), column);
  LLVM::StoreOp::create(
      b, fragment, elementAddress(y, yIndex, b.getBF16Type(), globalPtr), 16);
  if (values.mailbox) {
    Value row = arith::IndexCastUIOp::create(b, b.getIndexType(), token);
    Value col = arith::IndexCastUIOp::create(b, b.getIndexType(), column);
    MailboxPublishOp::create(b, fragment, values.mailbox, stage, row, col,
                             /*target=*/Value(), values.transport,
                             /*release_before=*/false);
  }
}

void mlir::lamport::buildGemmPublishBody(ImplicitLocOpBuilder &b,
                                         gpu::GPUModuleOp module,
                                         const GemmLaunchShape &shape,
                                         const GemmKernelValues &values) {
  GemmBodyBuilder(b, shape, values).build(module);
}

namespace {
/// Consecutive M, up to `last`, that one kernel serves: one tactic's launch
/// at one token tile.
struct TileRun {
  /// Index of the kernel (distinct tactic and tile) that serves the run.
  unsigned kernel;
  int64_t last;
};
} // namespace

/// The launch shape `tactic` gives an [n, k] weight at `tokenTile` tokens.
static GemmLaunchShape launchShape(TacticAttr tactic, int64_t n, int64_t k,
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
  return shape;
}

LogicalResult mlir::lamport::generateGemmPublishKernel(
    GemmPublishOp op, const KernelGenerationOptions &options) {
  MemRefType weightType = op.getWeight().getType();
  int64_t n = weightType.getDimSize(0), k = weightType.getDimSize(1);
  // The most tokens a launch can carry: x's static M where it has one, else
  // the op's bound (16, or the mailbox capacity).
  MemRefType xType = op.getX().getType();
  int64_t maxTokens =
      xType.isDynamicDim(0) ? op.getMaxTokens() : xType.getDimSize(0);
  // Which kernel serves which M: the tactic that serves M at its token
  // tile. x's static M runs one kernel: its tactic at the largest tile any M
  // up to it asks of that tactic. A dynamic M runs one kernel per distinct
  // (tactic, tile) over 1..maxTokens, chosen by M at launch: each run of
  // consecutive M with one of them is one alternative.
  struct TacticKernel {
    TacticAttr tactic;
    GemmLaunchShape shape;
  };
  SmallVector<TacticKernel> tacticKernels;
  auto kernelFor = [&](TacticAttr tactic, int64_t tile) -> unsigned {
    for (auto [i, kernel] : llvm::enumerate(tacticKernels))
      if (kernel.tactic == tactic && kernel.shape.tokenTile == tile)
        return i;
    tacticKernels.push_back({tactic, launchShape(tactic, n, k, tile)});
    return tacticKernels.size() - 1;
  };
  SmallVector<TileRun> runs;
  if (!xType.isDynamicDim(0)) {
    TacticAttr tactic = op.getTacticFor(maxTokens);
    ArrayRef<int64_t> tiles = tactic.getTokenTiles();
    runs.push_back(
        {kernelFor(tactic,
                   *std::max_element(tiles.begin(), tiles.begin() + maxTokens)),
         maxTokens});
  } else {
    for (int64_t m = 1; m <= maxTokens; ++m) {
      TacticAttr tactic = op.getTacticFor(m);
      unsigned kernel = kernelFor(tactic, tactic.getTokenTiles()[m - 1]);
      if (runs.empty() || runs.back().kernel != kernel)
        runs.push_back({kernel, m});
      else
        runs.back().last = m;
    }
  }
  for (const TacticKernel &kernel : tacticKernels) {
    std::string reason = kernel.shape.unsupported();
    if (!reason.empty())
      return op.emitOpError() << "has no kernel: " << reason;
  }

  KernelSignature signature;
  signature.family = op.getKernelFamily();
  signature.mailbox = op.getMailbox();
  if (failed(addProgramBuffers(op, maxTokens, signature)))
    return failure();
  signature.tokensBuffer = op.getX();
  signature.tokensDim = 0;
  signature.pdl = op.getPdl();
  MLIRContext *ctx = op.getContext();
  TransportAttr transport;
  if (op.getMailbox()) {
    transport = TransportAttr::get(ctx, op.getTransport() ? *op.getTransport()
                                                          : options.transport);
    signature.attributes.push_back(
        NamedAttribute(StringAttr::get(ctx, "transport"), transport));
  }
  // One kernel per distinct (tactic, tile).
  auto buildBody = [&](const GemmLaunchShape &tileShape) {
    return [&, tileShape](OpBuilder &builder, Location loc,
                          KernelBody &kernel) {
      ImplicitLocOpBuilder b(loc, builder);
      GemmKernelValues values;
      values.mailbox = kernel.getMailbox();
      values.weight = kernel.getBuffer(0);
      values.x = kernel.getBuffer(1);
      values.y = kernel.getBuffer(2);
      if (op.getTicket())
        values.ticket = kernel.getBuffer(3);
      // M past the largest the buffers were sized for is clamped, as the
      // other kernels clamp it to the mailbox capacity.
      values.launchTokens = kernel.getLaunchTokens();
      values.tokens = arith::MinUIOp::create(
          b, values.launchTokens,
          arith::ConstantIntOp::create(b, b.getI32Type(), maxTokens));
      values.transport = transport;
      values.pdl = signature.pdl;
      auto module = kernel.getFunc()->getParentOfType<gpu::GPUModuleOp>();
      buildGemmPublishBody(b, module, tileShape, values);
      builder.setInsertionPoint(b.getInsertionBlock(), b.getInsertionPoint());
    };
  };
  SmallVector<KernelSignature> signatures;
  SmallVector<gpu::GPUFuncOp> kernels;
  for (const auto &[tactic, shape] : tacticKernels) {
    KernelSignature kernelSignature = signature;
    kernelSignature.launch =
        FixedLaunch{shape.gridX(), shape.splits, shape.threads(), shape.splits,
                    shape.dynamicSharedBytes()};
    kernelSignature.attributes.push_back(NamedAttribute(
        StringAttr::get(ctx, "token_tile"),
        IntegerAttr::get(IntegerType::get(ctx, 64), shape.tokenTile)));
    // Consumers that read the tactic back from the launch shape (the
    // benchmark) need the passes: the grid alone cannot tell them from
    // tiles.
    if (shape.passes > 1)
      kernelSignature.attributes.push_back(NamedAttribute(
          StringAttr::get(ctx, "passes"),
          IntegerAttr::get(IntegerType::get(ctx, 64), shape.passes)));
    kernels.push_back(
        createKernel(op, kernelSignature, options, buildBody(shape)));
    // The register budget hint: the NVVM lowering turns nvvm.minctasm into
    // PTX .minnctapersm.
    if (unsigned minCtas = tactic.getMinCtasPerSm())
      kernels.back()->setAttr(
          NVVM::NVVMDialect::getMinctasmAttrName(),
          IntegerAttr::get(IntegerType::get(ctx, 32), minCtas));
    signatures.push_back(std::move(kernelSignature));
  }

  // The launches, where the op was: one, or a chain of scf.if on
  // M <= last M of a run, each branch launching that run's kernel (the
  // form lamport-compile's launch plan reads, docs/bundle.md `tokens`).
  Location loc = op.getLoc();
  OpBuilder b(op);
  auto launchRun = [&](OpBuilder &builder, Location loc, const TileRun &run) {
    createLaunch(builder, loc, signatures[run.kernel], kernels[run.kernel]);
  };
  if (runs.size() == 1) {
    launchRun(b, loc, runs.front());
  } else {
    Value m = memref::DimOp::create(b, loc, op.getX(), 0);
    std::function<void(OpBuilder &, Location, ArrayRef<TileRun>)> dispatch =
        [&](OpBuilder &builder, Location loc, ArrayRef<TileRun> rest) {
          if (rest.size() == 1) {
            launchRun(builder, loc, rest.front());
            return;
          }
          Value last =
              arith::ConstantIndexOp::create(builder, loc, rest.front().last);
          Value takesFirst = arith::CmpIOp::create(
              builder, loc, arith::CmpIPredicate::ule, m, last);
          scf::IfOp::create(
              builder, loc, takesFirst,
              [&](OpBuilder &nested, Location nestedLoc) {
                launchRun(nested, nestedLoc, rest.front());
                scf::YieldOp::create(nested, nestedLoc);
              },
              [&](OpBuilder &nested, Location nestedLoc) {
                dispatch(nested, nestedLoc, rest.drop_front());
                scf::YieldOp::create(nested, nestedLoc);
              });
        };
    dispatch(b, loc, runs);
  }
  op.erase();
  return success();
}
