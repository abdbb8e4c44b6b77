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
//===----------------------------------------------------------------------===//

#include "lamport/Conversion/Passes.h"
#include "lamport/Conversion/Pipelines.h"
#include "lamport/Dialect/Lamport/IR/Lamport.h"
#include "lamport/Dialect/Lamport/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/Compiler.h"

using namespace mlir;

/// Registers the passes and the pipeline once per process: both entry points
/// may be loaded from this one library, and the pass registry is fatal on a
/// second registration of a pipeline.
static void registerLamportPassesOnce() {
  static bool registered = [] {
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
          [](DialectRegistry *registry) {
            registry->insert<lamport::LamportDialect>();
          }};
}

/// The pass plugin entry point: `--load-pass-plugin`.
extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "LamportPasses", LLVM_VERSION_STRING,
          registerLamportPassesOnce};
}
