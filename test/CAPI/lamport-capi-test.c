//===- lamport-capi-test.c - Test of the Lamport C API --------------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: lamport-capi-test %t 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=SOURCE < %t/source/manifest.json
// RUN: FileCheck %s --check-prefix=MODULE < %t/module/manifest.json
// RUN: FileCheck %s --check-prefix=PTX < %t/source/publish_rows_0.ptx
// RUN: test -s %t/source/publish_rows_0.cubin
// RUN: test -s %t/source/poll_rows_0.cubin
// RUN: test -s %t/module/poll_rows_0.cubin
// RUN: test -s %t/ptx/poll_rows_0.ptx
// RUN: test ! -e %t/ptx/poll_rows_0.cubin
// RUN: test ! -e %t/ptx/publish_rows_0.cubin

// A C client of libLamportCAPI: it registers the dialect and passes,
// parses and verifies lamport IR, runs a pipeline, compiles a program to a
// bundle from source text and from a parsed module, and reads the errors
// of bad input as text.

#include "lamport-c/Compiler.h"
#include "lamport-c/Dialects.h"
#include "lamport-c/Passes.h"

#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "mlir-c/Support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// The tp = 2 round trip of docs/examples/publish_poll_rows_tp2.mlir.
static const char *kProgram =
    "!mailbox = !lamport.mailbox<tp = 2, capacity = 16, width = 8192>\n"
    "func.func @publish_poll_rows(%rows: memref<?x8192xbf16>,\n"
    "                             %mailbox: !mailbox,\n"
    "                             %out: memref<2x?x8192xbf16>) {\n"
    "  lamport.publish_rows %rows into %mailbox {pdl}\n"
    "      : memref<?x8192xbf16>, !mailbox\n"
    "  lamport.poll_rows %mailbox into %out {pdl}\n"
    "      : !mailbox, memref<2x?x8192xbf16>\n"
    "  return\n"
    "}\n";

/// A publish of 12 BF16: not whole 16-byte fragments.
static const char *kInvalidPublish =
    "!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>\n"
    "func.func @f(%mb: !mb, %v: vector<12xbf16>, %s: i32, %r: index,\n"
    "             %c: index) {\n"
    "  lamport.mailbox.publish %v, %mb[%s, %r, %c] : vector<12xbf16>, !mb\n"
    "  return\n"
    "}\n";

static void printToStdout(MlirStringRef text, void *userData) {
  (void)userData;
  fwrite(text.data, 1, text.length, stdout);
}

/// Prints a compilation's error text, framed so that FileCheck sees where
/// it starts and ends.
static void printError(MlirStringRef text, void *userData) {
  (void)userData;
  printf("error text: <<%.*s>>\n", (int)text.length, text.data);
}

/// Prints each diagnostic on a line of its own.
static MlirLogicalResult printDiagnostic(MlirDiagnostic diagnostic,
                                         void *userData) {
  (void)userData;
  printf("diagnostic: ");
  mlirDiagnosticPrint(diagnostic, printToStdout, NULL);
  printf("\n");
  return mlirLogicalResultSuccess();
}

static MlirContext createContext(void) {
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  mlirLamportRegisterCompilerDialects(registry);
  MlirContext context = mlirContextCreateWithRegistry(registry, false);
  mlirDialectRegistryDestroy(registry);
  return context;
}

static void testDialectHandle(void) {
  // CHECK-LABEL: testDialectHandle
  printf("testDialectHandle\n");
  MlirDialectHandle handle = mlirGetDialectHandle__lamport__();
  MlirStringRef name = mlirDialectHandleGetNamespace(handle);
  // CHECK: namespace: lamport
  printf("namespace: %.*s\n", (int)name.length, name.data);

  // The handle alone is enough to load the dialect into a bare context.
  MlirContext context = mlirContextCreate();
  MlirDialect dialect = mlirDialectHandleLoadDialect(handle, context);
  // CHECK: loaded: 1
  printf("loaded: %d\n", !mlirDialectIsNull(dialect));
  mlirContextDestroy(context);
}

