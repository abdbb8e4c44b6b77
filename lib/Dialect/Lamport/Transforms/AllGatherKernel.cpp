//===- AllGatherKernel.cpp - The column all-gather consumer kernel --------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// lamport.all_gather as a kernel: each thread takes one fragment (token,
// global fragment g) of the gathered row [tp * width], waits for it in the
// slot of its owner rank g / (width / 8) of the ACTIVE stage
// (lamport.mailbox.poll_owned, which also re-arms it), stores it to
// out[token][8g, 8g + 8); then one thread of the grid advances NEXT.
//
//===----------------------------------------------------------------------===//

#include "KernelGeneration.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::lamport;

LogicalResult
mlir::lamport::generateAllGatherKernel(AllGatherOp op,
                                       const KernelGenerationOptions &options) {
  MailboxType mailboxType = op.getMailbox().getType();
  int64_t capacity = mailboxType.getCapacity();
  // Fragments of one gathered row: every rank's column block side by side.
  int64_t rowFragments =
      int64_t(mailboxType.getTp()) * mailboxType.getFragmentsPerRow();
  FailureOr<KernelSignature> consumer =
      getConsumerSignature(op, /*tokensDim=*/0, capacity * rowFragments);
  if (failed(consumer))
    return failure();
  KernelSignature &signature = *consumer;
  std::optional<uint64_t> timeoutNs = op.getTimeoutNs();

  return generateConsumerKernel(
      op, signature, options,
      [&](OpBuilder &b, Location loc, KernelBody &kernel, Value stage) {
        Value mailbox = kernel.getMailbox();
        Value out = kernel.getBuffer(0);
        Value rowFragmentsValue =
            arith::ConstantIndexOp::create(b, loc, rowFragments);
        Value items = arith::MulIOp::create(b, loc, kernel.getTokens(b, loc),
                                            rowFragmentsValue);
        Value lanes = arith::ConstantIndexOp::create(
            b, loc, LamportDialect::kFragmentLanes);
        auto resultType = VectorType::get(
            {1, int64_t(LamportDialect::kFragmentLanes)}, b.getBF16Type());
        IntegerAttr timeout = timeoutNs
                                  ? b.getI64IntegerAttr(int64_t(*timeoutNs))
                                  : IntegerAttr();
        kernel.forEachWorkItem(
            b, loc, items, [&](OpBuilder &b, Location loc, Value item) {
              // Consecutive items are consecutive fragments of one gathered
              // row, so a warp reads consecutive fragments of one owner.
              Value token =
                  arith::DivUIOp::create(b, loc, item, rowFragmentsValue);
              Value fragment =
                  arith::RemUIOp::create(b, loc, item, rowFragmentsValue);
              // poll_owned finds the owner and re-arms what it read: exactly
              // this fragment, nothing else of the slot.
              Value polled = MailboxPollOwnedOp::create(
                  b, loc, resultType, mailbox, stage, token, fragment, timeout);
              Value value = vector::ExtractOp::create(b, loc, polled, 0);
              Value col = arith::MulIOp::create(b, loc, fragment, lanes);
              vector::StoreOp::create(
                  b, loc, value, out, ValueRange{token, col},
                  /*nontemporal=*/false, llvm::MaybeAlign(16));
            });
      });
}
