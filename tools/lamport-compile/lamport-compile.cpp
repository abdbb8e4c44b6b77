//===- lamport-compile.cpp - Compile a Lamport program to a bundle --------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
//   lamport-compile FILE.mlir -o OUT [--chip sm_90|sm_100a]
//       [--transport unicast|multicast] [--timeout-ns N] [--program NAME]
//       [--emit=mlir|nvvm|llvm|ptx|bundle] [--protocol-check=false]
//       [--tactic-table PATH] [--lamport-explain-tactics] [--cubins=false]
//       [-q] [--json] [--mlir-print-ir-after-all, --mlir-timing, ...]
//
// Parses and verifies FILE, runs the program pipeline (buildProgramPipeline:
// lamport-check-protocol, lamport-select-tactics (docs/tactics.md),
// lamport-generate-kernels), reads the launch plan
// off the program, drops the host code, lowers the kernels to the NVVM
// dialect and on to PTX, and writes what --emit asks for; a bundle is
// <kernel>.ptx, <kernel>.cubin (ptxas; --cubins=false leaves it out) and
// manifest.json (docs/bundle.md).
// MLIR's general options (IR printing, timing, pass statistics, context and
// printer options) apply to every pass manager it runs. Every failure is an
// error naming the file, op or tool, and exit code 1; success prints one
// summary line on stderr (-q: none), or with --json a JSON object on stdout.
//
//===----------------------------------------------------------------------===//

#include "lamport/Dialect/Lamport/IR/Lamport.h"
#include "lamport/Target/Bundle.h"
#include "lamport/Target/Compile.h"
#include "lamport/Target/SourceLimits.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/AsmParser/AsmParserState.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

#include <chrono>

#ifndef LAMPORT_VERSION
#error "LAMPORT_VERSION must be defined (tools/lamport-compile/CMakeLists.txt)"
#endif

using namespace mlir;
using namespace mlir::lamport;

namespace {
/// What lamport-compile writes: the stages of the compilation it stops at.
enum class Emit { Mlir, Nvvm, Llvm, Ptx, Bundle };
} // namespace

/// lamport-compile's own options, which --help lists first.
static llvm::cl::OptionCategory compileCategory("lamport-compile options");
/// MLIR's general options (IR printing, timing, statistics, context and
/// printer), which --help lists after them.
static llvm::cl::OptionCategory mlirCategory("MLIR options");

static llvm::cl::opt<std::string>
    inputFilename(llvm::cl::Positional, llvm::cl::desc("<program.mlir>"),
                  llvm::cl::Required, llvm::cl::cat(compileCategory));
static llvm::cl::opt<std::string> outputPath(
    "o",
    llvm::cl::desc("Where to write: the bundle directory; for --emit=mlir, "
                   "nvvm, llvm or ptx a file, - for stdout, or (llvm and ptx) "
                   "an existing directory that gets a file per kernel"),
    llvm::cl::value_desc("OUT"), llvm::cl::init("-"),
    llvm::cl::cat(compileCategory));
static llvm::cl::opt<std::string>
    chip("chip", llvm::cl::desc("Target SM: sm_90 or sm_100a"),
         llvm::cl::init("sm_90"), llvm::cl::cat(compileCategory));
static llvm::cl::opt<Transport> transport(
    "transport", llvm::cl::desc("Transport of publishes whose op sets none"),
    llvm::cl::init(Transport::unicast),
    llvm::cl::values(clEnumValN(Transport::unicast, "unicast",
                                "one 16-byte store per peer"),
                     clEnumValN(Transport::multicast, "multicast",
                                "one multimem.st to the multicast address")),
    llvm::cl::cat(compileCategory));
static llvm::cl::opt<int64_t>
    timeoutNs("timeout-ns",
              llvm::cl::desc("Timeout in ns of polls whose op sets none"),
              llvm::cl::init(LamportDialect::kDefaultTimeoutNs),
              llvm::cl::cat(compileCategory));
static llvm::cl::opt<std::string>
    programName("program",
                llvm::cl::desc("The program to compile, where the file "
                               "holds more than one"),
                llvm::cl::cat(compileCategory));
