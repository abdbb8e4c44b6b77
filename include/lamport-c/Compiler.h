//===- Compiler.h - C API: parse, lower and compile lamport IR ----*- C -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// What lamport-opt and lamport-compile do, for C clients and bindings that
// want errors as text rather than through a diagnostic handler: parse and
// verify a program, run a pass pipeline on it, and turn it into a bundle
// directory (one <kernel>.ptx and <kernel>.cubin per kernel, and
// manifest.json; docs/bundle.md) that the runtime loads.
//
// Every entry point that can fail takes an MlirStringCallback: on failure it
// is called once (when not null) with every error, one a line, each naming
// its location, op or tool; `userData` is passed through.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_C_COMPILER_H
#define LAMPORT_C_COMPILER_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Parses `source` (named `sourceName` in messages) in `context` and
/// verifies it. Returns the module, owned by the caller, or a null module
/// after reporting the errors, each with its source line.
MLIR_CAPI_EXPORTED MlirModule mlirLamportModuleCreateParse(
    MlirContext context, MlirStringRef source, MlirStringRef sourceName,
    MlirStringCallback errorCallback, void *userData);

/// Parses the textual pass pipeline `pipeline` (e.g.
/// `builtin.module(lamport-generate-kernels, lamport-lower-to-nvvm)`) and
/// runs it on `module`. Passes must be registered first
/// (mlirRegisterLamportPasses, mlirRegisterAllPasses).
MLIR_CAPI_EXPORTED MlirLogicalResult mlirLamportModuleRunPassPipeline(
    MlirModule module, MlirStringRef pipeline, MlirStringCallback errorCallback,
    void *userData);

/// As mlirLamportModuleRunPassPipeline; when the pipeline succeeds, also
/// calls `remarkCallback` (when not null) once with its warnings and
/// remarks, one a line, where it has any (e.g. those of
/// `lamport-select-tactics{explain}`); `remarkUserData` is passed through.
MLIR_CAPI_EXPORTED MlirLogicalResult
mlirLamportModuleRunPassPipelineWithRemarks(
    MlirModule module, MlirStringRef pipeline, MlirStringCallback errorCallback,
    void *userData, MlirStringCallback remarkCallback, void *remarkUserData);

/// What to compile for, as lamport-compile's flags say it. String fields are
/// borrowed for the duration of the call.
typedef struct {
  /// Target SM: `sm_90` or `sm_100a` (lamport-compile --chip).
  MlirStringRef chip;
  /// Transport of publishes whose op sets none: `unicast` or `multicast`
  /// (--transport).
  MlirStringRef transport;
  /// Timeout in ns of polls whose op sets none (--timeout-ns); positive.
  int64_t timeoutNs;
  /// The program to compile where the module holds more than one
  /// (--program); empty to take the only one.
  MlirStringRef program;
  /// The tactic table for gemm_publish ops without tactics
  /// (--tactic-table); empty for the chip's, installed beside the library
  /// (docs/tactics.md).
  MlirStringRef tacticTable;
  /// How the GEMM's bulk pipeline fills a stage that is not contiguous:
  /// `auto`, `rows` or `tensor` (--bulk-copies).
  MlirStringRef bulkCopies;
  /// Whether lamport-check-protocol runs before the kernels are generated
  /// (--protocol-check).
  bool checkProtocol;
  /// Whether each gemm_publish gets a remark saying where its tactics came
  /// from (--lamport-explain-tactics).
  bool explainTactics;
  /// Whether ptxas assembles each kernel's cubin (--cubins); false writes
  /// the PTX alone, which the driver JIT-compiles when the runtime loads
  /// the bundle: no CUDA toolkit needed.
  bool assembleCubins;
  /// When not null, called once after a compilation that succeeded, with
  /// its warnings and remarks (the tactics' among them), one a line, where
  /// it has any; `remarkUserData` is passed through. On failure they go to
  /// the error callback with the errors.
  MlirStringCallback remarkCallback;
  void *remarkUserData;
} MlirLamportCompileOptions;

/// lamport-compile's defaults: sm_90, unicast, the dialect's default
/// timeout, the only program, the chip's tactic table, `auto` bulk copies,
/// the protocol checked, no remarks, cubins assembled.
MLIR_CAPI_EXPORTED MlirLamportCompileOptions
mlirLamportCompileOptionsGetDefault(void);

/// Compiles the program of `module` into the bundle directory `directory`
/// (created if needed): lamport-generate-kernels, the launch plan,
/// lamport-lower-to-nvvm, then ptxas for every kernel. `module` is changed in
/// place (it ends up holding the kernels' gpu.binary ops) and stays owned by
/// the caller. The manifest names an argument by its name location
/// (`loc("attn")`, as the Python builder sets them) where it has one, else
/// `arg<i>`: a parsed module keeps no source names;
/// mlirLamportCompileSourceToBundle keeps them.
MLIR_CAPI_EXPORTED MlirLogicalResult mlirLamportCompileModuleToBundle(
    MlirModule module, MlirStringRef directory,
    MlirLamportCompileOptions options, MlirStringCallback errorCallback,
    void *userData);

/// Parses `source` (named `sourceName` in messages) in `context`, verifies
/// it and compiles it as mlirLamportCompileModuleToBundle does, keeping the
/// source names of the program's arguments for the manifest, as
/// lamport-compile does. `context` must know the lamport dialect and its
/// companions (mlirLamportRegisterCompilerDialects).
MLIR_CAPI_EXPORTED MlirLogicalResult mlirLamportCompileSourceToBundle(
    MlirContext context, MlirStringRef source, MlirStringRef sourceName,
    MlirStringRef directory, MlirLamportCompileOptions options,
    MlirStringCallback errorCallback, void *userData);

#ifdef __cplusplus
}
#endif

#endif // LAMPORT_C_COMPILER_H
