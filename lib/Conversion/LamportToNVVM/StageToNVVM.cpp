//===- StageToNVVM.cpp - lamport.stage.* to NVVM --------------------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// The stage words of a rank, int32 [ACTIVE, NEXT, ARRIVALS, reserved], are
// read and written with volatile accesses: with programmatic dependent launch
// a consumer may read them while its publisher still runs. ARRIVALS counts
// the CTAs of a kernel that publishes and consumes (lamport.stage.arrive).
// Tickets carry a stage in their upper 16 bits.
//
//===----------------------------------------------------------------------===//

#include "Descriptor.h"
#include "PTX.h"
#include "Patterns.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"

using namespace mlir;
using namespace mlir::lamport;

namespace {

/// Index of a stage word in the int32 [ACTIVE, NEXT, ARRIVALS, reserved]
/// words.
enum StageWord : int64_t { kActive = 0, kNext = 1, kArrivals = 2 };

} // namespace

/// Address (`ptr<1>`) of stage word `word` of `mailbox`.
static Value getStageWordAddress(OpBuilder &b, Location loc,
                                 const MailboxDescriptor &mailbox,
                                 StageWord word) {
  Value words = mailbox.stageWords(b, loc);
  if (word == kActive)
    return words;
  return LLVM::GEPOp::create(b, loc, words.getType(), b.getI32Type(), words,
                             ArrayRef<LLVM::GEPArg>{int32_t(word)},
                             LLVM::GEPNoWrapFlags::inbounds);
}

static Value loadStageWord(OpBuilder &b, Location loc,
                           const MailboxDescriptor &mailbox, StageWord word) {
  return LLVM::LoadOp::create(b, loc, b.getI32Type(),
                              getStageWordAddress(b, loc, mailbox, word),
                              /*alignment=*/4, /*isVolatile=*/true);
}

static void storeStageWord(OpBuilder &b, Location loc,
                           const MailboxDescriptor &mailbox, StageWord word,
                           Value value) {
  LLVM::StoreOp::create(b, loc, value,
                        getStageWordAddress(b, loc, mailbox, word),
                        /*alignment=*/4, /*isVolatile=*/true);
}

namespace {

/// lamport.stage.active / lamport.stage.next: a volatile load of the word.
template <typename OpTy, StageWord Word>
struct StageReadLowering : public ConvertOpToLLVMPattern<OpTy> {
  using ConvertOpToLLVMPattern<OpTy>::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    MailboxDescriptor mailbox(adaptor.getMailbox(), op.getMailbox().getType());
    rewriter.replaceOp(op, loadStageWord(rewriter, op.getLoc(), mailbox, Word));
    return success();
  }
};

/// lamport.stage.set_active: ACTIVE = stage, after a system-scope release
/// fence so that every store of the publish is visible before the word;
/// without it where every reader runs after the grid (read_after_grid).
struct StageSetActiveLowering
    : public ConvertOpToLLVMPattern<StageSetActiveOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(StageSetActiveOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MailboxDescriptor mailbox(adaptor.getMailbox(), op.getMailbox().getType());
    if (!op.getReadAfterGrid())
      LLVM::FenceOp::create(rewriter, loc, LLVM::AtomicOrdering::acq_rel);
    storeStageWord(rewriter, loc, mailbox, kActive, adaptor.getStage());
    rewriter.eraseOp(op);
    return success();
  }
};

/// lamport.stage.advance: NEXT = (active + 1) % 3.
struct StageAdvanceLowering : public ConvertOpToLLVMPattern<StageAdvanceOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(StageAdvanceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MailboxDescriptor mailbox(adaptor.getMailbox(), op.getMailbox().getType());
    Value following =
        LLVM::AddOp::create(rewriter, loc, adaptor.getActive(),
                            createIntConstant(rewriter, loc, 32, 1));
    Value next = LLVM::URemOp::create(
        rewriter, loc, following,
        createIntConstant(rewriter, loc, 32, LamportDialect::kGenerations));
    storeStageWord(rewriter, loc, mailbox, kNext, next);
    rewriter.eraseOp(op);
    return success();
  }
};

/// lamport.stage.arrive: thread 0 of the CTA sets ARRIVALS = old >= ctas - 1
/// ? 0 : old + 1 (PTX atom.inc) after a GPU-scope acquire-release fence,
/// which orders its CTA's reads of NEXT (before the CTA barrier its caller
/// placed) before the arrival, and returns `old`, the arrivals before this
/// one; every other thread returns `ctas`. Predicated PTX, no branch, and no
/// fence after the atomic: the last arrival acquires with its own fence
/// where it tests the count, so no warp waits for the atomic's round trip
/// before it needs the count.
struct StageArriveLowering : public ConvertOpToLLVMPattern<StageArriveOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(StageArriveOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MailboxDescriptor mailbox(adaptor.getMailbox(), op.getMailbox().getType());
    Type i32 = rewriter.getI32Type();
    Value zero = createIntConstant(rewriter, loc, 32, 0);
    Value threadIds = zero;
    for (Value id : {NVVM::ThreadIdXOp::create(rewriter, loc, i32).getResult(),
                     NVVM::ThreadIdYOp::create(rewriter, loc, i32).getResult(),
                     NVVM::ThreadIdZOp::create(rewriter, loc, i32).getResult()})
      threadIds = LLVM::OrOp::create(rewriter, loc, threadIds, id);
    Value isThreadZero = LLVM::ICmpOp::create(
        rewriter, loc, LLVM::ICmpPredicate::eq, threadIds, zero);
    rewriter.replaceOp(
        op, ptx::countOnThreadZero(
                rewriter, loc, isThreadZero,
                getStageWordAddress(rewriter, loc, mailbox, kArrivals),
                createIntConstant(rewriter, loc, 32, op.getCtas() - 1),
                createIntConstant(rewriter, loc, 32, op.getCtas())));
    return success();
  }
};

/// lamport.stage.from_ticket (the upper 16 bits: a logical shift right,
/// LLVM::LShrOp) and lamport.stage.to_ticket (stage << 16, LLVM::ShlOp): the
/// op's one operand shifted by the ticket's stage shift.
template <typename OpTy, typename ShiftOpTy>
struct TicketShiftLowering : public ConvertOpToLLVMPattern<OpTy> {
  using ConvertOpToLLVMPattern<OpTy>::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<ShiftOpTy>(
        op, adaptor.getOperands().front(),
        createIntConstant(rewriter, op.getLoc(), 32,
                          LamportDialect::kTicketStageShift));
    return success();
  }
};

} // namespace

void mlir::lamport::populateStageToNVVMPatterns(LLVMTypeConverter &converter,
                                                RewritePatternSet &patterns) {
  patterns.add<StageReadLowering<StageActiveOp, kActive>,
               StageReadLowering<StageNextOp, kNext>, StageSetActiveLowering,
               StageAdvanceLowering, StageArriveLowering,
               TicketShiftLowering<StageFromTicketOp, LLVM::LShrOp>,
               TicketShiftLowering<StageToTicketOp, LLVM::ShlOp>>(converter);
}
