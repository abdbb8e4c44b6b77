//===- CompileFuzzer.cpp - Fuzz the compiler from source to bundle --------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// A libFuzzer target over what lamport-compile does with a source file: parse
// and verify it, print it, pick its program, generate its kernels, read the
// launch plan and build manifest.json, all in memory. It is built twice:
//   lamport-plan-fuzzer     stops at the manifest (fast: no LLVM codegen);
//   lamport-compile-fuzzer  also lowers the kernels to PTX
//                           (lamport-lower-to-nvvm), as --emit=ptx does.
// ptxas never runs: it is NVIDIA's tool, and takes longer per kernel than a
// whole input should.
//
// An input is MLIR source. Its first line may choose what runs instead of
// lamport-compile's defaults (the line is a comment, so the file still
// feeds lamport-opt and lamport-compile as it is):
//   // fuzz-options: chip=sm_100a transport=multicast timeout-ns=5 program=f
//   // fuzz-pipeline: builtin.module(lamport-lower-to-nvvm{chip=sm_90})
// The first takes lamport-compile's flags; the second runs a textual
// pipeline of Lamport's registered passes (no upstream pass is registered,
// so upstream passes run only inside ours), as lamport-opt and the C API's
// mlirLamportModuleRunPassPipeline do.
//
// Besides a crash or a sanitizer report, two answers are findings: a
// manifest the compiler would write that the runtime's reader
// (parseManifest) refuses, and a kernel whose ABI record differs from the
// one the runtime expects of that manifest (or, when lowering, whose PTX
// lacks its record). Everything lamport-compile accepts, lamport-run must
// load.
//
//===----------------------------------------------------------------------===//

#include "CompilerFuzzSupport.h"
#include "ManifestCheck.h"

#include "lamport/Conversion/Passes.h"
#include "lamport/Conversion/Pipelines.h"
#include "lamport/Dialect/Lamport/IR/Lamport.h"
#include "lamport/Dialect/Lamport/Transforms/Passes.h"
#include "lamport/Target/Bundle.h"
#include "lamport/Target/Compile.h"
#include "lamport/Target/KernelRecord.h"
#include "lamport/Target/SourceLimits.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/AsmParser/AsmParserState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <cstdlib>
#include <map>

using namespace mlir;
using namespace mlir::lamport;
using ::lamport::fuzz::finding;
using ::lamport::fuzz::InputContext;
using ::lamport::fuzz::verbose;

#ifndef LAMPORT_FUZZ_LOWER
#error "LAMPORT_FUZZ_LOWER must be 0 (plan only) or 1 (lower to PTX)"
#endif

/// Every dialect lamport-compile knows; built once, a context per input.
static DialectRegistry *registry;

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  registerLamportPasses();
  registerLamportConversionPasses();
  registerLamportPipelines();
  registry = new DialectRegistry;
  registerAllDialects(*registry);
  registerAllExtensions(*registry);
  registerAllToLLVMIRTranslations(*registry);
  registry->insert<LamportDialect>();
  return 0;
}

namespace {
/// What the first line of an input asks for.
struct Request {
  CompileOptions options;
  /// A textual pass pipeline to run instead of compiling.
  std::optional<std::string> pipeline;
  /// The options line named a value lamport-compile refuses up front.
  bool refused = false;
};
} // namespace

