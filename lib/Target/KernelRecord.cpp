//===- KernelRecord.cpp - Each kernel's ABI record, in its image ----------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// The record is written from the launch plan, the same source as the
// manifest: a kernel's own signature holds capacity-sized views of the
// program's buffers, while a loader compares the record with the manifest's
// shapes (-1 for the token count). Both sides format it with
// lamport/Runtime/KernelRecord.h.
//
//===----------------------------------------------------------------------===//

#include "lamport/Target/KernelRecord.h"
#include "lamport/Runtime/KernelRecord.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace mlir::lamport;

std::string mlir::lamport::getKernelRecord(const LaunchPlan &plan,
                                           const PlanKernel &kernel) {
  std::vector<::lamport::runtime::RecordParam> params;
  for (const PlanParam &param : kernel.params) {
    ::lamport::runtime::RecordParam &record = params.emplace_back();
    switch (param.kind) {
    case PlanParam::Kind::Tokens:
      record.kind = "tokens";
      continue;
    case PlanParam::Kind::Mailbox: {
      record.kind = "mailbox";
      const PlanArgument &argument = plan.arguments[*param.argument];
      const PlanMailbox &mailbox = plan.mailboxes[argument.mailbox];
      record.tp = mailbox.tp;
      record.capacity = mailbox.capacity;
      record.width = mailbox.width;
      continue;
    }
    case PlanParam::Kind::TensorMap:
      record.kind = "tensor_map";
      record.shape.assign(param.box.begin(), param.box.end());
      continue;
    case PlanParam::Kind::Buffer: {
      record.kind = "buffer";
      const PlanArgument &argument = plan.arguments[*param.argument];
      record.role = param.role;
      record.io = param.io;
      record.dtype = argument.dtype;
      record.shape.assign(argument.shape.begin(), argument.shape.end());
      continue;
    }
    }
  }
  return ::lamport::runtime::formatKernelRecord(kernel.name, params);
}

void mlir::lamport::addKernelRecords(ModuleOp module, const LaunchPlan &plan) {
  MLIRContext *context = module.getContext();
  context->getOrLoadDialect<LLVM::LLVMDialect>();
  for (const PlanKernel &kernel : plan.kernels) {
    auto kernelModule = dyn_cast_or_null<gpu::GPUModuleOp>(
        SymbolTable::lookupSymbolIn(module, kernel.name));
    if (!kernelModule)
      continue;
    std::string record = getKernelRecord(plan, kernel);
    auto builder = OpBuilder::atBlockEnd(kernelModule.getBody());
    auto type =
        LLVM::LLVMArrayType::get(IntegerType::get(context, 8), record.size());
    // External linkage: LLVM keeps the global although no kernel reads it,
    // and the PTX declares it .visible, so cuModuleGetGlobal finds it.
    LLVM::GlobalOp::create(builder, kernelModule.getLoc(), type,
                           /*isConstant=*/true, LLVM::Linkage::External,
                           ::lamport::runtime::kernelRecordSymbol(kernel.name),
                           builder.getStringAttr(record));
  }
}
