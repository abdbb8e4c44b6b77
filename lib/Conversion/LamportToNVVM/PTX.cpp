//===- PTX.cpp - PTX the NVVM dialect has no op for -----------------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#include "PTX.h"
#include "Fragment.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::lamport;

/// `instruction` as inline PTX with an optional `result` (null for none).
/// With `sideEffects` LLVM keeps it where it is among other side effects;
/// without, it is a pure function of its operands. `constraints` are taken
/// as they are (a memory clobber only where the caller lists one).
static Value createInlineAsm(OpBuilder &b, Location loc, Type result,
                             StringRef instruction, StringRef constraints,
                             ValueRange operands, bool sideEffects) {
  auto asmOp = LLVM::InlineAsmOp::create(
      b, loc, result ? TypeRange{result} : TypeRange{}, operands, instruction,
      constraints, sideEffects, /*is_align_stack=*/false,
      LLVM::tailcallkind::TailCallKind::None,
      /*asm_dialect=*/LLVM::AsmDialectAttr(), /*operand_attrs=*/ArrayAttr());
  return result ? asmOp.getResult(0) : Value();
}

Value ptx::inlinePTX(OpBuilder &b, Location loc, Type result,
                     StringRef instruction, StringRef constraints,
                     ValueRange operands) {
  std::string allConstraints = constraints.str();
  allConstraints += allConstraints.empty() ? "~{memory}" : ",~{memory}";
  return createInlineAsm(b, loc, result, instruction, allConstraints, operands,
                         /*sideEffects=*/true);
}

void ptx::storeMulticastFragment(OpBuilder &b, Location loc, Value address,
                                 Value words) {
  SmallVector<Value, 1 + kFragmentWords> operands = {address};
  for (unsigned i = 0; i < kFragmentWords; ++i)
    operands.push_back(LLVM::ExtractElementOp::create(
        b, loc, words,
        LLVM::ConstantOp::create(b, loc, b.getI32Type(),
                                 b.getI32IntegerAttr(i))));
  inlinePTX(b, loc, Type(),
            "multimem.st.relaxed.sys.global.v4.f32 [$0], {$1, $2, $3, $4};",
            "l,r,r,r,r", operands);
}

Value ptx::countOnThreadZero(OpBuilder &b, Location loc, Value isThreadZero,
                             Value address, Value limit, Value otherwise) {
  Type i32 = b.getI32Type();
  Value predicateWord = LLVM::ZExtOp::create(b, loc, i32, isThreadZero);
  return inlinePTX(
      b, loc, i32,
      "{ .reg .pred lead; setp.ne.u32 lead, $1, 0; mov.u32 $0, $4; "
      "@lead fence.acq_rel.gpu; @lead atom.global.inc.u32 $0, [$2], $3; }",
      "=r,r,l,r,r", ValueRange{predicateWord, address, limit, otherwise});
}

void ptx::storeAsyncToCluster(OpBuilder &b, Location loc, Value address,
                              Value value, Value barrier) {
  inlinePTX(b, loc, Type(),
            "st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 "
            "[$0], $1, [$2];",
            "l,r,l", ValueRange{address, value, barrier});
}

Value ptx::createEvictFirstPolicy(OpBuilder &b, Location loc) {
  return createInlineAsm(b, loc, b.getI64Type(),
                         "createpolicy.fractional.L2::evict_first.b64 $0, 1.0;",
                         "=l", {},
                         /*sideEffects=*/false);
}

Value ptx::loadFragmentWithPolicy(OpBuilder &b, Location loc, Value address,
                                  Value policy) {
  Type i32 = b.getI32Type();
  auto words = LLVM::LLVMStructType::getLiteral(b.getContext(),
                                                SmallVector<Type>(4, i32));
  // Side effects only to keep it in program order with the PDL wait: the
  // weights are loaded before it so that they overlap the previous kernel.
  // No memory clobber: other memory accesses may move across it.
  Value loaded = createInlineAsm(
      b, loc, words,
      "ld.global.L2::cache_hint.v4.b32 {$0, $1, $2, $3}, [$4], $5;",
      "=r,=r,=r,=r,l,l", ValueRange{address, policy}, /*sideEffects=*/true);
  Value fragment = LLVM::UndefOp::create(b, loc, VectorType::get({4}, i32));
  for (int64_t i = 0; i < 4; ++i)
    fragment = LLVM::InsertElementOp::create(
        b, loc, fragment, LLVM::ExtractValueOp::create(b, loc, loaded, i),
        LLVM::ConstantOp::create(b, loc, i32, b.getI32IntegerAttr(i)));
  return fragment;
}

void ptx::keepLoadsBeforeWait(OpBuilder &b, Location loc, Value launchTokens,
                              Value guardAddress, Value guardValue) {
  SmallVector<Value> operands = {launchTokens, guardAddress};
  if (guardValue)
    operands.push_back(guardValue);
  std::string text =
      llvm::formatv("{{ .reg .pred never; setp.gt.u32 never, $0, 2147483647; "
                    "@never st.global.{0} [$1], {1}; }",
                    guardValue ? "b64" : "b32", guardValue ? "$2" : "0");
  inlinePTX(b, loc, Type(), text, guardValue ? "r,l,l" : "r,l", operands);
}
