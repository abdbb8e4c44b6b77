//===- Dialects.h - C API of the lamport dialect ------------------*- C -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// The lamport dialect for C clients, in the form of upstream's
// mlir-c/Dialect/*.h headers.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_C_DIALECTS_H
#define LAMPORT_C_DIALECTS_H

#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

/// `mlirGetDialectHandle__lamport__()`: the lamport dialect's handle, to
/// insert it into a registry or load it into a context.
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Lamport, lamport);

/// Inserts into `registry` the lamport dialect and everything a lamport
/// program and its lowering need besides: every upstream dialect and
/// extension, and the LLVM IR translations that gpu-module-to-binary uses to
/// produce PTX. A context made from this registry parses what lamport-opt
/// parses and runs lamport-lower-to-nvvm.
MLIR_CAPI_EXPORTED void
mlirLamportRegisterCompilerDialects(MlirDialectRegistry registry);

#ifdef __cplusplus
}
#endif

#endif // LAMPORT_C_DIALECTS_H