static llvm::cl::opt<bool> protocolCheck(
    "protocol-check",
    llvm::cl::desc("Check the mailbox protocol (lamport-check-protocol) "
                   "before generating kernels; =false skips it"),
    llvm::cl::init(true), llvm::cl::cat(compileCategory));
static llvm::cl::opt<std::string> tacticTable(
    "tactic-table",
    llvm::cl::desc("Tactic table for gemm_publish ops without tactics "
                   "(default: the chip's, share/lamport/tactics)"),
    llvm::cl::value_desc("PATH"), llvm::cl::cat(compileCategory));
static llvm::cl::opt<bool> assembleCubins(
    "cubins",
    llvm::cl::desc("Assemble each kernel's cubin with ptxas; =false writes "
                   "the PTX alone, which the driver JIT-compiles when the "
                   "runtime loads the bundle (no CUDA toolkit needed)"),
    llvm::cl::init(true), llvm::cl::cat(compileCategory));
static llvm::cl::opt<bool> explainTactics(
    "lamport-explain-tactics",
    llvm::cl::desc("Remark, for each gemm_publish, where its tactics came "
                   "from and why"),
    llvm::cl::cat(compileCategory));
static llvm::cl::opt<BulkCopies> bulkCopies(
    "bulk-copies",
    llvm::cl::desc("How gemm_publish's bulk pipeline fills a stage that is "
                   "not contiguous"),
    llvm::cl::init(BulkCopies::automatic),
    llvm::cl::values(
        clEnumValN(BulkCopies::automatic, "auto",
                   "tensor copies through a tensor map of the weight where "
                   "the CTA streams rows under 2 KiB, else one copy a row "
                   "(default)"),
        clEnumValN(BulkCopies::rows, "rows",
                   "one bulk copy a row: no tensor_map parameter"),
        clEnumValN(BulkCopies::tensor, "tensor",
                   "tensor copies wherever a stage is not contiguous")),
    llvm::cl::cat(compileCategory));
static llvm::cl::opt<Emit> emit(
    "emit", llvm::cl::desc("What to write"), llvm::cl::init(Emit::Bundle),
    llvm::cl::values(
        clEnumValN(Emit::Mlir, "mlir",
                   "the module after the program-level passes: the program "
                   "as launches, its kernels as lamport primitives"),
        clEnumValN(Emit::Nvvm, "nvvm",
                   "the program's kernels lowered to the NVVM and LLVM "
                   "dialects, their NVVM target attached"),
        clEnumValN(Emit::Llvm, "llvm",
                   "the LLVM IR of every kernel (upstream's translation, "
                   "optimized for the target)"),
        clEnumValN(Emit::Ptx, "ptx", "the PTX of every kernel"),
        clEnumValN(Emit::Bundle, "bundle",
                   "the bundle directory: PTX, cubin and manifest.json")),
    llvm::cl::cat(compileCategory));
static llvm::cl::opt<bool>
    quiet("q", llvm::cl::desc("Print no summary line on success"),
          llvm::cl::cat(compileCategory));
static llvm::cl::opt<bool> verifyDiagnostics(
    "verify-diagnostics",
    llvm::cl::desc("Check that the diagnostics are the expected-* comments "
                   "of the input say, as mlir-opt does: exit 0 where they "
                   "are, whether or not the compilation failed"),
    llvm::cl::cat(compileCategory));
static llvm::cl::opt<bool>
    json("json",
         llvm::cl::desc("Print the summary as a JSON object on stdout "
                        "instead (needs -o other than -)"),
         llvm::cl::cat(compileCategory));

/// Reports a failure that has no location in the input.
static int fail(const Twine &message) {
  llvm::WithColor::error(llvm::errs(), "lamport-compile") << message << "\n";
  return 1;
}

/// Registers MLIR's general options and files every MLIR option under
/// mlirCategory, so --help shows them beside lamport-compile's own and
/// hides the LLVM backend's.
static void registerMLIROptions() {
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  registerDefaultTimingManagerCLOptions();
  for (auto &[name, option] : llvm::cl::getRegisteredOptions())
    if (name.starts_with("mlir-"))
      option->addCategory(mlirCategory);
  llvm::cl::HideUnrelatedOptions({&compileCategory, &mlirCategory});
  llvm::cl::SetVersionPrinter([](raw_ostream &os) {
    os << "lamport-compile (Lamport) " << LAMPORT_VERSION << "\n"
       << "  built with MLIR " << LLVM_VERSION_STRING << "\n";
  });
}

