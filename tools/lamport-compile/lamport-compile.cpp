//===- lamport-compile.cpp - Compile a Lamport program to a bundle --------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
//   lamport-compile FILE.mlir -o BUNDLE [--chip sm_90|sm_100a]
//       [--transport unicast|multicast] [--timeout-ns N]
//       [--program NAME] [--emit=mlir|ptx|bundle] [--protocol-check=false]
//       [--tactic-table PATH] [--lamport-explain-tactics]
//
// Parses and verifies FILE, checks the mailbox protocol
// (lamport-check-protocol), chooses the tactics of every gemm_publish
// without them (lamport-select-tactics, docs/tactics.md), turns the
// program's lamport ops into kernels (lamport-generate-kernels), reads the
// launch plan off the program, drops the host code, lowers the kernels to
// PTX (lamport-lower-to-nvvm) and writes BUNDLE: <kernel>.ptx, <kernel>.cubin
// (ptxas) and manifest.json (docs/bundle.md). Every failure is an error naming
// the file, op or tool, and exit code 1.
//
//===----------------------------------------------------------------------===//

#include "lamport/Dialect/Lamport/IR/Lamport.h"
#include "lamport/Target/Bundle.h"
#include "lamport/Target/Compile.h"
#include "lamport/Target/SourceLimits.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/AsmParser/AsmParserState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
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
static llvm::cl::opt<bool> protocolCheck(
    "protocol-check",
    llvm::cl::desc("Check the mailbox protocol (lamport-check-protocol) "
                   "before generating kernels; =false skips it"),
    llvm::cl::init(true));
static llvm::cl::opt<std::string> tacticTable(
    "tactic-table",
    llvm::cl::desc("Tactic table for gemm_publish ops without tactics "
                   "(default: the chip's, share/lamport/tactics)"),
    llvm::cl::value_desc("PATH"));
static llvm::cl::opt<bool> explainTactics(
    "lamport-explain-tactics",
    llvm::cl::desc("Remark, for each gemm_publish, where its tactics came "
                   "from and why"));
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
  // Nesting the recursive parser could not survive is refused first.
  if (std::optional<std::string> error =
          checkNesting(input->getBuffer(), input->getBufferIdentifier())) {
    llvm::errs() << *error << "\n";
    return 1;
  }
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

  CompileOptions options;
  options.chip = chip;
  options.transport = transport;
  options.timeoutNs = timeoutNs;
  options.program = programName;
  options.checkProtocol = protocolCheck;
  options.tacticTable = tacticTable;
  options.explainTactics = explainTactics;
  FailureOr<func::FuncOp> program = generateProgramKernels(*module, options);
  if (failed(program))
    return 1;
  if (emit == Emit::Mlir)
    return writeOutput([&](raw_ostream &os) { module->print(os); });

  FailureOr<CompiledProgram> compiled =
      lowerProgram(*module, *program, options, getArgumentNames(asmState));
  if (failed(compiled))
    return 1;
  if (emit == Emit::Ptx)
    return writeOutput([&](raw_ostream &os) {
      for (const PlanKernel &kernel : compiled->plan.kernels)
        os << "// kernel " << kernel.name << "\n"
           << compiled->assembly.lookup(kernel.name) << "\n";
    });

  BundleTarget target{chip, stringifyTransport(transport).str()};
  if (llvm::Error error =
          writeBundle(outputPath, compiled->plan, compiled->assembly, target))
    return fail(llvm::toString(std::move(error)));
  return 0;
}