/// Reads the `// fuzz-options:` or `// fuzz-pipeline:` line of `source`.
static Request readRequest(StringRef source) {
  Request request;
  StringRef line = source.take_until([](char c) { return c == '\n'; });
  if (line.consume_front("// fuzz-pipeline:")) {
    request.pipeline = line.trim().str();
    return request;
  }
  if (!line.consume_front("// fuzz-options:"))
    return request;
  SmallVector<StringRef> words;
  line.split(words, ' ', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  for (StringRef word : words) {
    auto [key, value] = word.split('=');
    if (key == "chip") {
      request.options.chip = value.str();
    } else if (key == "transport") {
      std::optional<Transport> transport = symbolizeTransport(value);
      request.refused |= !transport;
      if (transport)
        request.options.transport = *transport;
    } else if (key == "timeout-ns") {
      // lamport-compile's flag is an int64 that must be positive.
      int64_t timeout = 0;
      request.refused |= value.getAsInteger(10, timeout) || timeout <= 0;
      request.options.timeoutNs = timeout;
    } else if (key == "program") {
      request.options.program = value.str();
    }
  }
  return request;
}

/// Parses and verifies `sourceMgr`'s buffer as lamport-compile does; null
/// on an error (reported to the context's handler). Like every entry point
/// that parses text, it first refuses nesting deeper than the recursive
/// parser survives (lamport/Target/SourceLimits.h).
static OwningOpRef<ModuleOp> parse(MLIRContext &context,
                                   llvm::SourceMgr &sourceMgr,
                                   AsmParserState &asmState) {
  const llvm::MemoryBuffer *buffer =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
  if (std::optional<std::string> error =
          checkNesting(buffer->getBuffer(), buffer->getBufferIdentifier())) {
    if (verbose())
      llvm::errs() << *error << "\n";
    return nullptr;
  }
  ParserConfig config(&context);
  Block parsed;
  if (failed(parseAsmSourceFile(sourceMgr, &parsed, config, &asmState)))
    return nullptr;
  OwningOpRef<ModuleOp> module =
      mlir::detail::constructContainerOpForParserIfNecessary<ModuleOp>(
          &parsed, &context, FileLineColLoc::get(&context, "fuzz.mlir", 0, 0));
  if (!module || failed(verify(*module)))
    return nullptr;
  return module;
}

/// Runs `pipeline` on `module` as mlirLamportModuleRunPassPipeline does.
static void runPipeline(ModuleOp module, StringRef pipeline) {
  // The pipeline parser recurses once per nested pipeline.
  if (checkNesting(pipeline, "pipeline"))
    return;
  std::string error;
  llvm::raw_string_ostream errorStream(error);
  FailureOr<OpPassManager> passes = parsePassPipeline(pipeline, errorStream);
  if (failed(passes))
    return;
  PassManager pm(module.getContext(), passes->getOpAnchorName());
  static_cast<OpPassManager &>(pm) = std::move(*passes);
  (void)pm.run(module);
}

/// Compiles `module` as lamport-compile does, up to the manifest (and the
/// PTX, when lowering), and checks that the runtime reads that manifest.
static void compile(ModuleOp module, const CompileOptions &options,
                    const AsmParserState &asmState) {
  FailureOr<func::FuncOp> program = generateProgramKernels(module, options);
  if (failed(program))
    return;
  ArgumentNames names = getArgumentNames(asmState);
  LaunchPlan plan;
#if LAMPORT_FUZZ_LOWER
  FailureOr<CompiledProgram> compiled =
      lowerProgram(module, *program, options, names);
  if (failed(compiled))
    return;
  plan = std::move(compiled->plan);
  for (const PlanKernel &kernel : plan.kernels) {
    auto ptx = compiled->assembly.find(kernel.name);
    if (ptx == compiled->assembly.end())
      finding("no PTX for kernel " + kernel.name + " of the launch plan");
    if (!StringRef(ptx->second).contains(" lamport_abi_" + kernel.name + "["))
      finding("the PTX of kernel " + kernel.name + " holds no ABI record");
  }
#else
  auto programNames = names.find(&program->getBody().front());
  FailureOr<LaunchPlan> read = readLaunchPlan(
      *program, programNames == names.end()
                    ? ArrayRef<std::string>()
                    : ArrayRef<std::string>(programNames->second));
  if (failed(read))
    return;
  plan = std::move(*read);
#endif
  BundleTarget target{options.chip,
                      stringifyTransport(options.transport).str()};
  std::string manifest;
  llvm::raw_string_ostream os(manifest);
  os << buildManifest(plan, target);
  os.flush();
  std::string error;
  std::map<std::string, std::string> records;
  if (!::lamport::fuzz::runtimeAcceptsManifest(manifest, error, records))
    finding("lamport-compile would write a manifest that lamport-run "
            "refuses:\n  " +
            error + "\nmanifest: " + manifest);
  // The record the compiler stores in each image is the one the runtime
  // expects of the manifest: a loader accepts every bundle as written.
  for (const PlanKernel &kernel : plan.kernels) {
    std::string record = getKernelRecord(plan, kernel);
    if (records[kernel.name] != record)
      finding("kernel " + kernel.name + ": the compiler records '" + record +
              "', the runtime expects '" + records[kernel.name] + "'");
  }
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  StringRef source(reinterpret_cast<const char *>(data), size);
  Request request = readRequest(source);
  if (request.refused)
    return 0;

  InputContext context(*registry);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(source, "fuzz.mlir"), llvm::SMLoc());
  AsmParserState asmState;
  OwningOpRef<ModuleOp> module = parse(*context.get(), sourceMgr, asmState);
  if (!module)
    return 0;

  // What lamport-opt prints back: the custom printers of every op.
  std::string printed;
  llvm::raw_string_ostream printStream(printed);
  module->print(printStream);

  if (request.pipeline)
    runPipeline(*module, *request.pipeline);
  else
    compile(*module, request.options, asmState);
  return 0;
}
