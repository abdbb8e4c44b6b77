//===- Dialects.cpp - C API of the lamport dialect ------------------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#include "lamport-c/Dialects.h"

#include "lamport/Dialect/Lamport/IR/Lamport.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Lamport, lamport,
                                      mlir::lamport::LamportDialect)

void mlirLamportRegisterCompilerDialects(MlirDialectRegistry registry) {
  // The registry lamport-compile builds, so that C clients parse and lower
  // exactly what the tools do.
  mlir::DialectRegistry &unwrapped = *unwrap(registry);
  mlir::registerAllDialects(unwrapped);
  mlir::registerAllExtensions(unwrapped);
  mlir::registerAllToLLVMIRTranslations(unwrapped);
  unwrapped.insert<mlir::lamport::LamportDialect>();
}
