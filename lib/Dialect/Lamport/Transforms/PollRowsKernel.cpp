//===- PollRowsKernel.cpp - The plain consumer kernel ---------------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// lamport.poll_rows as a kernel: each thread waits for one fragment column
// (row, col) of every rank's slot of the ACTIVE stage, writes the tp
// fragments to out [tp, M, width], re-arms them; then one thread of the
// grid advances NEXT.
//
//===----------------------------------------------------------------------===//

#include "KernelGeneration.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::lamport;

LogicalResult
mlir::lamport::generatePollRowsKernel(PollRowsOp op,
                                      const KernelGenerationOptions &options) {
  MailboxType mailboxType = op.getMailbox().getType();
  int64_t tp = mailboxType.getTp();
  int64_t capacity = mailboxType.getCapacity();
  int64_t width = mailboxType.getWidth();
  // out is [tp, M, width]: the rows of one slot are M * width elements
  // apart, known only at run time, so the kernel indexes a flat view (M is
  // not out's leading dimension).
  FailureOr<KernelSignature> consumer = getConsumerSignature(
      op, /*tokensDim=*/1, capacity * mailboxType.getFragmentsPerRow());
  if (failed(consumer))
    return failure();
  KernelSignature &signature = *consumer;
  std::optional<uint64_t> timeoutNs = op.getTimeoutNs();

  return generateConsumerKernel(
      op, signature, options,
      [&](OpBuilder &b, Location loc, KernelBody &kernel, Value stage) {
        Value mailbox = kernel.getMailbox();
        Value out = kernel.getBuffer(0);
        Value tokens = kernel.getTokens(b, loc);
        Value fragmentsPerRow = arith::ConstantIndexOp::create(
            b, loc, mailboxType.getFragmentsPerRow());
        Value items = arith::MulIOp::create(b, loc, tokens, fragmentsPerRow);
        Value widthValue = arith::ConstantIndexOp::create(b, loc, width);
        Value slotRows = arith::MulIOp::create(b, loc, tokens, widthValue);
        kernel.forEachWorkItem(
            b, loc, items, [&](OpBuilder &b, Location loc, Value item) {
              auto [row, col] = getRowAndColumn(b, loc, item, width);
              SmallVector<Value> fragments =
                  pollEverySlot(b, loc, mailbox, stage, row, col, timeoutNs);
              // out[slot, row, col] = slot * M * width + row * width + col.
              Value inSlot = arith::AddIOp::create(
                  b, loc, arith::MulIOp::create(b, loc, row, widthValue), col);
              for (int64_t slot = 0; slot < tp; ++slot) {
                Value slotIndex = arith::ConstantIndexOp::create(b, loc, slot);
                Value offset = arith::AddIOp::create(
                    b, loc, arith::MulIOp::create(b, loc, slotIndex, slotRows),
                    inSlot);
                vector::StoreOp::create(
                    b, loc, fragments[slot], out, ValueRange{offset},
                    /*nontemporal=*/false, llvm::MaybeAlign(16));
              }
              rearmEverySlot(b, loc, mailbox, stage, row, col);
            });
      });
}