static void testParseVerify(MlirContext context) {
  // CHECK-LABEL: testParseVerify
  printf("testParseVerify\n");
  MlirModule module =
      mlirModuleCreateParse(context, mlirStringRefCreateFromCString(kProgram));
  MlirOperation op = mlirModuleGetOperation(module);
  // CHECK: verified: 1
  printf("verified: %d\n", mlirOperationVerify(op));
  // CHECK: !mailbox_tp2_c16_w8192 = !lamport.mailbox<tp = 2, capacity = 16, width = 8192>
  // CHECK: func.func @publish_poll_rows(%arg0: memref<?x8192xbf16>, %arg1: !mailbox_tp2_c16_w8192
  // CHECK: lamport.publish_rows %arg0 into %arg1 {pdl}
  // CHECK: lamport.poll_rows %arg1 into %arg2 {pdl}
  mlirOperationPrint(op, printToStdout, NULL);
  printf("\n");
  mlirModuleDestroy(module);

  // A verifier rule: the diagnostic handler receives its message, and the
  // parse yields no module.
  MlirDiagnosticHandlerID id =
      mlirContextAttachDiagnosticHandler(context, printDiagnostic, NULL, NULL);
  module = mlirModuleCreateParse(
      context, mlirStringRefCreateFromCString(kInvalidPublish));
  // CHECK: diagnostic: 'lamport.mailbox.publish' op publishes 12 BF16, not whole 16-byte fragments: needs a multiple of 8 lanes
  // CHECK: invalid module is null: 1
  printf("invalid module is null: %d\n", mlirModuleIsNull(module));
  mlirContextDetachDiagnosticHandler(context, id);
}

static void testPipeline(MlirContext context) {
  // CHECK-LABEL: testPipeline
  printf("testPipeline\n");
  MlirModule module =
      mlirModuleCreateParse(context, mlirStringRefCreateFromCString(kProgram));
  MlirPassManager pm = mlirPassManagerCreate(context);
  MlirLogicalResult parsed = mlirParsePassPipeline(
      mlirPassManagerGetAsOpPassManager(pm),
      mlirStringRefCreateFromCString(
          "builtin.module(lamport-generate-kernels{transport=multicast})"),
      printError, NULL);
  // CHECK: pipeline parsed: 1
  printf("pipeline parsed: %d\n", mlirLogicalResultIsSuccess(parsed));
  MlirLogicalResult ran =
      mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module));
  // CHECK: pipeline ran: 1
  printf("pipeline ran: %d\n", mlirLogicalResultIsSuccess(ran));
  // CHECK: gpu.launch_func @publish_rows_0::@publish_rows_0
  // CHECK: gpu.launch_func @poll_rows_0::@poll_rows_0
  // CHECK: gpu.module @publish_rows_0
  // CHECK: lamport.mailbox.publish {{.*}} {transport = #lamport.transport<multicast>}
  // CHECK: gpu.module @poll_rows_0
  mlirOperationPrint(mlirModuleGetOperation(module), printToStdout, NULL);
  printf("\n");

  // An unknown pass is a message, not a crash.
  MlirPassManager bad = mlirPassManagerCreate(context);
  parsed = mlirParsePassPipeline(
      mlirPassManagerGetAsOpPassManager(bad),
      mlirStringRefCreateFromCString("builtin.module(lamport-no-such-pass)"),
      printError, NULL);
  // CHECK: error text: <<'lamport-no-such-pass' does not refer to a registered pass or pass pipeline
  // CHECK: unknown pass parsed: 0
  printf("unknown pass parsed: %d\n", mlirLogicalResultIsSuccess(parsed));
  mlirPassManagerDestroy(bad);
  mlirPassManagerDestroy(pm);
  mlirModuleDestroy(module);
}

