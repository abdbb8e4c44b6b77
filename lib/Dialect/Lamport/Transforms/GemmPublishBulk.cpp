//===- GemmPublishBulk.cpp - The GEMM's bulk-copy weight pipeline ---------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// lamport.gemm_publish with `pipeline = bulk`: the weights reach shared
// memory by the bulk-copy engine instead of registers, so the bytes a CTA
// keeps in flight are bounded by its ring, not by its registers and L1.
//
// The CTA's weight share (16 x tiles rows of its K slice, for each pass) is
// cut into stage loads of `stage K` = stage_bytes / (rows x 2) consecutive
// K of every row; the CTA's loads, pass by pass and K range by K range,
// cycle through a ring of `stages` slots. Where a stage is whole rows at one
// split it is one contiguous run of the weight and one copy fills it;
// otherwise each row has its own copy, at a pitch of its bytes + 64 in the
// slot (rows g and g + 1 of one 16-byte shared load then fall on different
// banks). Each slot has two mbarriers: "full" (one arrival, the producer's,
// which also expects the slot's bytes; the copies complete them) and
// "empty" (one arrival per thread of the CTA, each after its reads).
//
// The producer is `producer_lanes` lanes of warp 0, lane l copying rows l,
// l + lanes, ... (one warp instruction issues a copy from every lane):
// before the PDL wait it fills the first `stages` loads (the weights do not
// depend on the previous kernel), and after the MMAs of load t it refills
// the slot of load t - 1 with load t - 1 + stages once every thread
// released it (one load behind, so it rarely waits). Every warp consumes
// every load: warp w reads K [w x kcw, (w + 1) x kcw) of it, kcw = stage K
// x kw / K slice, with 16-byte shared loads in the register pipeline's lane
// layout (lane (g, t) reads K [8t, 8t + 8) of rows g and g + 8 of each
// 32-wide chunk), which is what mma.sync's A operand needs under the K
// permutation of GemmPublishKernel.cpp: no ldmatrix. With one pass, the
// leading stages whose fragments fit 64 registers are waited for and read
// before the PDL wait too. x is loaded into registers after the wait, once
// for every pass, at the K each warp reads from the stages.
// docs/design/gemm.md has a CTA's timeline.
//
// Reduction, fixed order and epilogue are the register pipeline's
// (GemmPublishReduction.cpp); each warp sums its K over the loads in order,
// so runs are bitwise reproducible.
//
//===----------------------------------------------------------------------===//

#include "GemmPublishKernel.h"
#include "KernelGeneration.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::lamport;

/// Bytes of static shared memory beside the reduction's, with the ring's
/// two mbarriers per stage.
static int64_t bulkStaticBytes(int64_t stages) {
  return GemmLaunchShape::kOtherSharedBytes + 2 * 16 * stages;
}

std::string GemmLaunchShape::bulkUnsupported() const {
  int64_t rows = featuresPerCta();
  if (lateChunks)
    return "late_chunks needs pipeline = registers: the bulk pipeline "
           "issues every weight copy from its ring";
  if (stages < 1 || stages > 16)
    return llvm::formatv("stages = {0}: the ring takes 1 to 16 stages", stages);
  if (stageBytes % (rows * 2) || stageK() < kChunkK)
    return llvm::formatv("stage_bytes = {0} must be a multiple of the {1} "
                         "bytes of {2} K of the CTA's {3} weight rows",
                         stageBytes, rows * 2 * kChunkK, kChunkK, rows);
  int64_t slice = k / splits;
  if (slice % stageK())
    return llvm::formatv("a stage of {0} K must divide the K slice of {1}",
                         stageK(), slice);
  if ((stageK() * kw) % slice || (stageK() * kw / slice) % kChunkK)
    return llvm::formatv("each of the {0} warps must read a multiple of {1} "
                         "K of each stage of {2} K (stage K x kw / K slice)",
                         warps, kChunkK, stageK());
  int64_t copies = copiesPerStage();
  if (producerLanes < 1 || producerLanes > 32 ||
      copies % std::min(producerLanes, copies))
    return llvm::formatv("producer_lanes = {0}: the producer is 1 to 32 "
                         "lanes of warp 0 that share a stage's {1} copies "
                         "evenly",
                         producerLanes, copies);
  int64_t bytes = ringBytes() + sharedBytes() + bulkStaticBytes(stages);
  if (bytes > kMaxSharedBytes)
    return llvm::formatv("the ring ({0} bytes) and the reduction ({1}) take "
                         "more than the {2} bytes of shared memory a CTA has",
                         ringBytes(), sharedBytes(), kMaxSharedBytes);
  return "";
}

