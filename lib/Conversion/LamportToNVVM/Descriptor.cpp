//===- Descriptor.cpp - The mailbox descriptor in a kernel ----------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#include "Descriptor.h"

#include "lamport/Conversion/LamportToNVVM/LamportToNVVM.h"

using namespace mlir;
using namespace mlir::lamport;

LLVM::LLVMStructType mlir::lamport::getMailboxDescriptorType(MailboxType type) {
  MLIRContext *ctx = type.getContext();
  auto global = LLVM::LLVMPointerType::get(ctx, /*addressSpace=*/1);
  auto i32 = IntegerType::get(ctx, 32);
  return LLVM::LLVMStructType::getLiteral(
      ctx, {global, global, global, global, i32, i32,
            LLVM::LLVMArrayType::get(global, type.getTp())});
}

Value MailboxDescriptor::field(OpBuilder &b, Location loc,
                               ArrayRef<int64_t> position) const {
  return LLVM::ExtractValueOp::create(b, loc, descriptor, position);
}

Value MailboxDescriptor::local(OpBuilder &b, Location loc) const {
  return field(b, loc, kLocal);
}

Value MailboxDescriptor::multicast(OpBuilder &b, Location loc) const {
  return field(b, loc, kMulticast);
}

Value MailboxDescriptor::stageWords(OpBuilder &b, Location loc) const {
  return field(b, loc, kStage);
}

Value MailboxDescriptor::diagnostics(OpBuilder &b, Location loc) const {
  return field(b, loc, kDiagnostics);
}

Value MailboxDescriptor::rank(OpBuilder &b, Location loc) const {
  return field(b, loc, kRank);
}

Value MailboxDescriptor::mailboxId(OpBuilder &b, Location loc) const {
  return field(b, loc, kMailboxId);
}

Value MailboxDescriptor::peer(OpBuilder &b, Location loc, unsigned rank) const {
  assert(rank < type.getTp() && "peer rank outside the TP group");
  return field(b, loc, {kPeers, int64_t(rank)});
}

Value MailboxDescriptor::peer(OpBuilder &b, Location loc, Value rank) const {
  if (std::optional<int64_t> constant = getConstantIntValue(rank))
    return peer(b, loc, unsigned(*constant));
  // Rank 0 where no other rank matches: the verifier rejects constant ranks
  // outside the group, and a kernel is handed ranks of its group.
  Value address = peer(b, loc, 0u);
  for (unsigned r = 1; r < type.getTp(); ++r) {
    Value isRank = LLVM::ICmpOp::create(
        b, loc, LLVM::ICmpPredicate::eq, rank,
        createIntConstant(b, loc, rank.getType().getIntOrFloatBitWidth(), r));
    address = LLVM::SelectOp::create(b, loc, isRank, peer(b, loc, r), address);
  }
  return address;
}

Value MailboxDescriptor::elementIndex(OpBuilder &b, Location loc, Value stage,
                                      Value slot, Value row, Value col) const {
  auto mul = [&](Value value, int64_t factor) -> Value {
    return LLVM::MulOp::create(b, loc, value,
                               createIntConstant(b, loc, 64, factor),
                               LLVM::IntegerOverflowFlags::nuw);
  };
  auto add = [&](Value lhs, Value rhs) -> Value {
    return LLVM::AddOp::create(b, loc, lhs, rhs,
                               LLVM::IntegerOverflowFlags::nuw);
  };
  Value index =
      add(mul(zextToI64(b, loc, stage), type.getTp()), zextToI64(b, loc, slot));
  index = add(mul(index, type.getCapacity()), zextToI64(b, loc, row));
  return add(mul(index, type.getWidth()), zextToI64(b, loc, col));
}

Value mlir::lamport::getElementAddress(OpBuilder &b, Location loc, Value base,
                                       Value elements) {
  return LLVM::GEPOp::create(b, loc, base.getType(), b.getI16Type(), base,
                             ValueRange{elements},
                             LLVM::GEPNoWrapFlags::inbounds);
}

Value mlir::lamport::getElementAddress(OpBuilder &b, Location loc, Value base,
                                       int64_t elements) {
  if (elements == 0)
    return base;
  if (elements != int32_t(elements))
    return getElementAddress(b, loc, base,
                             createIntConstant(b, loc, 64, elements));
  return LLVM::GEPOp::create(b, loc, base.getType(), b.getI16Type(), base,
                             ArrayRef<LLVM::GEPArg>{int32_t(elements)},
                             LLVM::GEPNoWrapFlags::inbounds);
}

Value mlir::lamport::zextToI64(OpBuilder &b, Location loc, Value value) {
  auto type = cast<IntegerType>(value.getType());
  if (type.getWidth() == 64)
    return value;
  return LLVM::ZExtOp::create(b, loc, b.getI64Type(), value);
}

Value mlir::lamport::createIntConstant(OpBuilder &b, Location loc,
                                       unsigned width, int64_t value) {
  Type type = b.getIntegerType(width);
  return LLVM::ConstantOp::create(b, loc, type, b.getIntegerAttr(type, value));
}