static void testTextErrors(MlirContext context) {
  // CHECK-LABEL: testTextErrors
  printf("testTextErrors\n");
  // A verifier error, quoted with its source line.
  // CHECK: error text: <<bad.mlir:4:3: error: 'lamport.mailbox.publish' op publishes 12 BF16, not whole 16-byte fragments: needs a multiple of 8 lanes
  // CHECK-NEXT: lamport.mailbox.publish %v, %mb[%s, %r, %c] : vector<12xbf16>, !mb
  // CHECK-NEXT: {{^}}  ^>>
  MlirModule module = mlirLamportModuleCreateParse(
      context, mlirStringRefCreateFromCString(kInvalidPublish),
      mlirStringRefCreateFromCString("bad.mlir"), printError, NULL);
  // CHECK: null: 1
  printf("null: %d\n", mlirModuleIsNull(module));

  module = mlirLamportModuleCreateParse(
      context, mlirStringRefCreateFromCString(kProgram),
      mlirStringRefCreateFromCString("program.mlir"), printError, NULL);
  // CHECK: parsed: 1
  printf("parsed: %d\n", !mlirModuleIsNull(module));

  // A pipeline that does not parse, then one whose pass fails.
  // CHECK: error text: <<MLIR Textual PassPipeline Parser:1:1: error: 'no-such-pass' does not refer to a registered pass or pass pipeline
  MlirLogicalResult result = mlirLamportModuleRunPassPipeline(
      module, mlirStringRefCreateFromCString("builtin.module(no-such-pass)"),
      printError, NULL);
  // CHECK: pipeline failed: 1
  printf("pipeline failed: %d\n", mlirLogicalResultIsFailure(result));
  // CHECK: error text: <<program.mlir: error: threads-per-cta must be a multiple of 32 in 32..1024, got 100>>
  result = mlirLamportModuleRunPassPipeline(
      module,
      mlirStringRefCreateFromCString(
          "builtin.module(lamport-generate-kernels{threads-per-cta=100})"),
      printError, NULL);
  // CHECK: pass failed: 1
  printf("pass failed: %d\n", mlirLogicalResultIsFailure(result));

  // The same module lowers through the registered pipeline.
  result = mlirLamportModuleRunPassPipeline(
      module,
      mlirStringRefCreateFromCString(
          "builtin.module(lamport-generate-kernels, lamport-lower-to-nvvm)"),
      printError, NULL);
  // CHECK: lowered: 1
  printf("lowered: %d\n", mlirLogicalResultIsSuccess(result));
  mlirModuleDestroy(module);
}

static void testCompile(MlirContext context, const char *root) {
  // CHECK-LABEL: testCompile
  printf("testCompile\n");
  char directory[4096];
  MlirLamportCompileOptions options = mlirLamportCompileOptionsGetDefault();

  // From source text: the manifest keeps the arguments' names.
  snprintf(directory, sizeof(directory), "%s/source", root);
  MlirLogicalResult result = mlirLamportCompileSourceToBundle(
      context, mlirStringRefCreateFromCString(kProgram),
      mlirStringRefCreateFromCString("program.mlir"),
      mlirStringRefCreateFromCString(directory), options, printError, NULL);
  // CHECK: source compiled: 1
  printf("source compiled: %d\n", mlirLogicalResultIsSuccess(result));

  // From a parsed module, for sm_100a.
  snprintf(directory, sizeof(directory), "%s/module", root);
  MlirModule module =
      mlirModuleCreateParse(context, mlirStringRefCreateFromCString(kProgram));
  options.chip = mlirStringRefCreateFromCString("sm_100a");
  result = mlirLamportCompileModuleToBundle(
      module, mlirStringRefCreateFromCString(directory), options, printError,
      NULL);
  // CHECK: module compiled: 1
  printf("module compiled: %d\n", mlirLogicalResultIsSuccess(result));
  mlirModuleDestroy(module);

  // The PTX alone: no ptxas runs, the bundle holds no cubin (RUN lines).
  snprintf(directory, sizeof(directory), "%s/ptx", root);
  options = mlirLamportCompileOptionsGetDefault();
  options.assembleCubins = false;
  result = mlirLamportCompileSourceToBundle(
      context, mlirStringRefCreateFromCString(kProgram),
      mlirStringRefCreateFromCString("program.mlir"),
      mlirStringRefCreateFromCString(directory), options, printError, NULL);
  // CHECK: PTX alone compiled: 1
  printf("PTX alone compiled: %d\n", mlirLogicalResultIsSuccess(result));
}

static void printRemarks(MlirStringRef text, void *userData) {
  ++*(int *)userData;
  printf("remarks: <<%.*s>>\n", (int)text.length, text.data);
}

/// A plain GEMM with no tactics: lamport-select-tactics chooses them.
static const char *kGemm =
    "func.func @gemm(%x: memref<4x4096xbf16>, %w: memref<1024x4096xbf16>,\n"
    "                %y: memref<4x1024xbf16>) {\n"
    "  lamport.gemm_publish %x, %w into %y {pdl}\n"
    "      : memref<4x4096xbf16>, memref<1024x4096xbf16>, "
    "memref<4x1024xbf16>\n"
    "  return\n"
    "}\n";