/// The name --emit gives to what it writes.
static StringRef describeEmit(Emit kind) {
  switch (kind) {
  case Emit::Mlir:
    return "MLIR";
  case Emit::Nvvm:
    return "NVVM";
  case Emit::Llvm:
    return "LLVM IR";
  case Emit::Ptx:
    return "PTX";
  case Emit::Bundle:
    return "bundle";
  }
  llvm_unreachable("unknown --emit");
}

/// The value of --emit as the command line spells it.
static StringRef emitArgument() {
  switch (emit) {
  case Emit::Mlir:
    return "mlir";
  case Emit::Nvvm:
    return "nvvm";
  case Emit::Llvm:
    return "llvm";
  case Emit::Ptx:
    return "ptx";
  case Emit::Bundle:
    return "bundle";
  }
  llvm_unreachable("unknown --emit");
}

namespace {
/// What was written, for the summary.
struct Written {
  std::string program;
  /// The kernels the program launches, in launch order.
  std::vector<std::string> kernels;
  /// Each file written and its bytes; a single "-" for stdout.
  std::vector<std::pair<std::string, uint64_t>> files;
};
} // namespace

/// Writes `print`'s text to -o (a file, or - for stdout).
static LogicalResult writeText(function_ref<void(raw_ostream &)> print,
                               Written &written) {
  std::string error;
  std::unique_ptr<llvm::ToolOutputFile> output =
      openOutputFile(outputPath, &error);
  if (!output)
    return failure(fail(error));
  uint64_t start = output->os().tell();
  print(output->os());
  written.files.push_back({outputPath, output->os().tell() - start});
  output->keep();
  return success();
}

/// Writes one text per kernel: into files <kernel>.<extension> where -o is a
/// directory, else one after the other, each after a `comment` line naming
/// it.
static LogicalResult
writeKernelTexts(const llvm::MapVector<StringRef, std::string> &texts,
                 StringRef extension, StringRef comment, Written &written) {
  if (outputPath == "-" || !llvm::sys::fs::is_directory(outputPath))
    return writeText(
        [&](raw_ostream &os) {
          for (auto &[name, text] : texts)
            os << comment << " kernel " << name << "\n" << text << "\n";
        },
        written);
  for (auto &[name, text] : texts) {
    SmallString<128> path(outputPath);
    llvm::sys::path::append(path, name + "." + extension);
    std::string error;
    std::unique_ptr<llvm::ToolOutputFile> output = openOutputFile(path, &error);
    if (!output)
      return failure(fail(error));
    output->os() << text;
    written.files.push_back({path.str().str(), text.size()});
    output->keep();
  }
  return success();
}

/// The kernels `program` launches, in launch order, each once.
static std::vector<std::string> getLaunchedKernels(func::FuncOp program) {
  llvm::SetVector<StringRef> names;
  program.walk([&](gpu::LaunchFuncOp launch) {
    names.insert(launch.getKernelModuleName().getValue());
  });
  return std::vector<std::string>(names.begin(), names.end());
}

/// Lists the files of the bundle writeBundle wrote for `kernels`.
static void listBundleFiles(Written &written) {
  SmallVector<std::string> names = {"manifest.json"};
  for (const std::string &kernel : written.kernels) {
    names.push_back(kernel + ".ptx");
    names.push_back(kernel + ".cubin");
  }
  for (const std::string &name : names) {
    SmallString<128> path(outputPath);
    llvm::sys::path::append(path, name);
    uint64_t size = 0;
    if (!llvm::sys::fs::file_size(path, size))
      written.files.push_back({path.str().str(), size});
  }
}

