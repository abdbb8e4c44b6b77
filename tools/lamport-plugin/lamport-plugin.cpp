//===- lamport-plugin.cpp - The lamport dialect and passes as a plugin ----===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// A shared library the stock mlir-opt loads with
//
//   mlir-opt --load-dialect-plugin=LamportPlugin.so \
//            --load-pass-plugin=LamportPlugin.so ...
//
// The dialect entry point adds the lamport dialect to mlir-opt's registry;
// the pass entry point registers lamport-generate-kernels,
// convert-lamport-to-nvvm and the lamport-lower-to-nvvm pipeline. The
// library links libMLIR.so, the same copy of MLIR as mlir-opt, so every
// upstream dialect, pass and TypeID exists once in the process.
//
// A tool that has the dialect built in (lamport-opt) has its own copy of it,
// under the same namespace and pass names but other TypeIDs; MLIR aborts
// when a namespace or pass name is registered twice with different TypeIDs.
// Loaded into such a tool, either entry point registers nothing, reports an
// error and ends the process with exit code 1: the plugin's callbacks cannot
// return a failure, and a tool that went on would run without what the
// command line asked for.
//
//===----------------------------------------------------------------------===//

#include "lamport/Conversion/Passes.h"
#include "lamport/Conversion/Pipelines.h"
#include "lamport/Dialect/Lamport/IR/Lamport.h"
#include "lamport/Dialect/Lamport/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/Compiler.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace mlir;

/// Whether `registry` already holds a 'lamport' dialect that is not this
/// library's: the tool links its own copy. The same library loaded twice
/// finds its own dialect, which registering again leaves as it is.
static bool hasOtherLamportDialect(const DialectRegistry &registry) {
  auto allocator = registry.getDialectAllocator(
      lamport::LamportDialect::getDialectNamespace());
  if (!allocator)
    return false;
  // The registry keeps the TypeID to itself: build the dialect it would
  // load in a scratch context and compare.
  MLIRContext scratch(MLIRContext::Threading::DISABLED);
  Dialect *existing = allocator(&scratch);
  return existing &&
         existing->getTypeID() != TypeID::get<lamport::LamportDialect>();
}

/// Reports that the tool has its own copy of the plugin's `what` and ends
/// the process: nothing of the plugin was registered.
[[noreturn]] static void refuseLoad(StringRef what) {
  llvm::errs() << "error: LamportPlugin: this tool already has its own " << what
               << " (lamport-opt has them built in) and a process "
               << "cannot hold two copies: load the plugin into a tool "
                  "without them, such as mlir-opt\n";
  llvm::errs().flush();
  std::exit(EXIT_FAILURE);
}

/// Adds the lamport dialect to the tool's registry, unless the tool has
/// another copy of it.
static void registerLamportDialect(DialectRegistry *registry) {
  if (hasOtherLamportDialect(*registry))
    refuseLoad("'lamport' dialect");
  registry->insert<lamport::LamportDialect>();
}

/// Registers the passes and the pipeline once per process: both entry points
/// may be loaded from this one library, and the pass registry is fatal on a
/// second registration of a pipeline. A lamport pass registered before this
/// library's first call comes from another copy, the tool's own.
static void registerLamportPassesOnce() {
  static bool registered = [] {
    if (PassInfo::lookup("lamport-generate-kernels") ||
        PassPipelineInfo::lookup("lamport-lower-to-nvvm"))
      refuseLoad("lamport passes");
    lamport::registerLamportPasses();
    lamport::registerLamportConversionPasses();
    lamport::registerLamportPipelines();
    return true;
  }();
  (void)registered;
}

/// The dialect plugin entry point: `--load-dialect-plugin`.
extern "C" LLVM_ATTRIBUTE_WEAK DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "Lamport", LLVM_VERSION_STRING,
          registerLamportDialect};
}

/// The pass plugin entry point: `--load-pass-plugin`.
extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "LamportPasses", LLVM_VERSION_STRING,
          registerLamportPassesOnce};
}
