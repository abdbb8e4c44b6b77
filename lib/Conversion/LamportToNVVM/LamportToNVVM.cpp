//===- LamportToNVVM.cpp - Lamport primitives to NVVM/LLVM ----------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// The convert-lamport-to-nvvm pass: mailbox arguments of gpu.func ops become
// by-value descriptors, and every kernel-level primitive becomes LLVM/NVVM
// ops (PublishToNVVM.cpp, PollToNVVM.cpp, StageToNVVM.cpp). The rest of a
// kernel is left to convert-gpu-to-nvvm.
//
//===----------------------------------------------------------------------===//

#include "Descriptor.h"
#include "Patterns.h"

#include "lamport/Conversion/LamportToNVVM/LamportToNVVM.h"

#include "mlir/Conversion/LLVMCommon/LoweringOptions.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::lamport {
#define GEN_PASS_DEF_CONVERTLAMPORTTONVVMPASS
#include "lamport/Conversion/Passes.h.inc"
} // namespace mlir::lamport

using namespace mlir;
using namespace mlir::lamport;

namespace {

/// Rewrites the mailbox arguments of a gpu.func into descriptor structs.
/// Other arguments and the workgroup/private attributions keep their types:
/// convert-gpu-to-nvvm lowers them (memrefs as bare pointers).
struct GPUFuncMailboxArguments : public OpConversionPattern<gpu::GPUFuncOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(gpu::GPUFuncOp func, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Block &entry = func.getBody().front();
    TypeConverter::SignatureConversion signature(entry.getNumArguments());
    for (BlockArgument argument : entry.getArguments()) {
      Type type = argument.getType();
      if (isa<MailboxType>(type))
        type = getTypeConverter()->convertType(type);
      signature.addInputs(argument.getArgNumber(), type);
    }
    auto inputs = ArrayRef<Type>(signature.getConvertedTypes())
                      .take_front(func.getNumArguments());
    rewriter.modifyOpInPlace(func, [&] {
      func.setType(
          FunctionType::get(getContext(), inputs, func.getResultTypes()));
    });
    rewriter.applySignatureConversion(&entry, signature, getTypeConverter());
    return success();
  }
};

} // namespace

static bool hasMailboxArgument(gpu::GPUFuncOp func) {
  return llvm::any_of(func.getArgumentTypes(), llvm::IsaPred<MailboxType>);
}

static bool isKernelLevelOp(Operation *op) {
  return op->hasTrait<OpTrait::lamport::KernelLevel>();
}

/// Rejects what the lowering cannot take, each with the rule it breaks: a
/// program-level op, and a mailbox that is not a gpu.func argument used by
/// the primitives alone (a descriptor exists only as a kernel parameter).
static LogicalResult checkLowerable(gpu::GPUModuleOp module) {
  WalkResult result = module.walk([](Operation *op) {
    if (isa_and_nonnull<LamportDialect>(op->getDialect()) &&
        !isKernelLevelOp(op)) {
      op->emitOpError() << "is a program-level op: turn it into kernels "
                           "(lamport-generate-kernels) before "
                           "convert-lamport-to-nvvm";
      return WalkResult::interrupt();
    }
    for (Value operand : op->getOperands()) {
      if (!isa<MailboxType>(operand.getType()))
        continue;
      if (!isKernelLevelOp(op)) {
        op->emitOpError() << "takes a mailbox: only the lamport primitives "
                             "may use one inside a kernel";
        return WalkResult::interrupt();
      }
      auto argument = dyn_cast<BlockArgument>(operand);
      auto func =
          argument
              ? dyn_cast<gpu::GPUFuncOp>(argument.getOwner()->getParentOp())
              : nullptr;
      if (!func || !argument.getOwner()->isEntryBlock() ||
          argument.getArgNumber() >= func.getNumArguments()) {
        op->emitOpError() << "uses a mailbox that is not an argument of its "
                             "gpu.func: a mailbox reaches a kernel only as its "
                             "by-value descriptor parameter";
        return WalkResult::interrupt();
      }
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

namespace {

struct ConvertLamportToNVVMPass
    : public lamport::impl::ConvertLamportToNVVMPassBase<
          ConvertLamportToNVVMPass> {
  using Base::Base;

  void runOnOperation() override {
    gpu::GPUModuleOp module = getOperation();
    if (timeoutNs <= 0) {
      module.emitError() << "timeout-ns must be positive, got "
                         << int64_t(timeoutNs);
      return signalPassFailure();
    }
    if (failed(checkLowerable(module)) || failed(prepareToPoll(module)))
      return signalPassFailure();

    MLIRContext *ctx = &getContext();
    LowerToLLVMOptions lowering(ctx);
    LLVMTypeConverter converter(ctx, lowering);
    populateLamportToNVVMTypeConversions(converter);

    RewritePatternSet patterns(ctx);
    populateLamportToNVVMConversionPatterns(
        converter, patterns, LamportToNVVMOptions{transport, timeoutNs});

    ConversionTarget target(*ctx);
    target.addIllegalDialect<LamportDialect>();
    target.addDynamicallyLegalOp<gpu::GPUFuncOp>(
        [](gpu::GPUFuncOp func) { return !hasMailboxArgument(func); });
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void mlir::lamport::populateLamportToNVVMTypeConversions(
    LLVMTypeConverter &converter) {
  converter.addConversion(
      [](MailboxType type) -> Type { return getMailboxDescriptorType(type); });
}

void mlir::lamport::populateLamportToNVVMConversionPatterns(
    LLVMTypeConverter &converter, RewritePatternSet &patterns,
    const LamportToNVVMOptions &options) {
  patterns.add<GPUFuncMailboxArguments>(converter, patterns.getContext());
  populatePublishToNVVMPatterns(converter, patterns, options);
  populatePollToNVVMPatterns(converter, patterns, options);
  populateStageToNVVMPatterns(converter, patterns);
  populateKernelToNVVMPatterns(converter, patterns);
}
