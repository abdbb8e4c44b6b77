//===- GemmPublishReduction.cpp - The GEMM's split-K sum and epilogue -----===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// The tail of lamport.gemm_publish's kernel: each warp's FP32 partial into
// shared memory, the CTA's sum over its warps in warp order, every other
// cluster rank's sum sent into rank 0's shared memory (a
// lamport.cluster.send exchange, whose bytes complete rank 0's split
// barrier), then rank 0 sums the splits in split order, rounds to BF16,
// stores y and publishes it. The order depends only on splits, kw and accs,
// so runs are bitwise reproducible (GemmPublishKernel.cpp).
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

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::lamport;

void GemmBodyBuilder::createReductionBuffers(gpu::GPUModuleOp module) {
  if (!shape.dynamicSharedBytes()) {
    partials = {
        sharedArray(module, "warp_partials", shape.warps * ctaElements)};
    splitSums = {sharedArray(module, "split_sums", shape.splits * ctaElements)};
    return;
  }
  // With the bulk pipeline the ring comes first (its slots 16-byte aligned
  // at the array's start), the reduction after it.
  LLVM::GlobalOp reduction = createDynamicSharedArray(
      b, b.getLoc(), module, shape.bulk ? "ring" : "reduction", b.getF32Type());
  // A tensor copy's destination is 128-byte aligned.
  if (shape.tensorStage())
    reduction.setAlignment(128);
  dynamicShared = reduction;
  int64_t first = shape.ringBytes() / 4;
  partials = {reduction, first};
  splitSums = {reduction, first + shape.warps * ctaElements};
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
