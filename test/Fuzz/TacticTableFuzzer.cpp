//===- TacticTableFuzzer.cpp - Fuzz the tactic tables the compiler reads --===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// A libFuzzer target over a tactic table handed to the compiler
// (lamport-select-tactics' `tactic-table=`, lamport-compile's
// `--tactic-table`, the C API's and Python's `tactic_table`). An input is
// the table's text. The pass reads it, with `explain`, for a module of
// plain GEMMs of any M: the shapes of the table's first entries and timed
// points (those a program could hold) and two more, which the table's
// timed points serve as the cost model's prior.
//
// A table the pass refuses is an error, not a finding. Besides a crash, a
// sanitizer report or a hang, one answer is a finding: the pass succeeded
// and left an op without tactics.
//
//===----------------------------------------------------------------------===//

#include "CompilerFuzzSupport.h"

#include "lamport/Dialect/Lamport/IR/Lamport.h"
#include "lamport/Dialect/Lamport/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdlib>
#include <utility>

using namespace mlir;
using namespace mlir::lamport;
using ::lamport::fuzz::finding;
using ::lamport::fuzz::InputContext;

/// The dialects the module of GEMMs holds; built once, a context per input.
static DialectRegistry *registry;
/// The file the pass reads each input from: its option takes a path.
static std::string *tablePath;

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  registry = new DialectRegistry;
  registry->insert<LamportDialect, func::FuncDialect, memref::MemRefDialect>();
  SmallString<128> path;
  if (llvm::sys::fs::createTemporaryFile("lamport-fuzz-table", "json", path)) {
    llvm::errs() << "lamport fuzz: cannot create a temporary file\n";
    std::abort();
  }
  tablePath = new std::string(path.str());
  std::atexit([] { llvm::sys::fs::remove(*tablePath); });
  return 0;
}

/// The [n, k] of the first records of the table's `key` list that a
/// program could hold (a weight of at most 2^16 x 2^16), added to `shapes`.
static void addShapes(const llvm::json::Object &table, StringRef key,
                      SmallVectorImpl<std::pair<int64_t, int64_t>> &shapes) {
  const llvm::json::Array *records = table.getArray(key);
  if (!records)
    return;
  for (const llvm::json::Value &record : llvm::make_range(
           records->begin(),
           records->begin() + std::min<size_t>(records->size(), 4))) {
    const llvm::json::Object *fields = record.getAsObject();
    if (!fields)
      continue;
    std::optional<int64_t> n = fields->getInteger("n");
    std::optional<int64_t> k = fields->getInteger("k");
    if (n && k && *n >= 1 && *n <= 65536 && *k >= 1 && *k <= 65536 &&
        !llvm::is_contained(shapes, std::make_pair(*n, *k)))
      shapes.emplace_back(*n, *k);
  }
}

/// A module of one plain GEMM of dynamic M for each shape.
static std::string gemmModule(ArrayRef<std::pair<int64_t, int64_t>> shapes) {
  std::string text;
  llvm::raw_string_ostream os(text);
  for (auto [index, shape] : llvm::enumerate(shapes)) {
    auto [n, k] = shape;
    os << llvm::formatv(
        "func.func @gemm{0}(%x: memref<?x{2}xbf16>, %w: memref<{1}x{2}xbf16>, "
        "%y: memref<?x{1}xbf16>) {{\n"
        "  lamport.gemm_publish %x, %w into %y {{pdl} : memref<?x{2}xbf16>, "
        "memref<{1}x{2}xbf16>, memref<?x{1}xbf16>\n"
        "  return\n}\n",
        index, n, k);
  }
  return text;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  StringRef table(reinterpret_cast<const char *>(data), size);
  {
    std::error_code error;
    llvm::raw_fd_ostream file(*tablePath, error);
    if (error)
      finding("cannot write " + *tablePath + ": " + error.message());
    file << table;
  }

  // Two shapes of no table (an unpooler and an o_proj of the tactic
  // checks), then those the table names.
  SmallVector<std::pair<int64_t, int64_t>> shapes = {{1024, 4096},
                                                     {5120, 1280}};
  if (llvm::Expected<llvm::json::Value> json = llvm::json::parse(table)) {
    if (const llvm::json::Object *object = json->getAsObject()) {
      addShapes(*object, "entries", shapes);
      addShapes(*object, "measured", shapes);
    }
  } else {
    llvm::consumeError(json.takeError());
  }

  InputContext context(*registry);
  // A shape the op verifier refuses (N not a multiple of 16 is not one:
  // the pass says no tactic launches it) leaves the module unparsed.
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(gemmModule(shapes), context.get());
  if (!module)
    return 0;

  LamportSelectTacticsOptions options;
  options.tacticTable = *tablePath;
  options.explain = true;
  PassManager pm(context.get());
  pm.addPass(createLamportSelectTactics(options));
  if (failed(pm.run(*module)))
    return 0;
  module->walk([](GemmPublishOp op) {
    if (op.getTacticList().empty())
      finding("lamport-select-tactics succeeded and left a gemm_publish "
              "without tactics");
  });
  return 0;
}
