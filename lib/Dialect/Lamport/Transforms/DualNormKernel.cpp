//===- DualNormKernel.cpp - The fused boundary consumer and the dual norm -===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// lamport.all_reduce_dual_norm and lamport.dual_norm as kernels, built by one
// body builder that differs only in how a thread obtains the FP32 r of its
// fragments: the tp partials polled from the ACTIVE stage, summed in the
// op's sum order (sumPartials, as lamport.all_reduce sums them) and
// re-armed; or the BF16 `reduced` row widened. Everything after r is the same
// ops in the same order, so where r is a BF16 value (the fused sum rounds to
// itself) both kernels write the same out and stream bits.
//
// all_reduce_dual_norm with `publishing(%partial)` is the whole boundary in
// one kernel: each thread stores its fragments of this rank's partial into
// slot [NEXT, rank] of every copy before it polls them, so its stage is NEXT
// (not ACTIVE, which no publisher set for it), and since a CTA that starts
// late must still read that NEXT, every CTA counts itself out on ARRIVALS
// (lamport.stage.arrive) once its threads have read NEXT, before it
// publishes, and the last to arrive sets ACTIVE and advances NEXT when it is
// done (its fence then waits for no store of the exchange).
//
// Launch: one cluster of C CTAs per token, grid (rows, C), cluster (1, C), T
// threads a CTA. A row of H BF16 is F = H / 8 fragments; T = min(128, F)
// (256 where H > 32768), C = min(8, ceil(F / T)) (8: the portable cluster
// size) and each thread takes K = ceil(F / (C * T)) fragments,
// f = (k * C + cta) * T + thread, keeping their r and stream values in
// registers between the two norms.
// Clusters of tokens past M skip the row together, so no cluster barrier
// waits for a CTA that left.
//
// Order of a thread: the weights and scalar gates (they do not depend on
// the previous kernel, so with `pdl` they load before griddepcontrol.wait),
// the wait, ACTIVE (when publishing: the partial's fragments, then NEXT and
// the arrival, then the fragments published), the old stream and
// per-channel gates, whose loads fly while the thread polls for r, then r.
//
// Row sums, in one fixed order so that every rank and every CTA computes the
// same bits: each thread adds its squares in fragment then lane order; a
// warp adds its lanes with a butterfly shuffle (offsets 16, 8, 4, 2, 1; every
// lane ends with the same bits since a + b == b + a); lane 0 stores the warp
// sum in shared memory; thread 0 adds the warps in warp order. With a
// cluster, threads 0..C-1 each add the warps and send the CTA's sum into
// its slot in CTA `thread` of the cluster with st.async, whose bytes
// complete that CTA's mbarrier for the sum, and every thread waits on its
// own CTA's mbarrier and adds the C slots in cluster rank order 0..C-1. The two
// sums have their own slots and mbarriers, set up before griddepcontrol.wait
// and published by the kernel's one cluster barrier; no CTA reads another's
// shared memory, so none has to wait for its peers before it exits. (Cluster
// barriers around distributed shared memory reads cost about 1.1 us of a 2.6 us
// step of the dual norm alone on an H200.)
//
// inv = 1 / sqrt(sum / H + eps) is correctly rounded at each step (sqrt.rn,
// div.rn or the equal rcp.rn), never an approximate rsqrt: the same bits on
// every GPU and in a host model.
//
//===----------------------------------------------------------------------===//

#include "DualNormKernel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

#include "llvm/ADT/SmallVectorExtras.h"

using namespace mlir;
using namespace mlir::lamport;

