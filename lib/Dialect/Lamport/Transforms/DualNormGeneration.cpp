//===- DualNormGeneration.cpp - The two dual norm ops' kernels
//-------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// Where r comes from in each op's kernel (a ReducedSource: the mailbox's tp
// partials for lamport.all_reduce_dual_norm, the reduced row for
// lamport.dual_norm), and the kernel of each op, whose body
// DualNormKernel.cpp builds.
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

using namespace mlir;
using namespace mlir::lamport;

namespace {
/// The fused kernel: the tp partials of the ACTIVE stage, summed in the op's
/// order and re-armed as soon as they are in registers; NEXT advanced once
/// per grid. With a `partial` buffer the kernel is also the publisher: the
/// stage is NEXT, each thread publishes its fragments before it polls them,
/// and the last CTA to arrive sets ACTIVE and advances NEXT (no CTA of the
/// grid may read NEXT after it moved).
class MailboxSource : public ReducedSource {
public:
  MailboxSource(KernelBody &kernel, SumOrder order,
                std::optional<uint64_t> timeoutNs, Value partial,
                TransportAttr transport, int64_t gridCtas)
      : kernel(kernel), mailbox(kernel.getMailbox()), order(order),
        timeoutNs(timeoutNs), partial(partial), transport(transport),
        gridCtas(gridCtas) {}

  void prepare(ImplicitLocOpBuilder &b) override {
    if (!partial) {
      stage = StageActiveOp::create(b, b.getI32Type(), mailbox);
      return;
    }
    stage = StageNextOp::create(b, b.getI32Type(), mailbox);
    // Count the CTA out as soon as every one of its threads has read NEXT,
    // before anything it publishes: the arrival's fence then waits for no
    // store, and the count is tested only in finish(), so the atomic's round
    // trip overlaps the exchange instead of ending the grid (an in-order
    // warp stalls at the first use of the count, not at the atomic).
    gpu::BarrierOp::create(b);
    arrivalsBefore = StageArriveOp::create(b, mailbox, gridCtas);
  }

  bool publishes() const override { return bool(partial); }

  Value guardValue(ImplicitLocOpBuilder &b) override {
    if (!partial)
      return Value();
    return MailboxAddressDigestOp::create(b, b.getI64Type(), mailbox);
  }

  Value loadPublished(ImplicitLocOpBuilder &b, Value row, Value col) override {
    auto narrowType = VectorType::get({int64_t(LamportDialect::kFragmentLanes)},
                                      b.getBF16Type());
    return vector::LoadOp::create(b, narrowType, partial, ValueRange{row, col},
                                  /*nontemporal=*/false, llvm::MaybeAlign(16));
  }

  void publish(ImplicitLocOpBuilder &b, Value row, Value col,
               Value published) override {
    if (!partial)
      return;
    MailboxPublishOp::create(b, published, mailbox, stage, row, col,
                             /*target=*/Value(), transport,
                             /*releaseBefore=*/false);
  }

  Value read(ImplicitLocOpBuilder &b, Value row, Value col) override {
    auto wideType = VectorType::get({int64_t(LamportDialect::kFragmentLanes)},
                                    b.getF32Type());
    SmallVector<Value> partials;
    for (Value fragment :
         pollEverySlot(b, b.getLoc(), mailbox, stage, row, col, timeoutNs))
      partials.push_back(arith::ExtFOp::create(b, wideType, fragment));
    Value sum = sumPartials(b, b.getLoc(), partials, order);
    // The partials are in registers: the slots can take the sentinel now,
    // off the critical path of the norms.
    rearmEverySlot(b, b.getLoc(), mailbox, stage, row, col);
    return sum;
  }