/// Prints the summary of a successful run: one line on stderr, or the JSON
/// object on stdout.
static void printSummary(const Written &written, double seconds) {
  uint64_t bytes = 0;
  for (const auto &file : written.files)
    bytes += file.second;
  if (json) {
    llvm::json::Array kernels, files;
    for (const std::string &kernel : written.kernels)
      kernels.push_back(kernel);
    for (const auto &[path, size] : written.files)
      files.push_back(llvm::json::Object{{"path", path}, {"bytes", size}});
    llvm::json::Object summary{{"program", written.program},
                               {"emit", emitArgument()},
                               {"output", outputPath.getValue()},
                               {"chip", chip.getValue()},
                               {"transport", stringifyTransport(transport)},
                               {"kernels", std::move(kernels)},
                               {"files", std::move(files)},
                               {"bytes", bytes},
                               {"seconds", seconds}};
    llvm::outs() << llvm::formatv("{0:2}",
                                  llvm::json::Value(std::move(summary)))
                 << "\n";
    return;
  }
  if (quiet)
    return;
  std::string where = outputPath == "-" ? std::string("stdout")
                                        : "'" + outputPath.getValue() + "'";
  llvm::errs() << "lamport-compile: " << written.program << ": "
               << written.kernels.size()
               << (written.kernels.size() == 1 ? " kernel, " : " kernels, ")
               << describeEmit(emit) << " to " << where << " (" << bytes
               << " bytes) in " << llvm::format("%.2f", seconds) << " s\n";
}

/// Checks the options that the option parser cannot.
static LogicalResult checkOptions() {
  if (!isSupportedChip(chip))
    return failure(fail(unsupportedChipMessage(chip)));
  if (timeoutNs <= 0)
    return failure(fail("--timeout-ns must be positive, got " +
                        std::to_string(timeoutNs)));
  if (emit == Emit::Bundle && outputPath == "-")
    return failure(fail("a bundle is a directory: name it with -o BUNDLE"));
  if (json && outputPath == "-")
    return failure(fail("--json prints the summary on stdout: write the "
                        "output elsewhere with -o"));
  return success();
}

/// Makes an error about the file as a whole (no op to point at) or about
/// no place in it the tool's: "lamport-compile: error: FILE: ...", its
/// notes at the ops they name. Every other diagnostic goes to `handler`.
static void registerFileDiagnostics(MLIRContext &context,
                                    SourceMgrDiagnosticHandler &handler) {
  context.getDiagEngine().registerHandler([&handler](Diagnostic &diag) {
    auto fileLoc = dyn_cast<FileLineColLoc>(diag.getLocation());
    bool wholeFile = fileLoc && fileLoc.getLine() == 0;
    if ((!wholeFile && !isa<UnknownLoc>(diag.getLocation())) ||
        diag.getSeverity() != DiagnosticSeverity::Error)
      return failure();
    std::string message = diag.str();
    fail((wholeFile ? fileLoc.getFilename().str() + ": " : std::string()) +
         StringRef(message).rtrim());
    for (Diagnostic &note : diag.getNotes())
      handler.emitDiagnostic(note.getLocation(), note.str(),
                             note.getSeverity());
    return success();
  });
}

/// Parses and verifies the input, which sourceMgr holds, keeping the
/// parser's record of definitions in `asmState`: it has the source names of
/// the program's arguments for the manifest.
static OwningOpRef<ModuleOp> parseInput(MLIRContext &context,
                                        llvm::SourceMgr &sourceMgr,
                                        AsmParserState &asmState,
                                        TimingScope &timing) {
  TimingScope parseTiming = timing.nest("Parser");
  // Verified below, after the launches' mailboxes are checked.
  ParserConfig config(&context, /*verifyAfterParse=*/false);
  Block parsed;
  if (failed(parseAsmSourceFile(sourceMgr, &parsed, config, &asmState)))
    return nullptr;
  OwningOpRef<ModuleOp> module =
      mlir::detail::constructContainerOpForParserIfNecessary<ModuleOp>(
          &parsed, &context,
          FileLineColLoc::get(&context, inputFilename, 0, 0));
  if (!module || failed(checkLaunchedMailboxes(*module)) ||
      failed(verify(*module)))
    return nullptr;
  return module;
}

