//===- PTX.cpp - PTX the NVVM dialect has no op for -----------------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#include "PTX.h"
#include "Fragment.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace mlir::lamport;

/// Emits `instruction` as inline PTX with side effects and a memory clobber,
/// so LLVM neither drops it nor moves memory accesses across it. Operands
/// are bound to registers by `constraints` ("l" 64-bit, "r" 32-bit).
static void createInlinePTX(OpBuilder &b, Location loc, StringRef instruction,
                            StringRef constraints, ValueRange operands) {
  LLVM::InlineAsmOp::create(
      b, loc, /*res=*/Type(), operands, instruction,
      (constraints + ",~{memory}").str(), /*has_side_effects=*/true,
      /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
      /*asm_dialect=*/LLVM::AsmDialectAttr(), /*operand_attrs=*/ArrayAttr());
}

void ptx::storeMulticastFragment(OpBuilder &b, Location loc, Value address,
                                 Value words) {
  SmallVector<Value, 1 + kFragmentWords> operands = {address};
  for (unsigned i = 0; i < kFragmentWords; ++i)
    operands.push_back(LLVM::ExtractElementOp::create(
        b, loc, words,
        LLVM::ConstantOp::create(b, loc, b.getI32Type(),
                                 b.getI32IntegerAttr(i))));
  createInlinePTX(
      b, loc, "multimem.st.relaxed.sys.global.v4.f32 [$0], {$1, $2, $3, $4};",
      "l,r,r,r,r", operands);
}

Value ptx::countOnThreadZero(OpBuilder &b, Location loc, Value isThreadZero,
                             Value address, Value limit, Value otherwise) {
  Type i32 = b.getI32Type();
  Value predicateWord = LLVM::ZExtOp::create(b, loc, i32, isThreadZero);
  auto asmOp = LLVM::InlineAsmOp::create(
      b, loc, /*res=*/i32, ValueRange{predicateWord, address, limit, otherwise},
      "{ .reg .pred lead; setp.ne.u32 lead, $1, 0; mov.u32 $0, $4; "
      "@lead fence.acq_rel.gpu; @lead atom.global.inc.u32 $0, [$2], $3; }",
      "=r,r,l,r,r,~{memory}", /*has_side_effects=*/true,
      /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
      /*asm_dialect=*/LLVM::AsmDialectAttr(), /*operand_attrs=*/ArrayAttr());
  return asmOp.getResult(0);
}
