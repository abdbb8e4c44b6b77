//===- AllReduceKernel.cpp - The one-shot all-reduce consumer kernel ------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// lamport.all_reduce as a kernel: each thread waits for one fragment column
// (token, col) of every rank's partial in the ACTIVE stage, adds the tp
// partials in FP32 in the op's sum order, rounds to BF16 into out, re-arms
// what it read; then one thread of the grid advances NEXT.
//
//===----------------------------------------------------------------------===//

#include "KernelGeneration.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::lamport;

LogicalResult
mlir::lamport::generateAllReduceKernel(AllReduceOp op,
                                       const KernelGenerationOptions &options) {
  MailboxType mailboxType = op.getMailbox().getType();
  int64_t capacity = mailboxType.getCapacity();
  int64_t width = mailboxType.getWidth();
  MLIRContext *ctx = op.getContext();
  SumOrder order = op.getSumOrder();
  FailureOr<KernelSignature> consumer = getConsumerSignature(
      op, /*tokensDim=*/0, capacity * mailboxType.getFragmentsPerRow());
  if (failed(consumer))
    return failure();
  KernelSignature &signature = *consumer;
  signature.attributes.push_back(NamedAttribute(
      StringAttr::get(ctx, "sum_order"), SumOrderAttr::get(ctx, order)));
  std::optional<uint64_t> timeoutNs = op.getTimeoutNs();

  return generateConsumerKernel(
      op, signature, options,
      [&](OpBuilder &b, Location loc, KernelBody &kernel, Value stage) {
        Value mailbox = kernel.getMailbox();
        Value out = kernel.getBuffer(0);
        Value fragmentsPerRow = arith::ConstantIndexOp::create(
            b, loc, mailboxType.getFragmentsPerRow());
        Value items = arith::MulIOp::create(b, loc, kernel.getTokens(b, loc),
                                            fragmentsPerRow);
        auto wideType = VectorType::get(
            {int64_t(LamportDialect::kFragmentLanes)}, b.getF32Type());
        auto narrowType = VectorType::get(
            {int64_t(LamportDialect::kFragmentLanes)}, b.getBF16Type());
        kernel.forEachWorkItem(
            b, loc, items, [&](OpBuilder &b, Location loc, Value item) {
              auto [row, col] = getRowAndColumn(b, loc, item, width);
              SmallVector<Value> partials;
              for (Value fragment :
                   pollEverySlot(b, loc, mailbox, stage, row, col, timeoutNs))
                partials.push_back(
                    arith::ExtFOp::create(b, loc, wideType, fragment));
              Value sum = sumPartials(b, loc, partials, order);
              // arith.truncf without a rounding mode is LLVM's fptrunc:
              // round to nearest even (cvt.rn.bf16.f32).
              Value reduced = arith::TruncFOp::create(b, loc, narrowType, sum);
              vector::StoreOp::create(
                  b, loc, reduced, out, ValueRange{row, col},
                  /*nontemporal=*/false, llvm::MaybeAlign(16));
              rearmEverySlot(b, loc, mailbox, stage, row, col);
            });
      });
}
