//===- AllGatherKernel.cpp - The column all-gather consumer kernel --------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// PLACEHOLDER until the all-gather kernel family lands: the op is refused.
//
//===----------------------------------------------------------------------===//

#include "KernelGeneration.h"

using namespace mlir;
using namespace mlir::lamport;

LogicalResult
mlir::lamport::generateAllGatherKernel(AllGatherOp op,
                                       const KernelGenerationOptions &) {
  return op.emitOpError() << "has no kernel yet";
}
