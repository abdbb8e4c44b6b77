//===- Passes.h - C API of the lamport passes and pipelines -------*- C -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// Registration of the lamport passes and pipelines, so that
// mlirParsePassPipeline and mlirOpPassManagerAddPipeline know their names.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_C_PASSES_H
#define LAMPORT_C_PASSES_H

#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Registers lamport-generate-kernels, convert-lamport-to-nvvm and the
/// lamport-lower-to-nvvm pipeline with the global pass registry. Safe to
/// call more than once. Upstream passes, for pipeline strings that name
/// them too, come from mlirRegisterAllPasses (mlir-c/RegisterEverything.h),
/// which this library exports.
MLIR_CAPI_EXPORTED void mlirRegisterLamportPasses(void);

#ifdef __cplusplus
}
#endif

#endif // LAMPORT_C_PASSES_H
