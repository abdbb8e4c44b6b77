//===- Fragment.cpp - 16-byte fragments and the sentinel ------------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#include "Fragment.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace mlir::lamport;

/// A splat of `value` shaped like `like` (an i32 or vector of i32).
static Value createWordSplat(OpBuilder &b, Location loc, Type like,
                             uint32_t value) {
  Attribute attr = b.getI32IntegerAttr(int32_t(value));
  if (auto vector = dyn_cast<VectorType>(like))
    attr = SplatElementsAttr::get(vector, attr);
  return LLVM::ConstantOp::create(b, loc, like, cast<TypedAttr>(attr));
}

VectorType mlir::lamport::getFragmentWordsType(MLIRContext *ctx) {
  return VectorType::get({kFragmentWords}, IntegerType::get(ctx, 32));
}

Value mlir::lamport::getSentinelLanes(OpBuilder &b, Location loc, Value words) {
  Type type = words.getType();
  Value magnitude = LLVM::AndOp::create(
      b, loc, words, createWordSplat(b, loc, type, 0x7fff7fff));
  Value nonZeroMagnitude = LLVM::AddOp::create(
      b, loc, magnitude, createWordSplat(b, loc, type, 0x7fff7fff));
  Value zeroMagnitude = LLVM::XOrOp::create(
      b, loc, nonZeroMagnitude, createWordSplat(b, loc, type, 0xffffffff));
  Value signs = LLVM::AndOp::create(b, loc, words,
                                    createWordSplat(b, loc, type, 0x80008000));
  return LLVM::AndOp::create(b, loc, signs, zeroMagnitude);
}

Value mlir::lamport::clearSentinelLanes(OpBuilder &b, Location loc,
                                        Value words) {
  // A sentinel lane has bit 15 alone set, so clearing that bit gives 0x0000.
  return LLVM::XOrOp::create(b, loc, words, getSentinelLanes(b, loc, words));
}

Value mlir::lamport::hasSentinelLane(OpBuilder &b, Location loc, Value words) {
  Value lanes = getSentinelLanes(b, loc, words);
  Value any = LLVM::vector_reduce_or::create(b, loc, b.getI32Type(), lanes);
  return LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ne, any,
                              createWordSplat(b, loc, b.getI32Type(), 0));
}

Value mlir::lamport::getSentinelFragment(OpBuilder &b, Location loc) {
  return createWordSplat(b, loc, getFragmentWordsType(b.getContext()),
                         0x80008000);
}

Value mlir::lamport::loadFragmentVolatile(OpBuilder &b, Location loc,
                                          Value address) {
  return LLVM::LoadOp::create(b, loc, getFragmentWordsType(b.getContext()),
                              address, kFragmentBytes, /*isVolatile=*/true);
}

void mlir::lamport::storeFragment(OpBuilder &b, Location loc, Value words,
                                  Value address) {
  LLVM::StoreOp::create(b, loc, words, address, kFragmentBytes);
}