static void testCompileRemarks(MlirContext context, const char *root) {
  // CHECK-LABEL: testCompileRemarks
  printf("testCompileRemarks\n");
  char directory[4096];
  snprintf(directory, sizeof(directory), "%s/gemm", root);
  MlirLamportCompileOptions options = mlirLamportCompileOptionsGetDefault();
  int calls = 0;
  options.remarkCallback = printRemarks;
  options.remarkUserData = &calls;

  // A pipeline's remarks, from a pass that explains its choice.
  MlirModule module =
      mlirModuleCreateParse(context, mlirStringRefCreateFromCString(kGemm));
  // CHECK: remarks: <<-:3:3: remark: tactics for N = 1024, K = 4096: M 4..4
  // CHECK: pipeline remarks: 1 1
  MlirLogicalResult result = mlirLamportModuleRunPassPipelineWithRemarks(
      module,
      mlirStringRefCreateFromCString(
          "builtin.module(lamport-select-tactics{explain})"),
      printError, NULL, printRemarks, &calls);
  printf("pipeline remarks: %d %d\n", mlirLogicalResultIsSuccess(result),
         calls);
  mlirModuleDestroy(module);
  calls = 0;

  // Nothing to say: the callback is not called.
  result = mlirLamportCompileSourceToBundle(
      context, mlirStringRefCreateFromCString(kGemm),
      mlirStringRefCreateFromCString("gemm.mlir"),
      mlirStringRefCreateFromCString(directory), options, printError, NULL);
  // CHECK: quiet: 1 0
  printf("quiet: %d %d\n", mlirLogicalResultIsSuccess(result), calls);

  // Where each op's tactics came from, once, after the bundle is written:
  // the sm_90 table beside the build's (or installed) lib/ and bin/.
  // CHECK: remarks: <<gemm.mlir:3:3: remark: tactics for N = 1024, K = 4096: M 4..4 {{.*}} from the table {{.*}}/share/lamport/tactics/sm_90.json (entry
  // CHECK: explained: 1 1
  options.explainTactics = true;
  result = mlirLamportCompileSourceToBundle(
      context, mlirStringRefCreateFromCString(kGemm),
      mlirStringRefCreateFromCString("gemm.mlir"),
      mlirStringRefCreateFromCString(directory), options, printError, NULL);
  printf("explained: %d %d\n", mlirLogicalResultIsSuccess(result), calls);

  // A table that is not there, and a stage filling that does not exist.
  // CHECK: error text: <<gemm.mlir: error: tactic table 'no-such-table.json': No such file or directory>>
  options.tacticTable = mlirStringRefCreateFromCString("no-such-table.json");
  mlirLamportCompileSourceToBundle(
      context, mlirStringRefCreateFromCString(kGemm),
      mlirStringRefCreateFromCString("gemm.mlir"),
      mlirStringRefCreateFromCString(directory), options, printError, NULL);
  options = mlirLamportCompileOptionsGetDefault();
  // CHECK: error text: <<error: unknown bulk copies 'fast': a bulk stage is filled by auto, rows or tensor copies>>
  options.bulkCopies = mlirStringRefCreateFromCString("fast");
  mlirLamportCompileSourceToBundle(
      context, mlirStringRefCreateFromCString(kGemm),
      mlirStringRefCreateFromCString("gemm.mlir"),
      mlirStringRefCreateFromCString(directory), options, printError, NULL);
}

