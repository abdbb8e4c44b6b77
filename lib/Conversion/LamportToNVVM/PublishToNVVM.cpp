//===- PublishToNVVM.cpp - lamport.mailbox.publish to NVVM ----------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// A publish stores 16-byte fragments into slot [stage, rank] of every rank's
// copy (multicast or unicast) or of one rank's copy (route), after turning
// every BF16 -0.0 into +0.0 so that no published lane looks like the
// sentinel. The address digest reads those addresses early, for kernels
// that publish at their tail.
//
//===----------------------------------------------------------------------===//

#include "Descriptor.h"
#include "Fragment.h"
#include "PTX.h"
#include "Patterns.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"

using namespace mlir;
using namespace mlir::lamport;

namespace {

/// Lowers lamport.mailbox.publish. Without `to` and `transport`, the pass's
/// transport holds.
struct MailboxPublishLowering
    : public ConvertOpToLLVMPattern<MailboxPublishOp> {
  MailboxPublishLowering(const LLVMTypeConverter &converter,
                         Transport defaultTransport)
      : ConvertOpToLLVMPattern(converter), defaultTransport(defaultTransport) {}

  LogicalResult
  matchAndRewrite(MailboxPublishOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MailboxDescriptor mailbox(adaptor.getMailbox(), op.getMailbox().getType());
    SmallVector<Value> fragments =
        getPublishedFragments(rewriter, loc, adaptor.getValue());

    // Orders this thread's earlier reads and re-arms before the data.
    if (op.getReleaseBefore())
      LLVM::FenceOp::create(rewriter, loc, LLVM::AtomicOrdering::acq_rel);

    // Element of [stage, rank, row, col] in any copy: the slot is ours.
    Value element = mailbox.elementIndex(rewriter, loc, adaptor.getStage(),
                                         mailbox.rank(rewriter, loc),
                                         adaptor.getRow(), adaptor.getCol());
    auto storeInto = [&](Value copy, bool multicast) {
      Value slotAddress = getElementAddress(rewriter, loc, copy, element);
      for (auto [i, words] : llvm::enumerate(fragments)) {
        Value address =
            getElementAddress(rewriter, loc, slotAddress,
                              int64_t(i) * LamportDialect::kFragmentLanes);
        if (multicast)
          ptx::storeMulticastFragment(rewriter, loc, address, words);
        else
          storeFragment(rewriter, loc, words, address);
      }
    };

    if (Value target = adaptor.getTarget()) {
      storeInto(mailbox.peer(rewriter, loc, target), /*multicast=*/false);
    } else if (op.getTransport().value_or(defaultTransport) ==
               Transport::multicast) {
      storeInto(mailbox.multicast(rewriter, loc), /*multicast=*/true);
    } else {
      for (unsigned rank = 0; rank < mailbox.getType().getTp(); ++rank)
        storeInto(mailbox.peer(rewriter, loc, rank), /*multicast=*/false);
    }
    rewriter.eraseOp(op);
    return success();
  }

private:
  /// The fragments (vector<4xi32> each) of `value` (vector<N x bf16>), every
  /// sentinel lane stored as +0.0.
  static SmallVector<Value> getPublishedFragments(OpBuilder &b, Location loc,
                                                  Value value) {
    int64_t lanes = cast<VectorType>(value.getType()).getNumElements();
    int64_t count = lanes / LamportDialect::kFragmentLanes;
    auto wordsType = VectorType::get({count * kFragmentWords}, b.getI32Type());
    Value words = LLVM::BitcastOp::create(b, loc, wordsType, value);
    words = clearSentinelLanes(b, loc, words);
    if (count == 1)
      return {words};
    SmallVector<Value> fragments;
    for (int64_t i = 0; i < count; ++i) {
      SmallVector<int32_t> mask;
      for (unsigned w = 0; w < kFragmentWords; ++w)
        mask.push_back(int32_t(i * kFragmentWords + w));
      fragments.push_back(
          LLVM::ShuffleVectorOp::create(b, loc, words, words, mask));
    }
    return fragments;
  }

  Transport defaultTransport;
};

/// Lowers lamport.mailbox.address_digest: the XOR of the descriptor fields a
/// publish (any transport) or a poll reads, as i64.
struct MailboxAddressDigestLowering
    : public ConvertOpToLLVMPattern<MailboxAddressDigestOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(MailboxAddressDigestOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MailboxDescriptor mailbox(adaptor.getMailbox(), op.getMailbox().getType());
    Type i64 = rewriter.getI64Type();
    SmallVector<Value> read = {mailbox.local(rewriter, loc),
                               mailbox.multicast(rewriter, loc)};
    for (unsigned rank = 0; rank < mailbox.getType().getTp(); ++rank)
      read.push_back(mailbox.peer(rewriter, loc, rank));
    Value digest = zextToI64(rewriter, loc, mailbox.rank(rewriter, loc));
    for (Value address : read)
      digest = LLVM::XOrOp::create(
          rewriter, loc, digest,
          LLVM::PtrToIntOp::create(rewriter, loc, i64, address));
    rewriter.replaceOp(op, digest);
    return success();
  }
};

} // namespace

void mlir::lamport::populatePublishToNVVMPatterns(
    LLVMTypeConverter &converter, RewritePatternSet &patterns,
    const LamportToNVVMOptions &options) {
  patterns.add<MailboxPublishLowering>(converter, options.transport);
  patterns.add<MailboxAddressDigestLowering>(converter);
}
