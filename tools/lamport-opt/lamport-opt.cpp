//===- lamport-opt.cpp - mlir-opt with the lamport dialect ----------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// The lamport dialect and passes plus every upstream dialect and pass, so a
// pipeline from lamport ops down to PTX runs in one tool.
//
//===----------------------------------------------------------------------===//

#include "lamport/Conversion/Passes.h"
#include "lamport/Conversion/Pipelines.h"
#include "lamport/Dialect/Lamport/IR/Lamport.h"
#include "lamport/Dialect/Lamport/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::lamport::registerLamportPasses();
  mlir::lamport::registerLamportConversionPasses();
  mlir::lamport::registerLamportPipelines();
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  // gpu-module-to-binary translates gpu.module contents to LLVM IR.
  mlir::registerAllGPUToLLVMIRTranslations(registry);
  registry.insert<mlir::lamport::LamportDialect>();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "Lamport optimizer driver\n", registry));
}
