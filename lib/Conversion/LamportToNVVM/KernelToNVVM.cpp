//===- KernelToNVVM.cpp - Cluster exchanges, PDL waits, L2 loads to NVVM --===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// The kernel-level ops that are not about a mailbox. mbarrier set-up and
// waits, and the stage ring's bulk copies, become upstream nvvm.mbarrier.*
// and nvvm.cp.async.bulk ops; the asynchronous cluster store,
// the PDL wait's guard store and the L2-policy load have no NVVM op and
// become the PTX of PTX.cpp.
//
//===----------------------------------------------------------------------===//

#include "Descriptor.h"
#include "PTX.h"
#include "Patterns.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::lamport;

/// Suspend-time hint of an mbarrier wait, in nanoseconds: the longest a
/// waiting thread sleeps before it tests the phase again. A thread resumes
/// as soon as the phase completes, so a long hint costs no latency and keeps
/// the retry loop from spinning.
static constexpr int32_t kMbarrierSuspendHintNs = 10000000;

/// `mbarrier.init` of \p barrier for \p arrivals (i32) arrivals.
static void initBarrier(OpBuilder &b, Location loc, Value barrier,
                        Value arrivals) {
  NVVM::MBarrierInitOp::create(b, loc, barrier, arrivals,
                               /*predicate=*/Value());
}

/// `mbarrier.arrive.expect_tx` of \p bytes (i32) on \p barrier (CTA scope).
static void arriveExpectingBytes(OpBuilder &b, Location loc, Value barrier,
                                 Value bytes) {
  NVVM::MBarrierArriveExpectTxOp::create(
      b, loc, /*res=*/Type(), barrier, bytes, NVVM::MemScopeKind::CTA,
      /*relaxed=*/false, /*predicate=*/Value());
}

/// Replaces \p op with `mbarrier.try_wait.parity` on \p barrier until phase
/// \p parity completes (the upstream op loops).
static void replaceWithParityWait(ConversionPatternRewriter &rewriter,
                                  Operation *op, Value barrier,
                                  int64_t parity) {
  Location loc = op->getLoc();
  rewriter.replaceOpWithNewOp<NVVM::MBarrierTryWaitParityOp>(
      op, barrier, createIntConstant(rewriter, loc, 32, parity),
      createIntConstant(rewriter, loc, 32, kMbarrierSuspendHintNs));
}

namespace {

/// lamport.cluster.expect_bytes: `mbarrier.init` with one arrival, then
/// that arrival with `expect_tx` of the bytes.
struct ClusterExpectBytesLowering
    : public ConvertOpToLLVMPattern<ClusterExpectBytesOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(ClusterExpectBytesOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value one = createIntConstant(rewriter, loc, 32, 1);
    Value bytes = createIntConstant(rewriter, loc, 32, op.getBytes());
    initBarrier(rewriter, loc, adaptor.getBarrier(), one);
    arriveExpectingBytes(rewriter, loc, adaptor.getBarrier(), bytes);
    rewriter.eraseOp(op);
    return success();
  }
};

/// lamport.cluster.send: the peer's slot and barrier through `mapa`, then
/// `st.async` completing 4 bytes of that barrier.
struct ClusterSendLowering : public ConvertOpToLLVMPattern<ClusterSendOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(ClusterSendOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto clusterPtr = LLVM::LLVMPointerType::get(rewriter.getContext(), 7);
    Value remoteSlot = NVVM::MapaOp::create(
        rewriter, loc, clusterPtr, adaptor.getSlot(), adaptor.getRank());
    Value remoteBarrier = NVVM::MapaOp::create(
        rewriter, loc, clusterPtr, adaptor.getBarrier(), adaptor.getRank());
    Value bits = adaptor.getValue();
    if (!bits.getType().isInteger(32))
      bits =
          LLVM::BitcastOp::create(rewriter, loc, rewriter.getI32Type(), bits);
    ptx::storeAsyncToCluster(rewriter, loc, remoteSlot, bits, remoteBarrier);
    rewriter.eraseOp(op);
    return success();
  }
};

/// lamport.cluster.wait: `mbarrier.try_wait.parity` on phase 0 until it
/// completes (the upstream op loops).
struct ClusterWaitLowering : public ConvertOpToLLVMPattern<ClusterWaitOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(ClusterWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    replaceWithParityWait(rewriter, op, adaptor.getBarrier(), /*parity=*/0);
    return success();
  }
};

/// lamport.pdl.wait: the never-taken guard store, then griddepcontrol.wait.
struct PdlWaitLowering : public ConvertOpToLLVMPattern<PdlWaitOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(PdlWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    // The guard's address from the memref itself (not the adaptor's
    // descriptor): convert-gpu-to-nvvm lowers the memref ops later.
    Value address = memref::ExtractAlignedPointerAsIndexOp::create(
        rewriter, loc, op.getGuard());
    Value asInt = arith::IndexCastUIOp::create(rewriter, loc,
                                               rewriter.getI64Type(), address);
    Value guard = LLVM::IntToPtrOp::create(
        rewriter, loc, LLVM::LLVMPointerType::get(rewriter.getContext(), 1),
        asInt);
    ptx::keepLoadsBeforeWait(rewriter, loc, adaptor.getLaunchTokens(), guard,
                             adaptor.getGuardValue());
    rewriter.replaceOpWithNewOp<NVVM::GriddepcontrolOp>(
        op, NVVM::GridDepActionKind::wait);
    return success();
  }
};

/// lamport.l2.evict_first_policy: `createpolicy` (no side effects, so
/// LLVM may share one among the kernel's loads).
struct EvictFirstPolicyLowering
    : public ConvertOpToLLVMPattern<EvictFirstPolicyOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(EvictFirstPolicyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, ptx::createEvictFirstPolicy(rewriter, op.getLoc()));
    return success();
  }
};