static void testCompileErrors(MlirContext context, const char *root) {
  // CHECK-LABEL: testCompileErrors
  printf("testCompileErrors\n");
  char directory[4096];
  snprintf(directory, sizeof(directory), "%s/errors", root);
  MlirStringRef bundle = mlirStringRefCreateFromCString(directory);
  MlirStringRef name = mlirStringRefCreateFromCString("bad.mlir");
  MlirLamportCompileOptions options = mlirLamportCompileOptionsGetDefault();

  // CHECK: error text: <<error: unknown chip 'sm_80': Lamport targets sm_90 and sm_100a>>
  options.chip = mlirStringRefCreateFromCString("sm_80");
  mlirLamportCompileSourceToBundle(context,
                                   mlirStringRefCreateFromCString(kProgram),
                                   name, bundle, options, printError, NULL);
  options = mlirLamportCompileOptionsGetDefault();

  // CHECK: error text: <<error: unknown transport 'nvls': publishes use unicast or multicast>>
  options.transport = mlirStringRefCreateFromCString("nvls");
  mlirLamportCompileSourceToBundle(context,
                                   mlirStringRefCreateFromCString(kProgram),
                                   name, bundle, options, printError, NULL);
  options = mlirLamportCompileOptionsGetDefault();

  // CHECK: error text: <<error: the timeout must be positive, got 0 ns>>
  options.timeoutNs = 0;
  mlirLamportCompileSourceToBundle(context,
                                   mlirStringRefCreateFromCString(kProgram),
                                   name, bundle, options, printError, NULL);
  options = mlirLamportCompileOptionsGetDefault();

  // A parse error names the file, line and column, and shows the line.
  // CHECK: error text: <<bad.mlir:1:26: error: undefined symbol alias id 'nothing'
  // CHECK-NEXT: func.func @f(%x: !nothing) { return }
  // CHECK-NEXT: {{^}}                         ^>>
  mlirLamportCompileSourceToBundle(
      context,
      mlirStringRefCreateFromCString("func.func @f(%x: !nothing) { return }"),
      name, bundle, options, printError, NULL);

  // CHECK: error text: <<bad.mlir: error: no program in this file: a program is a func.func that applies program-level lamport ops
  mlirLamportCompileSourceToBundle(
      context, mlirStringRefCreateFromCString("func.func @f() { return }"),
      name, bundle, options, printError, NULL);

  // CHECK: error text: <<-: error: no program named 'decode' in this file
  // CHECK-NEXT: -:{{[0-9]+}}:1: note: program '{{[a-z_]+}}'>>
  options.program = mlirStringRefCreateFromCString("decode");
  MlirModule module =
      mlirModuleCreateParse(context, mlirStringRefCreateFromCString(kProgram));
  MlirLogicalResult result = mlirLamportCompileModuleToBundle(
      module, bundle, options, printError, NULL);
  // CHECK: failed: 1
  printf("failed: %d\n", mlirLogicalResultIsFailure(result));
  mlirModuleDestroy(module);

  // A bundle needs a directory name, and a directory it can create.
  options = mlirLamportCompileOptionsGetDefault();
  // CHECK: error text: <<error: a bundle is a directory: name it>>
  mlirLamportCompileSourceToBundle(
      context, mlirStringRefCreateFromCString(kProgram), name,
      mlirStringRefCreate(NULL, 0), options, printError, NULL);
  char file[4096];
  snprintf(file, sizeof(file), "%s/not-a-directory", root);
  FILE *blocker = fopen(file, "w");
  fclose(blocker);
  // CHECK: error text: <<error: {{.*}}not-a-directory{{.*}}>>
  // CHECK: not a directory: 1
  result = mlirLamportCompileSourceToBundle(
      context, mlirStringRefCreateFromCString(kProgram), name,
      mlirStringRefCreateFromCString(file), options, printError, NULL);
  printf("not a directory: %d\n", mlirLogicalResultIsFailure(result));

  // Without a callback a failure is still reported by the result.
  result = mlirLamportCompileSourceToBundle(
      context, mlirStringRefCreateFromCString("not mlir"), name, bundle,
      options, NULL, NULL);
  // CHECK: failed without callback: 1
  printf("failed without callback: %d\n", mlirLogicalResultIsFailure(result));
}

