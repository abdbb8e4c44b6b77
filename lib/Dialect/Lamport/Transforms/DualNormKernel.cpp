//===- DualNormKernel.cpp - The fused boundary consumer and the dual norm -===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// PLACEHOLDER until the dual-norm kernel family lands: both ops are refused.
//
//===----------------------------------------------------------------------===//

#include "KernelGeneration.h"

using namespace mlir;
using namespace mlir::lamport;

LogicalResult mlir::lamport::generateAllReduceDualNormKernel(
    AllReduceDualNormOp op, const KernelGenerationOptions &) {
  return op.emitOpError() << "has no kernel yet";
}

LogicalResult
mlir::lamport::generateDualNormKernel(DualNormOp op,
                                      const KernelGenerationOptions &) {
  return op.emitOpError() << "has no kernel yet";
}