  void finish(ImplicitLocOpBuilder &b) override {
    if (!partial) {
      kernel.onLeadThread(b, b.getLoc(), /*wholeGrid=*/true,
                          [&](OpBuilder &nested, Location loc) {
                            StageAdvanceOp::create(nested, loc, mailbox, stage);
                          });
      return;
    }
    // The last arrival acquires every other one (stage.arrive leaves that
    // to its user) before it moves the words no CTA of the grid reads again.
    Value last = arith::CmpIOp::create(
        b, arith::CmpIPredicate::eq, arrivalsBefore,
        arith::ConstantIntOp::create(b, gridCtas - 1, 32));
    scf::IfOp::create(b, last, [&](OpBuilder &nested, Location loc) {
      LLVM::FenceOp::create(nested, loc, LLVM::AtomicOrdering::acq_rel,
                            "device");
      StageSetActiveOp::create(nested, loc, mailbox, stage,
                               /*readAfterGrid=*/true);
      StageAdvanceOp::create(nested, loc, mailbox, stage);
      scf::YieldOp::create(nested, loc);
    });
  }

private:
  KernelBody &kernel;
  Value mailbox;
  SumOrder order;
  std::optional<uint64_t> timeoutNs;
  /// The publishing form's partial (memref<rows x H x bf16, 1>) and
  /// transport; null otherwise.
  Value partial;
  TransportAttr transport;
  /// CTAs of the grid: rows x cluster size.
  int64_t gridCtas;
  Value stage;
  /// i32, publishing form only: the CTAs that arrived before this one, on
  /// its thread 0; `gridCtas` on every other thread.
  Value arrivalsBefore;
};

/// The standalone kernel: r is the BF16 `reduced` row, widened exactly.
class BufferSource : public ReducedSource {
public:
  explicit BufferSource(Value reduced) : reduced(reduced) {}

  Value read(ImplicitLocOpBuilder &b, Value row, Value col) override {
    auto narrowType = VectorType::get({int64_t(LamportDialect::kFragmentLanes)},
                                      b.getBF16Type());
    auto wideType = VectorType::get({int64_t(LamportDialect::kFragmentLanes)},
                                    b.getF32Type());
    Value fragment =
        vector::LoadOp::create(b, narrowType, reduced, ValueRange{row, col},
                               /*nontemporal=*/false, llvm::MaybeAlign(16));
    return arith::ExtFOp::create(b, wideType, fragment);
  }

private:
  Value reduced;
};
} // namespace

//===----------------------------------------------------------------------===//
// The two ops
//===----------------------------------------------------------------------===//

namespace {
/// What the two ops share, read off either.
struct DualNormOperands {
  Value stream, alpha, beta, postWeight, nextWeight, out;
  FloatAttr eps;
  bool pdl = false;
  /// all_reduce_dual_norm's `publishing` partial, or null.
  Value partial = {};
};
} // namespace

/// The most tokens one launch carries: the static M of the first token
/// operand that has one, else `maxTokens`; and the operand whose M the
/// launch passes (a static one where there is one).
static std::pair<int64_t, Value> getRows(ArrayRef<Value> tokenOperands,
                                         int64_t maxTokens) {
  for (Value operand : tokenOperands) {
    auto type = cast<MemRefType>(operand.getType());
    if (!type.isDynamicDim(0))
      return {type.getDimSize(0), operand};
  }
  return {maxTokens, tokenOperands.front()};
}