/// The builder's entry points: a context with the program dialects loaded,
/// the mailbox type (checked), and the tactic, transport and sum-order
/// attributes.
static void testTypesAndAttributes(void) {
  // CHECK-LABEL: testTypesAndAttributes
  printf("testTypesAndAttributes\n");
  MlirContext context = mlirLamportContextCreate();
  // CHECK: func loaded: 1
  printf("func loaded: %d\n",
         mlirContextIsRegisteredOperation(
             context, mlirStringRefCreateFromCString("func.func")));
  MlirLocation loc = mlirLocationUnknownGet(context);
  MlirType mailbox = mlirLamportMailboxTypeGetChecked(loc, 8, 16, 8192);
  // CHECK: !lamport.mailbox<tp = 8, capacity = 16, width = 8192> 1 8 16 8192
  mlirTypePrint(mailbox, printToStdout, NULL);
  printf(" %d %u %u %u\n", mlirTypeIsALamportMailbox(mailbox),
         mlirLamportMailboxTypeGetTp(mailbox),
         mlirLamportMailboxTypeGetCapacity(mailbox),
         mlirLamportMailboxTypeGetWidth(mailbox));
  MlirDiagnosticHandlerID handler =
      mlirContextAttachDiagnosticHandler(context, printDiagnostic, NULL, NULL);
  // CHECK: diagnostic: width must be a multiple of 8 BF16 elements, got 81
  // CHECK: bad mailbox is null: 1
  printf("bad mailbox is null: %d\n",
         mlirTypeIsNull(mlirLamportMailboxTypeGetChecked(loc, 8, 16, 81)));
  mlirContextDetachDiagnosticHandler(context, handler);

  int64_t tiles[] = {8, 8, 16};
  MlirLamportTactic tactic = mlirLamportTacticGetDefault();
  tactic.splits = 1;
  tactic.kw = 128;
  tactic.accs = 2;
  tactic.earlyDependents = true;
  tactic.numTokenTiles = 3;
  tactic.tokenTiles = tiles;
  MlirAttribute attribute = mlirLamportTacticAttrGet(context, tactic);
  // CHECK: #lamport.tactic<splits = 1, kw = 128, accs = 2, early_dependents = true, token_tiles = [8, 8, 16]> 1
  mlirAttributePrint(attribute, printToStdout, NULL);
  printf(" %d\n", mlirAttributeIsALamportTactic(attribute));
  // The default leaves early_reads to the generator's rule; 0 is a value.
  tactic.bulkPipeline = true;
  tactic.earlyReads = 0;
  // CHECK: #lamport.tactic<splits = 1, kw = 128, accs = 2, early_dependents = true, pipeline = bulk, early_reads = 0, token_tiles = [8, 8, 16]>
  mlirAttributePrint(mlirLamportTacticAttrGet(context, tactic), printToStdout,
                     NULL);
  printf("\n");
  // CHECK: #lamport.transport<multicast> #lamport.sum_order<pairwise>
  mlirAttributePrint(mlirLamportTransportAttrGet(
                         context, mlirStringRefCreateFromCString("multicast")),
                     printToStdout, NULL);
  printf(" ");
  mlirAttributePrint(mlirLamportSumOrderAttrGet(
                         context, mlirStringRefCreateFromCString("pairwise")),
                     printToStdout, NULL);
  // CHECK: unknown names are null: 1 1
  printf("\nunknown names are null: %d %d\n",
         mlirAttributeIsNull(mlirLamportTransportAttrGet(
             context, mlirStringRefCreateFromCString("nvls"))),
         mlirAttributeIsNull(mlirLamportSumOrderAttrGet(
             context, mlirStringRefCreateFromCString("tree"))));
  mlirContextDestroy(context);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: lamport-capi-test OUTPUT_DIRECTORY\n");
    return 2;
  }
  mlirRegisterLamportPasses();
  // Twice: registration is idempotent.
  mlirRegisterLamportPasses();
  testDialectHandle();
  MlirContext context = createContext();
  testParseVerify(context);
  testPipeline(context);
  testTextErrors(context);
  testCompile(context, argv[1]);
  testCompileRemarks(context, argv[1]);
  testCompileErrors(context, argv[1]);
  mlirContextDestroy(context);
  testTypesAndAttributes();
  // CHECK: done
  printf("done\n");
  return 0;
}

// SOURCE: "program": "publish_poll_rows",
// SOURCE: "arguments": [
// SOURCE-NEXT: {"index": 0, "name": "rows", "kind": "buffer", "dtype": "bf16", "shape": [-1, 8192], "io": "in"},
// SOURCE-NEXT: {"index": 1, "name": "mailbox", "kind": "mailbox", "mailbox": 0},
// SOURCE-NEXT: {"index": 2, "name": "out", "kind": "buffer", "dtype": "bf16", "shape": [2, -1, 8192], "io": "out"}
// SOURCE: "name": "publish_rows_0",
// SOURCE: "name": "poll_rows_0",

// MODULE: "chip": "sm_100a",
// MODULE: "arguments": [
// MODULE-NEXT: {"index": 0, "name": "arg0", "kind": "buffer"
// MODULE-NEXT: {"index": 1, "name": "arg1", "kind": "mailbox"
// MODULE-NEXT: {"index": 2, "name": "arg2", "kind": "buffer"

// PTX: .visible .entry publish_rows_0(
// PTX-NOT: multimem