void GemmBodyBuilder::createRing(gpu::GPUModuleOp module) {
  ringFull = sharedArray(module, "ring_full", shape.stages, b.getI64Type());
  ringEmpty = sharedArray(module, "ring_empty", shape.stages, b.getI64Type());
  auto init = scf::IfOp::create(b, isThreadZero(), /*withElseRegion=*/false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&init.getThenRegion().front());
    for (int64_t s = 0; s < shape.stages; ++s) {
      RingInitOp::create(b, ringBarrier(ringFull, s), 1);
      RingInitOp::create(b, ringBarrier(ringEmpty, s), shape.threads());
    }
  }
  // Every thread waits on the barriers, and the producer lanes other than
  // thread 0 expect on them: all after the inits.
  NVVM::Barrier0Op::create(b);
  Value lane = arith::AndIOp::create(b, thread, constant(31));
  producerLane = lane;
  isProducer = arith::AndIOp::create(
      b, arith::CmpIOp::create(b, arith::CmpIPredicate::eq, warp, constant(0)),
      lessThan(lane, constant(shape.producerLanes)));
  // Lane (g, t) of warp w reads row g at K w x kcw + 8t of every stage.
  int64_t kcw = shape.stageK() * shape.kw / (shape.k / shape.splits);
  if (shape.tensorStage()) {
    // Boxes of boxK() K: where the warp's K falls depends on the chunk
    // (readStage), the lane's row and 16 bytes do not.
    warpStageK = mul(warp, kcw);
    stageLaneByte = add(mul(group, shape.stageRowBytes()), mul(quad, 16));
  } else {
    stageLaneByte =
        add(add(mul(group, shape.stageRowBytes()), mul(warp, kcw * 2)),
            mul(quad, 16));
  }
  // x's K for this lane: the split's slice, the warp's part of a stage, the
  // lane's 8 (each stage's offset comes per chunk).
  laneK = add(add(mul(split, shape.k / shape.splits), mul(warp, kcw)),
              mul(quad, 8));
}

