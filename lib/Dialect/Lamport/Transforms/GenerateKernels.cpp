//===- GenerateKernels.cpp - Program-level ops to kernels and launches ----===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// The driver of lamport-generate-kernels: finds the program-level ops of
// every program function and hands each to its kernel family.
//
//===----------------------------------------------------------------------===//

#include "lamport/Dialect/Lamport/Transforms/Passes.h"

#include "KernelGeneration.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::lamport {
#define GEN_PASS_DEF_LAMPORTGENERATEKERNELS
#include "lamport/Dialect/Lamport/Transforms/Passes.h.inc"
} // namespace mlir::lamport

using namespace mlir;
using namespace mlir::lamport;

namespace {
struct GenerateKernelsPass
    : public lamport::impl::LamportGenerateKernelsBase<GenerateKernelsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (threadsPerCta == 0 || threadsPerCta % 32 || threadsPerCta > 1024) {
      getOperation().emitError()
          << "threads-per-cta must be a multiple of 32 in 32..1024, got "
          << static_cast<unsigned>(threadsPerCta);
      return signalPassFailure();
    }
    if (maxCtas == 0) {
      getOperation().emitError() << "max-ctas must be positive";
      return signalPassFailure();
    }
    KernelGenerationOptions options;
    options.transport = transport;
    options.threadsPerCta = threadsPerCta;
    options.maxCtas = maxCtas;

    // Collect first: generating a kernel erases the op and adds a module.
    SmallVector<Operation *> programOps;
    getOperation().walk([&](func::FuncOp program) {
      program.walk([&](Operation *op) {
        if (isa<PublishRowsOp, PollRowsOp, AllReduceOp, GemmPublishOp,
                AllReduceDualNormOp, DualNormOp, AllGatherOp>(op))
          programOps.push_back(op);
      });
    });
    for (Operation *op : programOps) {
      LogicalResult generated =
          TypeSwitch<Operation *, LogicalResult>(op)
              .Case([&](PublishRowsOp op) {
                return generatePublishRowsKernel(op, options);
              })
              .Case([&](PollRowsOp op) {
                return generatePollRowsKernel(op, options);
              })
              .Case([&](AllReduceOp op) {
                return generateAllReduceKernel(op, options);
              })
              .Case([&](GemmPublishOp op) {
                return generateGemmPublishKernel(op, options);
              })
              .Case([&](AllReduceDualNormOp op) {
                return generateAllReduceDualNormKernel(op, options);
              })
              .Case([&](DualNormOp op) {
                return generateDualNormKernel(op, options);
              })
              .Case([&](AllGatherOp op) {
                return generateAllGatherKernel(op, options);
              });
      if (failed(generated))
        return signalPassFailure();
    }
  }
};
} // namespace
