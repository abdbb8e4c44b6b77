//===- downstream-opt.cpp - An opt-like tool over the installed dialect ---===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// What a user's compiler does with an installed Lamport: its own mlir-opt
// with the lamport dialect and passes registered beside the upstream
// dialects a lamport program uses.
//
//===----------------------------------------------------------------------===//

#include "lamport/Dialect/Lamport/IR/Lamport.h"
#include "lamport/Dialect/Lamport/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::lamport::registerLamportPasses();
  mlir::DialectRegistry registry;
  registry.insert<mlir::lamport::LamportDialect, mlir::arith::ArithDialect,
                  mlir::func::FuncDialect, mlir::memref::MemRefDialect>();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "A downstream optimizer with the lamport dialect\n",
      registry));
}