void GemmBodyBuilder::fillStage(int64_t load) {
  int64_t slot = load % shape.stages;
  int64_t pass = load / shape.stagesPerPass();
  int64_t stage = load % shape.stagesPerPass();
  int64_t copies = shape.copiesPerStage();
  int64_t lanes = std::min(shape.producerLanes, copies);
  Value issues = isProducer;
  if (lanes < shape.producerLanes)
    issues = arith::AndIOp::create(b, issues,
                                   lessThan(producerLane, constant(lanes)));
  auto producer = scf::IfOp::create(b, issues, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&producer.getThenRegion().front());
  // The slot's previous load must be released by every thread first.
  if (load >= shape.stages)
    RingWaitOp::create(b, ringBarrier(ringEmpty, slot),
                       (load / shape.stages - 1) % 2);
  Value full = ringBarrier(ringFull, slot);
  {
    auto lead =
        scf::IfOp::create(b,
                          arith::CmpIOp::create(b, arith::CmpIPredicate::eq,
                                                producerLane, constant(0)),
                          /*withElseRegion=*/false);
    OpBuilder::InsertionGuard leadGuard(b);
    b.setInsertionPointToStart(&lead.getThenRegion().front());
    RingExpectOp::create(b, full, shape.stageBytes);
  }
  if (shape.tensorStage()) {
    // Box b of the stage: every row of the block, K [b x boxK, + boxK) of
    // the stage, dense at b x the box's bytes in the slot. Lane l issues
    // boxes l, l + lanes, ...
    int64_t boxK = shape.boxK();
    int64_t boxBytes = shape.featuresPerCta() * boxK * 2;
    Value firstK = add(mul(split, shape.k / shape.splits),
                       constant(stage * shape.stageK()));
    Value slotStart = constant(slot * shape.slotBytes());
    if (lanes > 1) {
      firstK = add(firstK, mul(producerLane, boxK));
      slotStart = add(slotStart, mul(producerLane, boxBytes));
    }
    Value ring = LLVM::AddressOfOp::create(b, dynamicShared);
    Value row = passFeature(pass);
    for (int64_t box = 0; box < copies; box += lanes) {
      Value into = elementAddress(ring, add(slotStart, box * boxBytes),
                                  b.getI8Type(), sharedPtr);
      BulkTensorCopyOp::create(b, boxBytes, values.weightMap,
                               add(firstK, box * boxK), row, into, full,
                               weightPolicy);
    }
    return;
  }
  // One copy per row, or one for the whole stage where it is contiguous:
  // row r of the block, K [stage x stage K, + stage K) of the split's slice.
  // Lane l issues copies l, l + lanes, ...: one warp instruction issues a
  // copy from every producer lane at once.
  Value firstRow =
      add(passFeature(pass), lanes == 1 ? constant(0) : producerLane);
  Value source =
      add(mul(firstRow, shape.k), add(mul(split, shape.k / shape.splits),
                                      constant(stage * shape.stageK())));
  Value ring = LLVM::AddressOfOp::create(b, dynamicShared);
  Value slotBase =
      add(lanes == 1 ? constant(0) : mul(producerLane, shape.stageRowBytes()),
          slot * shape.slotBytes());
  int64_t copyBytes = shape.stageBytes / copies;
  for (int64_t r = 0; r < copies; r += lanes) {
    Value from = elementAddress(weight, add(source, r * shape.k),
                                b.getBF16Type(), globalPtr);
    Value into = elementAddress(ring, add(slotBase, r * shape.stageRowBytes()),
                                b.getI8Type(), sharedPtr);
    BulkCopyOp::create(b, copyBytes, from, into, full, weightPolicy);
  }
}

void GemmBodyBuilder::readStage(int64_t load, Fragments &upperRows,
                                Fragments &lowerRows) {
  int64_t slot = load % shape.stages;
  RingWaitOp::create(b, ringBarrier(ringFull, slot), (load / shape.stages) % 2);
  Value ring = LLVM::AddressOfOp::create(b, dynamicShared);
  Value laneBase = add(stageLaneByte, slot * shape.slotBytes());
  int64_t chunksPerStage = chunks / shape.stagesPerPass();
  int64_t pitch = shape.stageRowBytes();
  upperRows.assign(tiles, {});
  lowerRows.assign(tiles, {});
  for (int64_t c = 0; c < chunksPerStage; ++c) {
    // With boxes, chunk c of the warp lies in box (warp's K + 32c) / boxK.
    Value chunkBase = laneBase;
    if (shape.tensorStage()) {
      Value chunkK = add(warpStageK, c * kChunkK);
      Value box = arith::DivUIOp::create(b, chunkK, constant(shape.boxK()));
      Value inBox = arith::RemUIOp::create(b, chunkK, constant(shape.boxK()));
      chunkBase = add(add(laneBase, mul(box, features * shape.boxK() * 2)),
                      mul(inBox, 2));
    }
    for (int64_t r = 0; r < tiles; ++r) {
      int64_t upper = r * kFeaturesPerTile * pitch +
                      (shape.tensorStage() ? 0 : c * kChunkK * 2);
      for (auto [rowsOf, offset] :
           {std::pair{&upperRows, upper}, {&lowerRows, upper + 8 * pitch}}) {
        Value address = elementAddress(ring, add(chunkBase, offset),
                                       b.getI8Type(), sharedPtr);
        (*rowsOf)[r].push_back(
            LLVM::LoadOp::create(b, fragmentWords, address, /*alignment=*/16));
      }
    }
  }
  // This thread's reads are done (their values are in registers): release
  // the slot if a later load refills it. The refill is an async-proxy write
  // after these generic reads, so the release takes the proxy fence (tensor
  // copies were measured overwriting slots still being read without it:
  // docs/design/gemm.md, "Tensor copies").
  if (load + shape.stages < shape.passes * shape.stagesPerPass())
    RingReleaseOp::create(b, ringBarrier(ringEmpty, slot), /*fenced=*/true);
}