SmallVector<Value>
DualNormBodyBuilder::guarded(Value condition, TypeRange types,
                             function_ref<SmallVector<Value>()> then) {
  if (!condition)
    return then();
  auto ifOp = scf::IfOp::create(b, types, condition, /*addThenBlock=*/true,
                                /*addElseBlock=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  scf::YieldOp::create(b, then());
  b.setInsertionPointToStart(&ifOp.getElseRegion().front());
  SmallVector<Value> zeros;
  for (Type type : types)
    zeros.push_back(arith::ConstantOp::create(b, b.getZeroAttr(type)));
  scf::YieldOp::create(b, zeros);
  return SmallVector<Value>(ifOp.getResults());
}

void DualNormBodyBuilder::guarded(Value condition, function_ref<void()> then) {
  if (!condition)
    return then();
  auto ifOp = scf::IfOp::create(b, condition, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  then();
}

void DualNormBodyBuilder::build(gpu::GPUModuleOp module) {
  warpSums = sharedArray(module, "warp_sums", 2 * shape.warps());
  if (shape.ctas > 1) {
    ctaSums = sharedArray(module, "cta_sums", 2 * shape.ctas);
    sumBarriers = sharedArray(module, "sum_barriers", 2, b.getI64Type());
  }
  computeCoordinates();
  if (shape.ctas > 1)
    initSumBarriers();
  loadParameters();
  // Guarded: else ptxas hoists the wait above the parameter loads, and they
  // wait for the previous kernel instead of overlapping it.
  if (values.pdl) {
    Value guardValue = source.guardValue(b);
    PdlWaitOp::create(b, values.launchTokens, values.out, guardValue);
  }
  loadPublished();
  source.prepare(b);
  if (shape.ctas > 1)
    waitForSumBarriers();
  // Every CTA of a cluster has the same token, so a cluster past M skips
  // the row as a whole: no CTA waits for a sum a skipping one never sends.
  guarded(active, [&] { normalizeRow(); });
  source.finish(b);
}

void DualNormBodyBuilder::initSumBarriers() {
  Value isThreadZero = arith::CmpIOp::create(b, arith::CmpIPredicate::eq,
                                             thread32, i32Constant(0));
  // Released by the kernel's one cluster barrier (waitForSumBarriers),
  // which every CTA passes before it sends.
  SmallVector<Value> barriers;
  for (int64_t reduction = 0; reduction < 2; ++reduction)
    barriers.push_back(
        sharedElement(sumBarriers, i32Constant(reduction), b.getI64Type()));
  expectClusterBytes(b, b.getLoc(), isThreadZero, barriers, shape.ctas * 4);
}

void DualNormBodyBuilder::waitForSumBarriers() {
  NVVM::ClusterWaitOp::create(b, UnitAttr());
}

void DualNormBodyBuilder::computeCoordinates() {
  token = gpu::BlockIdOp::create(b, gpu::Dimension::x);
  Value cta = gpu::BlockIdOp::create(b, gpu::Dimension::y);
  // The cluster is (1, C) over a grid (rows, C): the rank in the cluster is
  // the CTA's y.
  ctaRank = arith::IndexCastUIOp::create(b, i32, cta);
  thread = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  thread32 = arith::IndexCastUIOp::create(b, i32, thread);
  lane = arith::AndIOp::create(b, thread32, i32Constant(kWarpSize - 1));
  warp = arith::ShRUIOp::create(b, thread32, i32Constant(5));
  active =
      arith::CmpIOp::create(b, arith::CmpIPredicate::ult, token, values.tokens);
  Value lanes = indexConstant(LamportDialect::kFragmentLanes);
  Value fragmentCount = indexConstant(shape.fragments);
  // Fragment k of a thread: f = (k * C + cta) * T + thread, so the threads
  // of a warp take consecutive fragments.
  Value first = arith::AddIOp::create(
      b, arith::MulIOp::create(b, cta, indexConstant(shape.threads)), thread);
  for (int64_t k = 0; k < shape.fragmentsPerThread; ++k) {
    Fragment fragment;
    Value index = arith::AddIOp::create(
        b, first, indexConstant(k * shape.ctas * shape.threads));
    // Only the last fragment of a thread can lie past the row.
    if (shape.needsGuard() && k == shape.fragmentsPerThread - 1)
      fragment.inRow = arith::CmpIOp::create(b, arith::CmpIPredicate::ult,
                                             index, fragmentCount);
    fragment.col = arith::MulIOp::create(b, index, lanes);
    fragments.push_back(fragment);
  }
}

void DualNormBodyBuilder::loadParameters() {
  // Scalar gates: one load each, broadcast; per-channel ones are loaded with
  // the stream.
  Value zero = indexConstant(0);
  auto scalarGate = [&](Value gate) -> Value {
    if (cast<MemRefType>(gate.getType()).getDimSize(0) != 1)
      return Value();
    return splat(memref::LoadOp::create(b, gate, ValueRange{zero}));
  };
  Value alpha = scalarGate(values.alpha), beta = scalarGate(values.beta);

  // The weights stay BF16 until used: 4 registers per fragment each while
  // the thread waits for the previous kernel and for r.
  for (Fragment &fragment : fragments) {
    fragment.alpha = alpha;
    fragment.beta = beta;
    Value condition = isLive(fragment);
    SmallVector<Type> types(1 + bool(values.postWeight), narrowType);
    SmallVector<Value> loaded = guarded(condition, types, [&] {
      SmallVector<Value> result = {
          vectorLoad(narrowType, values.nextWeight, fragment.col)};
      if (values.postWeight)
        result.push_back(
            vectorLoad(narrowType, values.postWeight, fragment.col));
      return result;
    });
    fragment.nextWeight = loaded[0];
    if (values.postWeight)
      fragment.postWeight = loaded[1];
  }
}

void DualNormBodyBuilder::loadPublished() {
  if (!source.publishes())
    return;
  // Loaded in publish() instead, the SASS had it after the stage read, the
  // barrier, the arrival's fence and the cluster wait: a second global
  // round trip on the way to the exchange (0.02-0.03 us of a 3.3-4.3 us tp 2
  // boundary when measured).
  for (Fragment &fragment : fragments) {
    Value condition = isLive(fragment);
    fragment.published = guarded(condition, narrowType, [&] {
      return SmallVector<Value>{source.loadPublished(b, token, fragment.col)};
    })[0];
  }
}

Value DualNormBodyBuilder::sumSquares(ArrayRef<Value> vectors) {
  Value sum = f32Constant(0.0f);
  for (auto [fragment, vector] : llvm::zip_equal(fragments, vectors)) {
    Value squares = arith::MulFOp::create(b, vector, vector);
    // Where a fragment may lie past the row, its squares are zeroed
    // explicitly: gates that are not finite must not leak into the sum.
    if (fragment.inRow)
      squares = arith::SelectOp::create(
          b, fragment.inRow, squares,
          arith::ConstantOp::create(b, b.getZeroAttr(wideType)));
    for (int64_t i = 0; i < LamportDialect::kFragmentLanes; ++i)
      sum = arith::AddFOp::create(b, sum,
                                  vector::ExtractOp::create(b, squares, i));
  }
  return sum;
}

Value DualNormBodyBuilder::sumRow(Value threadSum, int64_t reduction) {
  // The warp: a butterfly over the lanes, in a fixed order of offsets.
  Value sum = threadSum;
  Value allLanes = i32Constant(-1);
  Value clamp = i32Constant(kWarpSize - 1);
  for (int64_t offset = kWarpSize / 2; offset >= 1; offset /= 2) {
    Value other =
        NVVM::ShflOp::create(b, f32, allLanes, sum, i32Constant(offset), clamp,
                             NVVM::ShflKind::bfly, UnitAttr());
    sum = arith::AddFOp::create(b, sum, other);
  }
  Value warpBase = i32Constant(reduction * shape.warps());
  Value isLaneZero =
      arith::CmpIOp::create(b, arith::CmpIPredicate::eq, lane, i32Constant(0));
  guarded(isLaneZero, [&] {
    LLVM::StoreOp::create(
        b, sum,
        sharedElement(warpSums, arith::AddIOp::create(b, warpBase, warp)));
  });
  NVVM::Barrier0Op::create(b);

  // The CTA: its warps in warp order.
  auto sumWarps = [&]() -> Value {
    Value total;
    for (int64_t w = 0; w < shape.warps(); ++w) {
      Value value = LLVM::LoadOp::create(
          b, f32,
          sharedElement(warpSums, i32Constant(reduction * shape.warps() + w)));
      total = total ? Value(arith::AddFOp::create(b, total, value)) : value;
    }
    return total;
  };
  if (shape.ctas == 1)
    return sumWarps();

  // The cluster: threads 0..C-1 (lanes of warp 0) each add the warps and
  // send the CTA's sum into slot [reduction, this CTA] of CTA `thread`, so
  // the C sends leave together (lamport.cluster.send), whose bytes complete
  // that CTA's mbarrier of this reduction; every thread waits for its own CTA's
  // barrier (all C sums arrived) and adds the C slots in cluster rank
  // order, which is CTA y order. No cluster barrier: a CTA leaves only
  // after every sum meant for it arrived, and no CTA reads another's shared
  // memory.
  Value isSender = arith::CmpIOp::create(b, arith::CmpIPredicate::ult, thread32,
                                         i32Constant(shape.ctas));
  Value firstSlot = i32Constant(reduction * shape.ctas);
  Value barrier =
      sharedElement(sumBarriers, i32Constant(reduction), b.getI64Type());
  guarded(isSender, [&] {
    Value ownSlot =
        sharedElement(ctaSums, arith::AddIOp::create(b, firstSlot, ctaRank));
    ClusterSendOp::create(b, sumWarps(), ownSlot, barrier, thread32);
  });
  // Phase 0 of the barrier: each is used once per launch.
  ClusterWaitOp::create(b, barrier);
  Value total;
  for (int64_t rank = 0; rank < shape.ctas; ++rank) {
    Value value = LLVM::LoadOp::create(
        b, f32,
        sharedElement(ctaSums, i32Constant(reduction * shape.ctas + rank)));
    total = total ? Value(arith::AddFOp::create(b, total, value)) : value;
  }
  return total;
}

Value DualNormBodyBuilder::inverseRms(Value sum) {
  Value mean = arith::DivFOp::create(b, sum, f32Constant(float(shape.hidden)));
  Value shifted = arith::AddFOp::create(b, mean, f32Constant(values.eps));
  // sqrt.rn.f32 and div.rn.f32 (arith.divf): correctly rounded, so the same
  // bits on every GPU, unlike rsqrt.approx. llvm.nvvm.sqrt.rn.f rather than
  // llvm.intr.sqrt, which the GPU to NVVM conversion would send to libdevice.
  Value root = LLVM::CallIntrinsicOp::create(
                   b, f32, b.getStringAttr("llvm.nvvm.sqrt.rn.f"), shifted)
                   .getResult(0);
  return arith::DivFOp::create(b, f32Constant(1.0f), root);
}

void DualNormBodyBuilder::normalizeRow() {
  // Every fragment goes out before the first poll, so a thread never waits
  // for a peer's fragment while holding back one of its own.
  for (Fragment &fragment : fragments)
    guarded(fragment.inRow, [&] {
      source.publish(b, token, fragment.col, fragment.published);
    });
  // The old stream and the per-channel gates do not depend on r: loaded
  // before it, they are in flight while the thread waits for the partials
  // (the poll) instead of after it, on the way to the first norm.
  for (Fragment &fragment : fragments) {
    SmallVector<Type> types(1 + !fragment.alpha + !fragment.beta, wideType);
    SmallVector<Value> loaded = guarded(fragment.inRow, types, [&] {
      SmallVector<Value> result = {
          vectorLoad(wideType, values.stream, ValueRange{token, fragment.col})};
      if (!fragment.alpha)
        result.push_back(vectorLoad(wideType, values.alpha, fragment.col));
      if (!fragment.beta)
        result.push_back(vectorLoad(wideType, values.beta, fragment.col));
      return result;
    });
    unsigned next = 0;
    fragment.stream = loaded[next++];
    if (!fragment.alpha)
      fragment.alpha = loaded[next++];
    if (!fragment.beta)
      fragment.beta = loaded[next++];
  }
  for (Fragment &fragment : fragments)
    fragment.reduced =
        guarded(fragment.inRow, wideType, [&] {
          return SmallVector<Value>{source.read(b, token, fragment.col)};
        }).front();
  // r is in registers: the next kernel may start its prologue (its weight
  // loads) during the norms; its griddepcontrol.wait still waits for this
  // grid to complete. CTAs of tokens past M signal by exiting.
  if (values.pdl)
    NVVM::GriddepcontrolOp::create(b,
                                   NVVM::GridDepActionKind::launch_dependents);
  // h = r * inv1 [* post_weight]; stream = alpha * stream + beta * h.
  SmallVector<Value> reduced = llvm::map_to_vector(
      fragments, [](const Fragment &fragment) { return fragment.reduced; });
  Value firstInverse = splat(inverseRms(sumRow(sumSquares(reduced), 0)));
  for (Fragment &fragment : fragments) {
    Value h = arith::MulFOp::create(b, fragment.reduced, firstInverse);
    if (fragment.postWeight)
      h = arith::MulFOp::create(b, h, widen(fragment.postWeight));
    Value kept = arith::MulFOp::create(b, fragment.alpha, fragment.stream);
    Value added = arith::MulFOp::create(b, fragment.beta, h);
    fragment.stream = arith::AddFOp::create(b, kept, added);
  }

  // out = bf16((stream * inv2) * next_weight), round to nearest even.
  SmallVector<Value> streams = llvm::map_to_vector(
      fragments, [](const Fragment &fragment) { return fragment.stream; });
  Value secondSum = sumRow(sumSquares(streams), 1);
  Value secondInverse = splat(inverseRms(secondSum));
  for (Fragment &fragment : fragments) {
    guarded(fragment.inRow, [&] {
      SmallVector<Value> indices = {token, fragment.col};
      vector::StoreOp::create(b, fragment.stream, values.stream, indices,
                              /*nontemporal=*/false, llvm::MaybeAlign(16));
      Value scaled = arith::MulFOp::create(b, fragment.stream, secondInverse);
      Value normalized =
          arith::MulFOp::create(b, scaled, widen(fragment.nextWeight));
      // arith.truncf without a rounding mode is LLVM's fptrunc: round to
      // nearest even (cvt.rn.bf16x2.f32).
      Value rounded = arith::TruncFOp::create(b, narrowType, normalized);
      vector::StoreOp::create(b, rounded, values.out, indices,
                              /*nontemporal=*/false, llvm::MaybeAlign(16));
    });
  }
}