/// Lowers `module`, whose program-level passes ran, as far as --emit asks
/// and writes the result.
static LogicalResult lowerAndWrite(ModuleOp module, func::FuncOp program,
                                   const CompileOptions &options,
                                   const ArgumentNames &names,
                                   TimingScope &timing, Written &written) {
  auto printModule = [&](raw_ostream &os) { module.print(os); };
  if (emit == Emit::Mlir)
    return writeText(printModule, written);

  if (emit == Emit::Nvvm || emit == Emit::Llvm) {
    if (failed(lowerProgramToNVVM(module, program, options, names)))
      return failure();
    if (emit == Emit::Nvvm)
      return writeText(printModule, written);
    TimingScope translateTiming = timing.nest("Translate to LLVM IR");
    FailureOr<llvm::MapVector<StringRef, std::string>> llvmIR =
        translateKernelsToLLVMIR(module);
    if (failed(llvmIR))
      return failure();
    translateTiming.stop();
    return writeKernelTexts(*llvmIR, "ll", ";", written);
  }

  FailureOr<CompiledProgram> compiled =
      lowerProgram(module, program, options, names);
  if (failed(compiled))
    return failure();
  if (emit == Emit::Ptx) {
    llvm::MapVector<StringRef, std::string> ptx;
    for (const PlanKernel &kernel : compiled->plan.kernels)
      ptx[kernel.name] = compiled->assembly.lookup(kernel.name);
    return writeKernelTexts(ptx, "ptx", "//", written);
  }

  TimingScope bundleTiming =
      timing.nest(assembleCubins ? "Write bundle (ptxas)" : "Write bundle");
  BundleTarget target{chip, stringifyTransport(transport).str()};
  if (llvm::Error error =
          writeBundle(outputPath, compiled->plan, compiled->assembly, target,
                      assembleCubins))
    return failure(fail(llvm::toString(std::move(error))));
  listBundleFiles(written);
  return success();
}

/// Compiles the input that `sourceMgr` holds as the options say and
/// writes the result; every failure has been reported.
static LogicalResult compile(MLIRContext &context, llvm::SourceMgr &sourceMgr,
                             TimingScope &timing, Written &written) {
  AsmParserState asmState;
  OwningOpRef<ModuleOp> module =
      parseInput(context, sourceMgr, asmState, timing);
  if (!module)
    return failure();

  CompileOptions options;
  options.chip = chip;
  options.transport = transport;
  options.timeoutNs = timeoutNs;
  options.program = programName;
  options.checkProtocol = protocolCheck;
  options.tacticTable = tacticTable;
  options.explainTactics = explainTactics;
  options.bulkCopies = bulkCopies;
  options.configurePassManager = [&](PassManager &pm) {
    if (failed(applyPassManagerCLOptions(pm)))
      return failure();
    pm.enableTiming(timing);
    return success();
  };
  FailureOr<func::FuncOp> program = generateProgramKernels(*module, options);
  if (failed(program))
    return failure();
  written.program = program->getSymName().str();
  written.kernels = getLaunchedKernels(*program);
  return lowerAndWrite(*module, *program, options, getArgumentNames(asmState),
                       timing, written);
}

int main(int argc, char **argv) {
  auto start = std::chrono::steady_clock::now();
  llvm::InitLLVM init(argc, argv);
  // The passes first: --mlir-print-ir-before and the like list them.
  registerCompilePasses();
  registerMLIROptions();
  llvm::cl::ParseCommandLineOptions(
      argc, argv, "Lamport compiler: a program to a bundle of kernels\n");
  if (failed(checkOptions()))
    return 1;

  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerAllToLLVMIRTranslations(registry);
  registry.insert<LamportDialect>();
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // Errors name the op at its source line; the generic form adds nothing,
  // unless --mlir-print-op-on-diagnostic asks for it.
  if (!llvm::cl::getRegisteredOptions()["mlir-print-op-on-diagnostic"]
           ->getNumOccurrences())
    context.printOpOnDiagnostic(false);

  DefaultTimingManager timingManager;
  applyDefaultTimingManagerCLOptions(timingManager);
  TimingScope timing = timingManager.getRootScope();

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
  if (verifyDiagnostics) {
    SourceMgrDiagnosticVerifierHandler verifier(sourceMgr, &context);
    Written written;
    (void)compile(context, sourceMgr, timing, written);
    return failed(verifier.verify()) ? 1 : 0;
  }
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  registerFileDiagnostics(context, diagnostics);
  Written written;
  if (failed(compile(context, sourceMgr, timing, written)))
    return 1;
  timing.stop();
  std::chrono::duration<double> seconds =
      std::chrono::steady_clock::now() - start;
  printSummary(written, seconds.count());
  return 0;
}