void GemmBodyBuilder::buildBulk(gpu::GPUModuleOp module) {
  createReductionBuffers(module);
  computeLaneCoordinates();
  weightPolicy = EvictFirstPolicyOp::create(b);
  // The tensor map's fetch overlaps the ring's set-up rather than delaying
  // the first copy.
  if (shape.tensorStage()) {
    auto lead = scf::IfOp::create(b, isThreadZero(), /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&lead.getThenRegion().front());
    PrefetchTensorMapOp::create(b, values.weightMap);
  }
  if (shape.splits > 1)
    initSplitBarrier(module);
  createRing(module);
  if (values.pdl && shape.earlyDependents)
    NVVM::GriddepcontrolOp::create(b,
                                   NVVM::GridDepActionKind::launch_dependents);
  // The first `stages` loads before the PDL wait: they overlap the previous
  // kernel's tail.
  int64_t stagesPerPass = shape.stagesPerPass();
  int64_t loads = shape.passes * stagesPerPass;
  for (int64_t load = 0; load < std::min(shape.stages, loads); ++load)
    fillStage(load);
  // The leading loads the tactic (or, left out, the rule) reads before the
  // wait too: the weights do not depend on the previous kernel, so only x,
  // the MMAs and the reduction follow it (one pass, o_proj tp 16 at M =
  // 2..8: 2.76-2.91 -> 2.39-2.60 us; docs/design/gemm.md, "Reads before the
  // wait"). A load read here is released here, and its refill is issued
  // after the wait, in the loop below.
  int64_t earlyReads = shape.earlyReadLoads();
  SmallVector<Fragments> earlyUpper(earlyReads), earlyLower(earlyReads);
  for (int64_t load = 0; load < earlyReads; ++load)
    readStage(load, earlyUpper[load], earlyLower[load]);
  waitForPredecessor();
  Value earlyStage = readStageEarly(module);
  // x once, for every pass: chunk c of a warp is chunk c % (chunks a stage)
  // of stage c / (chunks a stage).
  int64_t chunksPerStage = chunks / stagesPerPass;
  int64_t stageK = shape.stageK();
  Fragments activations = loadActivations([&](int64_t c) {
    return c / chunksPerStage * stageK + c % chunksPerStage * kChunkK;
  });
  // One load behind: after consuming load t the producer refills the slot
  // of load t - lag, whose every reader is most likely done by then.
  int64_t lag = shape.stages > 1 ? 1 : 0;
  for (int64_t pass = 0; pass < shape.passes; ++pass) {
    Accumulators accumulators = zeroAccumulators();
    int64_t stepIndex = 0;
    for (int64_t stage = 0; stage < stagesPerPass; ++stage) {
      int64_t load = pass * stagesPerPass + stage;
      Fragments upperRows, lowerRows;
      if (load < earlyReads) {
        upperRows = std::move(earlyUpper[load]);
        lowerRows = std::move(earlyLower[load]);
      } else {
        readStage(load, upperRows, lowerRows);
      }
      for (int64_t c = 0; c < chunksPerStage; ++c)
        multiplyChunk(accumulators, upperRows, lowerRows, activations, c,
                      stage * chunksPerStage + c, stepIndex);
      // After this load's MMAs: by then the other warps have most likely
      // released the slot, and warp 0's MMAs did not wait for them.
      int64_t refill = load - lag + shape.stages;
      if (load >= lag && refill < loads)
        fillStage(refill);
    }
    finishPass(accumulators, pass, earlyStage);
  }
}
