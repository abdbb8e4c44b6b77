//===- lamport-compile.cpp - Compile a Lamport program to a bundle --------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
//   lamport-compile FILE.mlir -o BUNDLE [--chip sm_90|sm_100a]
//       [--transport unicast|multicast] [--timeout-ns N]
//       [--program NAME] [--emit=mlir|ptx|bundle]
//
// Parses and verifies FILE, turns the program's lamport ops into kernels
// (lamport-generate-kernels), reads the launch plan off the program, drops
// the host code, lowers the kernels to PTX (lamport-lower-to-nvvm) and
// writes BUNDLE: <kernel>.ptx, <kernel>.cubin (ptxas) and manifest.json
// (docs/bundle.md). Every failure is an error naming the file, op or tool,
// and exit code 1.
//
//===----------------------------------------------------------------------===//

#include "lamport/Conversion/Pipelines.h"
#include "lamport/Dialect/Lamport/IR/Lamport.h"
#include "lamport/Dialect/Lamport/Transforms/Passes.h"
#include "lamport/Target/Bundle.h"
#include "lamport/Target/LaunchPlan.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/AsmParser/AsmParserState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

using namespace mlir;
using namespace mlir::lamport;

namespace {
/// What lamport-compile writes.
enum class Emit { Mlir, Ptx, Bundle };
} // namespace

static llvm::cl::opt<std::string>
    inputFilename(llvm::cl::Positional, llvm::cl::desc("<program.mlir>"),
                  llvm::cl::Required);
static llvm::cl::opt<std::string>
    outputPath("o",
               llvm::cl::desc("The bundle directory (a file, or - for "
                              "stdout, with --emit=mlir or --emit=ptx)"),
               llvm::cl::value_desc("BUNDLE"), llvm::cl::init("-"));
static llvm::cl::opt<std::string>
    chip("chip", llvm::cl::desc("Target SM: sm_90 or sm_100a"),
         llvm::cl::init("sm_90"));
static llvm::cl::opt<Transport> transport(
    "transport", llvm::cl::desc("Transport of publishes whose op sets none"),
    llvm::cl::init(Transport::unicast),
    llvm::cl::values(clEnumValN(Transport::unicast, "unicast",
                                "one 16-byte store per peer"),
                     clEnumValN(Transport::multicast, "multicast",
                                "one multimem.st to the multicast address")));
static llvm::cl::opt<int64_t>
    timeoutNs("timeout-ns",
              llvm::cl::desc("Timeout in ns of polls whose op sets none"),
              llvm::cl::init(LamportDialect::kDefaultTimeoutNs));
static llvm::cl::opt<std::string>
    programName("program",
                llvm::cl::desc("The program to compile, where the file "
                               "holds more than one"));
static llvm::cl::opt<Emit>
    emit("emit", llvm::cl::desc("What to write"), llvm::cl::init(Emit::Bundle),
         llvm::cl::values(
             clEnumValN(Emit::Mlir, "mlir",
                        "the program and its kernels after lamport-generate-"
                        "kernels"),
             clEnumValN(Emit::Ptx, "ptx", "the PTX of every kernel"),
             clEnumValN(Emit::Bundle, "bundle",
                        "the bundle directory: PTX, cubin and manifest.json")));

/// Reports a failure that has no location in the input.
static int fail(const Twine &message) {
  llvm::WithColor::error(llvm::errs(), "lamport-compile") << message << "\n";
  return 1;
}

/// The source names of the arguments of every block, from the parser's
/// record of definitions ("%rows" -> "rows").
static DenseMap<Block *, std::vector<std::string>>
getArgumentNames(const AsmParserState &state) {
  DenseMap<Block *, std::vector<std::string>> names;
  for (const AsmParserState::BlockDefinition &block : state.getBlockDefs()) {
    std::vector<std::string> &blockNames = names[block.block];
    for (const AsmParserState::SMDefinition &argument : block.arguments) {
      const char *start = argument.loc.Start.getPointer();
      const char *end = argument.loc.End.getPointer();
      StringRef name =
          start && end > start ? StringRef(start, end - start) : StringRef();
      blockNames.push_back(name.ltrim('%').str());
    }
  }
  return names;
}

/// Writes `text` to the output file (or stdout).
static int writeOutput(function_ref<void(raw_ostream &)> print) {
  std::string error;
  std::unique_ptr<llvm::ToolOutputFile> output =
      openOutputFile(outputPath, &error);
  if (!output)
    return fail(error);
  print(output->os());
  output->keep();
  return 0;
}

