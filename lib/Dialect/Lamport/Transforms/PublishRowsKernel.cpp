//===- PublishRowsKernel.cpp - The shared-only publisher kernel -----------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// lamport.publish_rows as a kernel (the seeds' shared-only publisher): each
// thread loads one 16-byte fragment of this rank's rows and publishes it at
// slot [NEXT, rank] of every rank's copy; then thread 0 of each CTA sets
// ACTIVE = NEXT.
//
//===----------------------------------------------------------------------===//

#include "KernelGeneration.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::lamport;

LogicalResult mlir::lamport::generatePublishRowsKernel(
    PublishRowsOp op, const KernelGenerationOptions &options) {
  MailboxType mailboxType = op.getMailbox().getType();
  int64_t capacity = mailboxType.getCapacity();
  int64_t width = mailboxType.getWidth();
  Transport transport =
      op.getTransport() ? *op.getTransport() : options.transport;
  MLIRContext *ctx = op.getContext();
  auto transportAttr = TransportAttr::get(ctx, transport);

  KernelSignature signature;
  signature.family = op.getKernelFamily();
  signature.mailbox = op.getMailbox();
  if (failed(addProgramBuffers(op, capacity, signature)))
    return failure();
  signature.tokensBuffer = op.getRows();
  signature.tokensDim = 0;
  signature.workItemsAtCapacity = capacity * mailboxType.getFragmentsPerRow();
  signature.attributes.push_back(
      NamedAttribute(StringAttr::get(ctx, "transport"), transportAttr));
  signature.pdl = op.getPdl();
  bool releaseBefore = op.getReleaseBefore();

  return generateKernel(
      op, signature, options,
      [&](OpBuilder &b, Location loc, KernelBody &kernel) {
        Value mailbox = kernel.getMailbox();
        Value rows = kernel.getBuffer(0);
        // The rows and the stage word are the previous kernel's results.
        if (signature.pdl)
          NVVM::GriddepcontrolOp::create(b, loc, NVVM::GridDepActionKind::wait);
        Value stage = StageNextOp::create(b, loc, b.getI32Type(), mailbox);
        Value fragmentsPerRow = arith::ConstantIndexOp::create(
            b, loc, mailboxType.getFragmentsPerRow());
        Value fragments = arith::MulIOp::create(
            b, loc, kernel.getTokens(b, loc), fragmentsPerRow);
        auto fragmentType = VectorType::get(
            {int64_t(LamportDialect::kFragmentLanes)}, b.getBF16Type());
        kernel.forEachWorkItem(
            b, loc, fragments, [&](OpBuilder &b, Location loc, Value item) {
              auto [row, col] = getRowAndColumn(b, loc, item, width);
              Value fragment = vector::LoadOp::create(
                  b, loc, fragmentType, rows, ValueRange{row, col},
                  /*nontemporal=*/false, llvm::MaybeAlign(16));
              MailboxPublishOp::create(b, loc, fragment, mailbox, stage, row,
                                       col, /*target=*/Value(), transportAttr,
                                       releaseBefore);
            });
        // Every CTA writes the same ACTIVE word: that is safe because the
        // consumer reads it only after this whole grid has completed (stream
        // order, or griddepcontrol.wait with PDL), so no reader sees ACTIVE
        // before every CTA's rows, and no fence is needed before it
        // (read_after_grid). The barrier keeps the word after the CTA's
        // stores all the same.
        gpu::BarrierOp::create(b, loc);
        kernel.onLeadThread(b, loc, /*wholeGrid=*/false,
                            [&](OpBuilder &b, Location loc) {
                              StageSetActiveOp::create(b, loc, mailbox, stage,
                                                       /*readAfterGrid=*/true);
                            });
        if (signature.pdl)
          NVVM::GriddepcontrolOp::create(
              b, loc, NVVM::GridDepActionKind::launch_dependents);
      });
}