/// Generates the kernel of either op: `reduced` is null for the fused one,
/// whose `mailbox` is then set; `makeSource` builds its ReducedSource.
static LogicalResult generateDualNorm(
    ProgramOpInterface op, Value mailbox, Value reduced,
    const DualNormOperands &operands, int64_t hidden, int64_t maxTokens,
    ArrayRef<NamedAttribute> extraAttributes,
    const KernelGenerationOptions &options,
    function_ref<std::unique_ptr<ReducedSource>(KernelBody &,
                                                const DualNormValues &)>
        makeSource) {
  DualNormShape shape = DualNormShape::get(hidden);
  std::string reason = shape.unsupported();
  if (!reason.empty())
    return op->emitOpError() << "has no kernel: " << reason;

  SmallVector<Value> tokenOperands;
  if (reduced)
    tokenOperands.push_back(reduced);
  if (operands.partial)
    tokenOperands.push_back(operands.partial);
  tokenOperands.append({operands.stream, operands.out});
  int64_t rows;
  Value tokensBuffer;
  std::tie(rows, tokensBuffer) = getRows(tokenOperands, maxTokens);

  KernelSignature signature;
  signature.family = op.getKernelFamily();
  signature.mailbox = mailbox;
  if (failed(addProgramBuffers(op, rows, signature)))
    return failure();
  signature.tokensBuffer = tokensBuffer;
  signature.tokensDim = 0;
  signature.pdl = operands.pdl;
  signature.launch = FixedLaunch{rows, shape.ctas, shape.threads, shape.ctas};
  MLIRContext *ctx = op->getContext();
  signature.attributes.push_back(
      NamedAttribute(StringAttr::get(ctx, "eps"), operands.eps));
  signature.attributes.append(extraAttributes.begin(), extraAttributes.end());

  return generateKernel(
      op, signature, options,
      [&](OpBuilder &builder, Location loc, KernelBody &kernel) {
        ImplicitLocOpBuilder b(loc, builder);
        unsigned next = reduced ? 1 : 0;
        DualNormValues values;
        values.stream = kernel.getBuffer(next++);
        values.alpha = kernel.getBuffer(next++);
        values.beta = kernel.getBuffer(next++);
        if (operands.postWeight)
          values.postWeight = kernel.getBuffer(next++);
        values.nextWeight = kernel.getBuffer(next++);
        values.out = kernel.getBuffer(next++);
        if (operands.partial)
          values.partial = kernel.getBuffer(next++);
        values.gridCtas = rows * shape.ctas;
        // An M past the rows of the grid (which the runtime rejects before
        // launch) must not make the kernel touch rows its buffers lack.
        values.launchTokens = kernel.getLaunchTokens();
        Value tokens = arith::IndexCastUIOp::create(b, b.getIndexType(),
                                                    values.launchTokens);
        values.tokens = arith::MinUIOp::create(
            b, tokens, arith::ConstantIndexOp::create(b, rows));
        values.eps = operands.eps.getValue().convertToFloat();
        values.pdl = operands.pdl;
        std::unique_ptr<ReducedSource> source = makeSource(kernel, values);
        auto module = kernel.getFunc()->getParentOfType<gpu::GPUModuleOp>();
        DualNormBodyBuilder(b, shape, values, *source).build(module);
        builder.setInsertionPoint(b.getInsertionBlock(), b.getInsertionPoint());
      });
}

LogicalResult mlir::lamport::generateAllReduceDualNormKernel(
    AllReduceDualNormOp op, const KernelGenerationOptions &options) {
  MailboxType mailboxType = op.getMailbox().getType();
  DualNormOperands operands{
      op.getStream(),     op.getAlpha(),      op.getBeta(),
      op.getPostWeight(), op.getNextWeight(), op.getOut(),
      op.getEpsAttr(),    op.getPdl(),        op.getPartial()};
  MLIRContext *ctx = op.getContext();
  SumOrder order = op.getSumOrder();
  std::optional<uint64_t> timeoutNs = op.getTimeoutNs();
  SmallVector<NamedAttribute> attributes;
  attributes.push_back(NamedAttribute(StringAttr::get(ctx, "sum_order"),
                                      SumOrderAttr::get(ctx, order)));
  TransportAttr transport;
  if (op.getPartial()) {
    transport = TransportAttr::get(ctx, op.getTransport() ? *op.getTransport()
                                                          : options.transport);
    attributes.push_back(
        NamedAttribute(StringAttr::get(ctx, "transport"), transport));
  }
  if (timeoutNs)
    attributes.push_back(NamedAttribute(
        StringAttr::get(ctx, "timeout_ns"),
        IntegerAttr::get(IntegerType::get(ctx, 64), int64_t(*timeoutNs))));
  return generateDualNorm(
      op, op.getMailbox(), /*reduced=*/Value(), operands,
      mailboxType.getWidth(), mailboxType.getMaxTokens(), attributes, options,
      [&](KernelBody &kernel,
          const DualNormValues &values) -> std::unique_ptr<ReducedSource> {
        return std::make_unique<MailboxSource>(kernel, order, timeoutNs,
                                               values.partial, transport,
                                               values.gridCtas);
      });
}

LogicalResult
mlir::lamport::generateDualNormKernel(DualNormOp op,
                                      const KernelGenerationOptions &options) {
  DualNormOperands operands{
      op.getStream(),     op.getAlpha(), op.getBeta(),    op.getPostWeight(),
      op.getNextWeight(), op.getOut(),   op.getEpsAttr(), op.getPdl()};
  return generateDualNorm(
      op, /*mailbox=*/Value(), op.getReduced(), operands,
      op.getReduced().getType().getDimSize(1), LamportDialect::kMaxTokens,
      /*extraAttributes=*/{}, options,
      [&](KernelBody &kernel,
          const DualNormValues &) -> std::unique_ptr<ReducedSource> {
        return std::make_unique<BufferSource>(kernel.getBuffer(0));
      });
}