/// lamport.l2.load_fragment: `ld.global.L2::cache_hint.v4.b32`.
struct LoadFragmentLowering : public ConvertOpToLLVMPattern<LoadFragmentOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(LoadFragmentOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, ptx::loadFragmentWithPolicy(rewriter, op.getLoc(),
                                                       adaptor.getAddress(),
                                                       adaptor.getPolicy()));
    return success();
  }
};

/// lamport.ring.init: `mbarrier.init`, then `fence.mbarrier_init` so the
/// bulk-copy engine's transactions see the initialized barrier.
struct RingInitLowering : public ConvertOpToLLVMPattern<RingInitOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(RingInitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    initBarrier(rewriter, loc, adaptor.getBarrier(),
                createIntConstant(rewriter, loc, 32, op.getArrivals()));
    rewriter.replaceOpWithNewOp<NVVM::FenceMbarrierInitOp>(op);
    return success();
  }
};

/// lamport.ring.expect: `mbarrier.arrive.expect_tx` of the stage's bytes.
struct RingExpectLowering : public ConvertOpToLLVMPattern<RingExpectOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(RingExpectOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    arriveExpectingBytes(rewriter, loc, adaptor.getBarrier(),
                         createIntConstant(rewriter, loc, 32, op.getBytes()));
    rewriter.eraseOp(op);
    return success();
  }
};

/// The shared::cluster address of `shared`, a pointer into the CTA's own
/// shared memory: the destination the bulk copies take.
static Value toClusterShared(OpBuilder &b, Location loc, Value shared) {
  auto clusterPtr = LLVM::LLVMPointerType::get(
      b.getContext(),
      static_cast<unsigned>(NVVM::NVVMMemorySpace::SharedCluster));
  return LLVM::AddrSpaceCastOp::create(b, loc, clusterPtr, shared);
}

/// lamport.bulk.copy: `cp.async.bulk.shared::cluster.global` with the L2
/// policy as its cache hint (the CTA's own shared memory is a
/// shared::cluster address).
struct BulkCopyLowering : public ConvertOpToLLVMPattern<BulkCopyOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(BulkCopyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value destination =
        toClusterShared(rewriter, loc, adaptor.getDestination());
    NVVM::CpAsyncBulkGlobalToSharedClusterOp::create(
        rewriter, loc, destination, adaptor.getSource(), adaptor.getBarrier(),
        createIntConstant(rewriter, loc, 32, op.getBytes()),
        /*multicastMask=*/Value(), adaptor.getPolicy());
    rewriter.eraseOp(op);
    return success();
  }
};

/// lamport.bulk.copy_tensor: `cp.async.bulk.tensor.2d.shared::cluster.global`
/// with the L2 policy as its cache hint.
struct BulkTensorCopyLowering
    : public ConvertOpToLLVMPattern<BulkTensorCopyOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(BulkTensorCopyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value destination =
        toClusterShared(rewriter, loc, adaptor.getDestination());
    NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
        rewriter, loc, destination, adaptor.getTensorMap(),
        ValueRange{adaptor.getInner(), adaptor.getOuter()},
        adaptor.getBarrier(), /*im2colOffsets=*/ValueRange(),
        /*multicastMask=*/Value(), adaptor.getPolicy(), NVVM::TMALoadMode::TILE,
        /*isCTAOnly=*/false,
        /*group=*/NVVM::CTAGroupKindAttr(), /*predicate=*/Value());
    rewriter.eraseOp(op);
    return success();
  }
};

/// lamport.bulk.prefetch_tensor_map: `prefetch.tensormap` of the generic
/// address.
struct PrefetchTensorMapLowering
    : public ConvertOpToLLVMPattern<PrefetchTensorMapOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(PrefetchTensorMapOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto prefetch = NVVM::PrefetchOp::create(
        rewriter, op.getLoc(), /*cacheLevel=*/nullptr,
        /*evictPriority=*/nullptr, adaptor.getTensorMap(),
        /*predicate=*/Value());
    prefetch.setTensormap(true);
    rewriter.eraseOp(op);
    return success();
  }
};

/// lamport.ring.wait: `mbarrier.try_wait.parity` until the phase completes
/// (the upstream op loops).
struct RingWaitLowering : public ConvertOpToLLVMPattern<RingWaitOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(RingWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    replaceWithParityWait(rewriter, op, adaptor.getBarrier(), op.getParity());
    return success();
  }
};

/// lamport.ring.release: `mbarrier.arrive` (release, CTA scope), after
/// `fence.proxy.async.shared::cta` where `fenced`.
struct RingReleaseLowering : public ConvertOpToLLVMPattern<RingReleaseOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(RingReleaseOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    MLIRContext *ctx = rewriter.getContext();
    if (op.getFenced())
      NVVM::FenceProxyOp::create(
          rewriter, op.getLoc(),
          NVVM::ProxyKindAttr::get(ctx, NVVM::ProxyKind::async_shared),
          NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
    NVVM::MBarrierArriveOp::create(rewriter, op.getLoc(), /*res=*/Type(),
                                   adaptor.getBarrier(), /*count=*/Value());
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::lamport::populateKernelToNVVMPatterns(LLVMTypeConverter &converter,
                                                 RewritePatternSet &patterns) {
  patterns
      .add<ClusterExpectBytesLowering, ClusterSendLowering, ClusterWaitLowering,
           PdlWaitLowering, EvictFirstPolicyLowering, LoadFragmentLowering,
           RingInitLowering, RingExpectLowering, BulkCopyLowering,
           BulkTensorCopyLowering, PrefetchTensorMapLowering, RingWaitLowering,
           RingReleaseLowering>(converter);
}
