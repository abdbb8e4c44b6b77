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
#include "mlir-c/Support.h"

#include <stdbool.h>
#include <stdint.h>

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

/// A context made from that registry with the dialects a program is built
/// of loaded (lamport, func, memref, arith, gpu), and diagnostics that do not
/// print the failing op after their message: they carry its location.
/// Owned by the caller (mlirContextDestroy).
MLIR_CAPI_EXPORTED MlirContext mlirLamportContextCreate(void);

//===----------------------------------------------------------------------===//
// !lamport.mailbox
//===----------------------------------------------------------------------===//

/// Whether `type` is a `!lamport.mailbox`.
MLIR_CAPI_EXPORTED bool mlirTypeIsALamportMailbox(MlirType type);

/// `!lamport.mailbox<tp = tp, capacity = capacity, width = width>`, or a null
/// type after emitting at `location` why those parameters are not a mailbox
/// (to the context's diagnostic handlers).
MLIR_CAPI_EXPORTED MlirType mlirLamportMailboxTypeGetChecked(
    MlirLocation location, uint32_t tp, uint32_t capacity, uint32_t width);

/// The parameters of a mailbox type.
MLIR_CAPI_EXPORTED uint32_t mlirLamportMailboxTypeGetTp(MlirType type);
MLIR_CAPI_EXPORTED uint32_t mlirLamportMailboxTypeGetCapacity(MlirType type);
MLIR_CAPI_EXPORTED uint32_t mlirLamportMailboxTypeGetWidth(MlirType type);

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

/// The parameters of a `#lamport.tactic` (the launch shape of
/// lamport.gemm_publish), as the attribute's syntax names them. What a
/// weight shape accepts is checked by the op's verifier.
typedef struct {
  uint32_t splits;
  uint32_t kw;
  uint32_t accs;
  uint32_t tiles;
  uint32_t passes;
  uint32_t minCtasPerSm;
  bool earlyDependents;
  uint32_t lateChunks;
  /// Whether the weights stream through the bulk-copy ring (`pipeline =
  /// bulk`) instead of registers, and the ring's shape.
  bool bulkPipeline;
  uint32_t stages;
  uint32_t stageBytes;
  uint32_t producerLanes;
  /// Loads of the ring read before the PDL wait (`early_reads`), or -1 to
  /// leave the knob out (the generator's rule).
  int32_t earlyReads;
  /// tokenTiles[m - 1]: the token tile (8 or 16) used for m tokens.
  intptr_t numTokenTiles;
  const int64_t *tokenTiles;
} MlirLamportTactic;

/// The attribute's defaults: tiles = passes = 1, the register pipeline
/// (with the bulk ring's defaults: 4 stages of 16384 bytes, 1 producer
/// lane, early reads by the generator's rule: -1), the rest 0 or empty.
MLIR_CAPI_EXPORTED MlirLamportTactic mlirLamportTacticGetDefault(void);

/// `#lamport.tactic<...>` of `tactic`.
MLIR_CAPI_EXPORTED MlirAttribute
mlirLamportTacticAttrGet(MlirContext context, MlirLamportTactic tactic);

/// Whether `attribute` is a `#lamport.tactic`.
MLIR_CAPI_EXPORTED bool mlirAttributeIsALamportTactic(MlirAttribute attribute);

/// `#lamport.transport<name>` for `multicast` or `unicast`; a null attribute
/// for any other name.
MLIR_CAPI_EXPORTED MlirAttribute
mlirLamportTransportAttrGet(MlirContext context, MlirStringRef name);

/// `#lamport.sum_order<name>` for `rank_ascending` or `pairwise`; a null
/// attribute for any other name.
MLIR_CAPI_EXPORTED MlirAttribute mlirLamportSumOrderAttrGet(MlirContext context,
                                                            MlirStringRef name);

#ifdef __cplusplus
}
#endif

#endif // LAMPORT_C_DIALECTS_H
