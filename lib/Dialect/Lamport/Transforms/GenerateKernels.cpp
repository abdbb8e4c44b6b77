//===- GenerateKernels.cpp - Program-level ops to kernels and launches ----===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// The driver of lamport-generate-kernels: finds the program-level ops of
// every program function and hands each to the kernel generator attached to
// it (KernelGeneratorOpInterface, KernelGenerators.cpp).
//
//===----------------------------------------------------------------------===//

#include "lamport/Dialect/Lamport/Transforms/Passes.h"

#include "KernelGeneration.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

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
    options.bulkCopies = bulkCopies;

    // Collect first: generating a kernel erases the op and adds a module.
    SmallVector<KernelGeneratorOpInterface> programOps;
    getOperation().walk([&](func::FuncOp program) {
      program.walk([&](Operation *op) {
        // A program-level op without a generator stays: tools that need
        // every op lowered report it (docs of this pass).
        if (auto generator = dyn_cast<KernelGeneratorOpInterface>(op))
          programOps.push_back(generator);
      });
    });
    for (KernelGeneratorOpInterface op : programOps)
      if (failed(op.generateKernels(options)))
        return signalPassFailure();
  }

  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    registerKernelGenerators(registry);
  }
};
} // namespace
