//===- Passes.cpp - C API of the lamport passes and pipelines -------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#include "lamport-c/Passes.h"

#include "lamport/Conversion/Passes.h"
#include "lamport/Conversion/Pipelines.h"
#include "lamport/Dialect/Lamport/Transforms/Passes.h"

void mlirRegisterLamportPasses(void) {
  // Registering a pipeline twice is an error of the pass registry.
  static bool registered = [] {
    mlir::lamport::registerLamportPasses();
    mlir::lamport::registerLamportConversionPasses();
    mlir::lamport::registerLamportPipelines();
    return true;
  }();
  (void)registered;
}
