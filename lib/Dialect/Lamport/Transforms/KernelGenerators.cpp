//===- KernelGenerators.cpp - The kernel generator of each program op -----===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// Attaches KernelGeneratorOpInterface to every program-level op: one line
// per kernel family, whose generator lives in <Family>Kernel.cpp.
//
//===----------------------------------------------------------------------===//

#include "lamport/Dialect/Lamport/Transforms/KernelGenerator.h"

#include "KernelGeneration.h"

using namespace mlir;
using namespace mlir::lamport;

#include "lamport/Dialect/Lamport/Transforms/KernelGenerator.cpp.inc"

namespace {
/// The generator of `OpT` as an external model: `Generate` does the work.
template <typename OpT,
          LogicalResult (*Generate)(OpT, const KernelGenerationOptions &)>
struct KernelGeneratorModel : public KernelGeneratorOpInterface::ExternalModel<
                                  KernelGeneratorModel<OpT, Generate>, OpT> {
  LogicalResult generateKernels(Operation *op,
                                const KernelGenerationOptions &options) const {
    return Generate(cast<OpT>(op), options);
  }
};

template <typename OpT,
          LogicalResult (*Generate)(OpT, const KernelGenerationOptions &)>
void attach(MLIRContext *ctx) {
  OpT::template attachInterface<KernelGeneratorModel<OpT, Generate>>(*ctx);
}
} // namespace

void mlir::lamport::registerKernelGenerators(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, LamportDialect *) {
    attach<PublishRowsOp, generatePublishRowsKernel>(ctx);
    attach<PollRowsOp, generatePollRowsKernel>(ctx);
    attach<AllReduceOp, generateAllReduceKernel>(ctx);
    attach<AllGatherOp, generateAllGatherKernel>(ctx);
    attach<GemmPublishOp, generateGemmPublishKernel>(ctx);
    attach<AllReduceDualNormOp, generateAllReduceDualNormKernel>(ctx);
    attach<DualNormOp, generateDualNormKernel>(ctx);
  });
}