/// The program to compile, or a diagnostic.
static FailureOr<func::FuncOp> selectProgram(ModuleOp module) {
  SmallVector<func::FuncOp> programs = getPrograms(module);
  if (!programName.empty()) {
    for (func::FuncOp program : programs)
      if (program.getSymName() == programName)
        return program;
    fail("'" + inputFilename + "' holds no program named '" + programName +
         "'");
    return failure();
  }
  if (programs.empty()) {
    fail("'" + inputFilename +
         "' holds no program: a func.func that applies program-level lamport "
         "ops (lamport.publish_rows, lamport.poll_rows, lamport.all_reduce, "
         "...) to its arguments");
    return failure();
  }
  if (programs.size() > 1) {
    std::string names;
    for (func::FuncOp program : programs)
      names += (names.empty() ? "" : ", ") + program.getSymName().str();
    fail("'" + inputFilename + "' holds " + std::to_string(programs.size()) +
         " programs (" + names + "): choose one with --program");
    return failure();
  }
  return programs.front();
}

/// Leaves only the kernels `plan` launches: no host code reaches the
/// lowering, which compiles gpu.modules only.
static void keepKernelsOf(ModuleOp module, const LaunchPlan &plan) {
  llvm::StringSet<> launched;
  for (const PlanKernel &kernel : plan.kernels)
    launched.insert(kernel.name);
  for (Operation &op : llvm::make_early_inc_range(*module.getBody())) {
    auto kernelModule = dyn_cast<gpu::GPUModuleOp>(op);
    if (!kernelModule || !launched.contains(kernelModule.getName()))
      op.erase();
  }
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  llvm::cl::ParseCommandLineOptions(
      argc, argv, "Lamport compiler: a program to a bundle of kernels\n");

  if (!isSupportedChip(chip))
    return fail("unknown chip '" + chip +
                "': lamport-compile targets sm_90 and sm_100a");
  if (timeoutNs <= 0)
    return fail("--timeout-ns must be positive, got " +
                std::to_string(timeoutNs));
  if (emit == Emit::Bundle && outputPath == "-")
    return fail("a bundle is a directory: name it with -o BUNDLE");

  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerAllToLLVMIRTranslations(registry);
  registry.insert<LamportDialect>();
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // Errors name the op at its source line; the generic form adds nothing.
  context.printOpOnDiagnostic(false);

  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input =
      openInputFile(inputFilename, &error);
  if (!input)
    return fail(error);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);

  // Parse with the parser's record of definitions: it keeps the source
  // names of the program's arguments for the manifest.
  AsmParserState asmState;
  ParserConfig config(&context);
  Block parsed;
  if (failed(parseAsmSourceFile(sourceMgr, &parsed, config, &asmState)))
    return 1;
  OwningOpRef<ModuleOp> module =
      mlir::detail::constructContainerOpForParserIfNecessary<ModuleOp>(
          &parsed, &context,
          FileLineColLoc::get(&context, inputFilename, 0, 0));
  if (!module || failed(verify(*module)))
    return 1;
  DenseMap<Block *, std::vector<std::string>> argumentNames =
      getArgumentNames(asmState);

  FailureOr<func::FuncOp> program = selectProgram(*module);
  if (failed(program))
    return 1;
  std::vector<std::string> programArgumentNames =
      argumentNames.lookup(&program->getBody().front());

  PassManager generate(&context);
  LamportGenerateKernelsOptions generateOptions;
  generateOptions.transport = transport;
  generate.addPass(createLamportGenerateKernels(generateOptions));
  if (failed(generate.run(*module)))
    return 1;
  if (emit == Emit::Mlir)
    return writeOutput([&](raw_ostream &os) { module->print(os); });

  FailureOr<LaunchPlan> plan = readLaunchPlan(*program, programArgumentNames);
  if (failed(plan))
    return 1;

  keepKernelsOf(*module, *plan);
  PassManager lower(&context);
  LamportToNVVMPipelineOptions lowerOptions;
  lowerOptions.chip = chip;
  lowerOptions.transport = transport;
  lowerOptions.timeoutNs = timeoutNs;
  buildLamportToNVVMPipeline(lower, lowerOptions);
  if (failed(lower.run(*module)))
    return 1;

  FailureOr<llvm::MapVector<StringRef, StringRef>> assembly =
      getKernelAssembly(*module);
  if (failed(assembly))
    return 1;
  if (emit == Emit::Ptx)
    return writeOutput([&](raw_ostream &os) {
      for (const PlanKernel &kernel : plan->kernels)
        os << "// kernel " << kernel.name << "\n"
           << assembly->lookup(kernel.name) << "\n";
    });

  BundleTarget target{chip, stringifyTransport(transport).str()};
  if (llvm::Error error = writeBundle(outputPath, *plan, *assembly, target))
    return fail(llvm::toString(std::move(error)));
  return 0;
}
