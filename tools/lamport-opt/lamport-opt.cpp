//===- lamport-opt.cpp - mlir-opt with the lamport dialect ----------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// The lamport dialect and passes plus every upstream dialect and pass, so a
// pipeline from lamport ops down to PTX runs in one tool. It is MlirOptMain
// with one step before it: input and command-line arguments (a pass
// pipeline) whose brackets nest deeper than the recursive parsers' stack
// survives are refused (lamport/Target/SourceLimits.h).
//
//===----------------------------------------------------------------------===//

#include "lamport/Conversion/Passes.h"
#include "lamport/Conversion/Pipelines.h"
#include "lamport/Dialect/Lamport/IR/Lamport.h"
#include "lamport/Dialect/Lamport/Transforms/Passes.h"
#include "lamport/Target/SourceLimits.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/StringSaver.h"
#include "llvm/Support/ToolOutputFile.h"

#include <cstdio>

using namespace mlir;

/// What MlirOptMain(argc, argv, input, output, registry) does, with the
/// input's nesting checked between reading and parsing it.
static LogicalResult runLamportOpt(int argc, char **argv,
                                   StringRef inputFilename,
                                   StringRef outputFilename,
                                   DialectRegistry &registry) {
  llvm::InitLLVM init(argc, argv);
  MlirOptMainConfig config = MlirOptMainConfig::createFromCLOptions();
  if (inputFilename == "-" &&
      llvm::sys::Process::FileDescriptorIsDisplayed(fileno(stdin)))
    llvm::errs() << "(processing input from stdin now, hit ctrl-c/ctrl-d to "
                    "interrupt)\n";
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input =
      openInputFile(inputFilename, &error);
  if (!input) {
    llvm::errs() << error << "\n";
    return failure();
  }
  if (std::optional<std::string> error = lamport::checkNesting(
          input->getBuffer(), input->getBufferIdentifier())) {
    llvm::errs() << *error << "\n";
    return failure();
  }
  std::unique_ptr<llvm::ToolOutputFile> output =
      openOutputFile(outputFilename, &error);
  if (!output) {
    llvm::errs() << error << "\n";
    return failure();
  }
  if (failed(MlirOptMain(output->os(), std::move(input), registry, config)))
    return failure();
  output->keep();
  return success();
}

/// Refuses a command-line argument (response files expanded) whose
/// brackets nest deeper than the parsers survive: `--pass-pipeline` is
/// parsed recursively too.
static LogicalResult checkArguments(int argc, char **argv) {
  llvm::BumpPtrAllocator allocator;
  llvm::StringSaver saver(allocator);
  SmallVector<const char *> args(argv, argv + argc);
  // A response file that cannot be read is reported by the option parser.
  (void)llvm::cl::ExpandResponseFiles(saver, llvm::cl::TokenizeGNUCommandLine,
                                      args);
  for (auto [i, arg] : llvm::enumerate(args))
    if (std::optional<std::string> error = lamport::checkNesting(
            arg, "<command line, argument " + std::to_string(i) + ">")) {
      llvm::errs() << *error << "\n";
      return failure();
    }
  return success();
}

int main(int argc, char **argv) {
  if (failed(checkArguments(argc, argv)))
    return EXIT_FAILURE;
  registerAllPasses();
  lamport::registerLamportPasses();
  lamport::registerLamportConversionPasses();
  lamport::registerLamportPipelines();
  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  // gpu-module-to-binary translates gpu.module contents to LLVM IR.
  registerAllGPUToLLVMIRTranslations(registry);
  registry.insert<lamport::LamportDialect>();
  auto [inputFilename, outputFilename] = registerAndParseCLIOptions(
      argc, argv, "Lamport optimizer driver\n", registry);
  return asMainReturnCode(
      runLamportOpt(argc, argv, inputFilename, outputFilename, registry));
}
