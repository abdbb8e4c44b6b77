//===- Compiler.cpp - C API: parse, lower and compile lamport IR ----------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// The parser, the pass manager, lamport-compile's driver
// (lamport/Target/Compile.h) and bundle writer behind C entry points. Errors
// are collected from the context's diagnostics and handed to the caller as
// one text.
//
//===----------------------------------------------------------------------===//

#include "lamport-c/Compiler.h"

#include "lamport/Dialect/Lamport/IR/Lamport.h"
#include "lamport/Target/Bundle.h"
#include "lamport/Target/Compile.h"
#include "lamport/Target/SourceLimits.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/AsmParser/AsmParserState.h"
#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/SourceMgr.h"

#include <string>

using namespace mlir;
using namespace mlir::lamport;

namespace {
/// Collects the errors of one call and hands them to the caller as one text.
class ErrorReport {
public:
  ErrorReport(MlirStringCallback callback, void *userData)
      : callback(callback), userData(userData) {}

  /// Appends one line.
  void add(const Twine &line) {
    if (!text.empty() && text.back() != '\n')
      text += '\n';
    text += line.str();
  }

  /// The stream diagnostics are printed to (one or more lines each).
  raw_ostream &stream() { return os; }

  /// Returns success after handing what was collected, the warnings and
  /// remarks of a call that succeeded, to `remarkCallback` where there is
  /// any.
  MlirLogicalResult succeed(MlirStringCallback remarkCallback,
                            void *remarkUserData) {
    StringRef message = collected();
    if (remarkCallback && !message.empty())
      remarkCallback(wrap(message), remarkUserData);
    return mlirLogicalResultSuccess();
  }

  /// Returns failure after handing the text to the callback.
  MlirLogicalResult fail() {
    StringRef message = collected();
    if (message.empty())
      message = "lamport: failed without a diagnostic";
    if (callback)
      callback(wrap(message), userData);
    return mlirLogicalResultFailure();
  }

private:
  /// Everything added or printed so far, without trailing blank lines.
  StringRef collected() {
    os.flush();
    return StringRef(text).rtrim();
  }

  MlirStringCallback callback;
  void *userData;
  std::string text;
  llvm::raw_string_ostream os{text};
};
} // namespace

/// `ref` as a std::string (MlirStringRef need not be null-terminated).
static std::string toString(MlirStringRef ref) {
  return std::string(ref.data ? ref.data : "", ref.length);
}

/// `location: severity: message`, the form of mlir-opt's messages; a
/// diagnostic about a whole file (line 0) names the file alone, never
/// `file:0:0`.
static std::string formatDiagnostic(const Diagnostic &diagnostic) {
  StringRef severity = "error";
  switch (diagnostic.getSeverity()) {
  case DiagnosticSeverity::Note:
    severity = "note";
    break;
  case DiagnosticSeverity::Warning:
    severity = "warning";
    break;
  case DiagnosticSeverity::Remark:
    severity = "remark";
    break;
  case DiagnosticSeverity::Error:
    break;
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  if (auto file = diagnostic.getLocation()->findInstanceOf<FileLineColLoc>()) {
    os << file.getFilename().getValue();
    if (file.getLine() != 0)
      os << ':' << file.getLine() << ':' << file.getColumn();
  } else
    os << diagnostic.getLocation();
  os << ": " << severity << ": " << diagnostic;
  return text;
}

namespace {
/// Leaves out the generic form of the failing op that diagnostics carry by
/// default, for the duration of one call: an error names its op at its
/// source line, as lamport-compile's do.
class QuietOpsOnDiagnostic {
public:
  explicit QuietOpsOnDiagnostic(MLIRContext *context)
      : context(context), previous(context->shouldPrintOpOnDiagnostic()) {
    context->printOpOnDiagnostic(false);
  }
  ~QuietOpsOnDiagnostic() { context->printOpOnDiagnostic(previous); }

private:
  MLIRContext *context;
  bool previous;
};
} // namespace

/// Routes the diagnostics of `context` into `report` while it lives.
static ScopedDiagnosticHandler collectDiagnostics(MLIRContext *context,
                                                  ErrorReport &report) {
  // Each diagnostic as `location: error: message`, its notes after it.
  return ScopedDiagnosticHandler(context, [&report](Diagnostic &diagnostic) {
    report.add(formatDiagnostic(diagnostic));
    for (const Diagnostic &note : diagnostic.getNotes())
      report.add(formatDiagnostic(note));
    return success();
  });
}

/// Parses and verifies the buffer of `sourceMgr`; records the arguments'
/// source names in `names`. Diagnostics go to the caller's handler; input
/// nested too deep for the parser (lamport/Target/SourceLimits.h) is
/// refused in `report` before it is parsed.
static OwningOpRef<ModuleOp>
parseSource(MLIRContext *context, llvm::SourceMgr &sourceMgr,
            StringRef sourceName, ArgumentNames *names, ErrorReport &report) {
  // The parser's record of definitions keeps the source names of the
  // program's arguments for the manifest.
  const llvm::MemoryBuffer *buffer =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
  if (std::optional<std::string> error =
          checkNesting(buffer->getBuffer(), buffer->getBufferIdentifier())) {
    report.add(*error);
    return nullptr;
  }
  AsmParserState asmState;
  ParserConfig config(context);
  Block parsed;
  if (failed(parseAsmSourceFile(sourceMgr, &parsed, config, &asmState)))
    return nullptr;
  OwningOpRef<ModuleOp> module =
      mlir::detail::constructContainerOpForParserIfNecessary<ModuleOp>(
          &parsed, context, FileLineColLoc::get(context, sourceName, 0, 0));
  if (!module || failed(verify(*module)))
    return nullptr;
  if (names)
    *names = getArgumentNames(asmState);
  return module;
}

/// A source buffer named `sourceName` holding a copy of `source`, whose
/// diagnostics print the source line and a caret into `report`.
struct SourceDiagnostics {
  SourceDiagnostics(MLIRContext *context, MlirStringRef source,
                    MlirStringRef sourceName, ErrorReport &report)
      : handler(addSource(sourceMgr, source, sourceName), context,
                report.stream()),
        wholeFile(context, [this, &report](Diagnostic &diagnostic) {
          // About the whole file: named alone, with no source line to quote.
          auto file = dyn_cast<FileLineColLoc>(diagnostic.getLocation());
          if (!file || file.getLine() != 0)
            return failure();
          report.stream() << formatDiagnostic(diagnostic) << "\n";
          for (Diagnostic &note : diagnostic.getNotes())
            handler.emitDiagnostic(note.getLocation(), note.str(),
                                   note.getSeverity());
          return success();
        }) {}

  static llvm::SourceMgr &addSource(llvm::SourceMgr &sourceMgr,
                                    MlirStringRef source,
                                    MlirStringRef sourceName) {
    sourceMgr.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(
                                     unwrap(source), unwrap(sourceName)),
                                 llvm::SMLoc());
    return sourceMgr;
  }

  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler;
  /// Registered after `handler`, so it sees each diagnostic first.
  ScopedDiagnosticHandler wholeFile;
};

/// Compiles `module`; diagnostics reach whatever handler the caller set up,
/// other errors go to `report`.
static LogicalResult compile(ModuleOp module, const ArgumentNames &names,
                             StringRef directory,
                             const MlirLamportCompileOptions &options,
                             ErrorReport &report) {
  std::string chip = toString(options.chip);
  std::string transportName = toString(options.transport);
  if (!isSupportedChip(chip)) {
    report.add("error: " + unsupportedChipMessage(chip));
    return failure();
  }
  std::optional<Transport> transport = symbolizeTransport(transportName);
  if (!transport) {
    report.add("error: unknown transport '" + transportName +
               "': publishes use unicast or multicast");
    return failure();
  }
  if (options.timeoutNs <= 0) {
    report.add("error: the timeout must be positive, got " +
               Twine(options.timeoutNs) + " ns");
    return failure();
  }
  if (directory.empty()) {
    report.add("error: a bundle is a directory: name it");
    return failure();
  }
  std::string bulkCopiesName = toString(options.bulkCopies);
  std::optional<BulkCopies> bulkCopies = symbolizeBulkCopies(bulkCopiesName);
  if (!bulkCopies) {
    report.add("error: unknown bulk copies '" + bulkCopiesName +
               "': a bulk stage is filled by auto, rows or tensor copies");
    return failure();
  }

  CompileOptions compileOptions;
  compileOptions.chip = chip;
  compileOptions.transport = *transport;
  compileOptions.timeoutNs = options.timeoutNs;
  compileOptions.program = toString(options.program);
  compileOptions.tacticTable = toString(options.tacticTable);
  compileOptions.bulkCopies = *bulkCopies;
  compileOptions.checkProtocol = options.checkProtocol;
  compileOptions.explainTactics = options.explainTactics;
  FailureOr<func::FuncOp> program =
      generateProgramKernels(module, compileOptions);
  if (failed(program))
    return failure();
  FailureOr<CompiledProgram> compiled =
      lowerProgram(module, *program, compileOptions, names);
  if (failed(compiled))
    return failure();
  BundleTarget target{chip, stringifyTransport(*transport).str()};
  if (llvm::Error error =
          writeBundle(directory, compiled->plan, compiled->assembly, target,
                      options.assembleCubins)) {
    report.add("error: " + llvm::toString(std::move(error)));
    return failure();
  }
  return success();
}

/// The names that block arguments carry as name locations (`loc("attn")`,
/// which the Python builder gives a program's arguments), per block whose
/// arguments have any; the others are left to be named `arg<i>`.
static ArgumentNames argumentNamesFromLocations(ModuleOp module) {
  ArgumentNames names;
  module.walk([&](func::FuncOp func) {
    if (func.isExternal())
      return;
    Block &entry = func.getBody().front();
    std::vector<std::string> blockNames;
    bool any = false;
    for (BlockArgument argument : entry.getArguments()) {
      auto name = dyn_cast<NameLoc>(argument.getLoc());
      any |= bool(name);
      blockNames.push_back(name ? name.getName().str()
                                : "arg" +
                                      std::to_string(argument.getArgNumber()));
    }
    if (any)
      names[&entry] = std::move(blockNames);
  });
  return names;
}

MlirLamportCompileOptions mlirLamportCompileOptionsGetDefault(void) {
  MlirLamportCompileOptions options;
  options.chip = mlirStringRefCreateFromCString("sm_90");
  options.transport = mlirStringRefCreateFromCString("unicast");
  options.timeoutNs = LamportDialect::kDefaultTimeoutNs;
  options.program = mlirStringRefCreate(nullptr, 0);
  options.tacticTable = mlirStringRefCreate(nullptr, 0);
  options.bulkCopies = mlirStringRefCreateFromCString(
      stringifyBulkCopies(BulkCopies::automatic).data());
  options.checkProtocol = true;
  options.explainTactics = false;
  options.assembleCubins = true;
  options.remarkCallback = nullptr;
  options.remarkUserData = nullptr;
  return options;
}

MlirLogicalResult
mlirLamportCompileModuleToBundle(MlirModule module, MlirStringRef directory,
                                 MlirLamportCompileOptions options,
                                 MlirStringCallback errorCallback,
                                 void *userData) {
  ErrorReport report(errorCallback, userData);
  ModuleOp moduleOp = unwrap(module);
  QuietOpsOnDiagnostic quiet(moduleOp.getContext());
  ScopedDiagnosticHandler handler =
      collectDiagnostics(moduleOp.getContext(), report);
  if (failed(compile(moduleOp, argumentNamesFromLocations(moduleOp),
                     unwrap(directory), options, report)))
    return report.fail();
  return report.succeed(options.remarkCallback, options.remarkUserData);
}

MlirLogicalResult mlirLamportCompileSourceToBundle(
    MlirContext context, MlirStringRef source, MlirStringRef sourceName,
    MlirStringRef directory, MlirLamportCompileOptions options,
    MlirStringCallback errorCallback, void *userData) {
  ErrorReport report(errorCallback, userData);
  MLIRContext *ctx = unwrap(context);
  QuietOpsOnDiagnostic quiet(ctx);
  // The source stays quoted in every error, the compiler's included.
  SourceDiagnostics diagnostics(ctx, source, sourceName, report);
  ArgumentNames names;
  OwningOpRef<ModuleOp> module = parseSource(
      ctx, diagnostics.sourceMgr, unwrap(sourceName), &names, report);
  if (!module)
    return report.fail();
  if (failed(compile(*module, names, unwrap(directory), options, report)))
    return report.fail();
  return report.succeed(options.remarkCallback, options.remarkUserData);
}

MlirModule mlirLamportModuleCreateParse(MlirContext context,
                                        MlirStringRef source,
                                        MlirStringRef sourceName,
                                        MlirStringCallback errorCallback,
                                        void *userData) {
  ErrorReport report(errorCallback, userData);
  MLIRContext *ctx = unwrap(context);
  QuietOpsOnDiagnostic quiet(ctx);
  SourceDiagnostics diagnostics(ctx, source, sourceName, report);
  OwningOpRef<ModuleOp> module = parseSource(
      ctx, diagnostics.sourceMgr, unwrap(sourceName), nullptr, report);
  if (!module) {
    report.fail();
    return MlirModule{nullptr};
  }
  return wrap(module.release());
}

MlirLogicalResult
mlirLamportModuleRunPassPipeline(MlirModule module, MlirStringRef pipeline,
                                 MlirStringCallback errorCallback,
                                 void *userData) {
  return mlirLamportModuleRunPassPipelineWithRemarks(
      module, pipeline, errorCallback, userData, nullptr, nullptr);
}

MlirLogicalResult mlirLamportModuleRunPassPipelineWithRemarks(
    MlirModule module, MlirStringRef pipeline, MlirStringCallback errorCallback,
    void *userData, MlirStringCallback remarkCallback, void *remarkUserData) {
  ErrorReport report(errorCallback, userData);
  ModuleOp moduleOp = unwrap(module);
  QuietOpsOnDiagnostic quiet(moduleOp.getContext());
  ScopedDiagnosticHandler handler =
      collectDiagnostics(moduleOp.getContext(), report);
  // The pipeline parser recurses once per nested pipeline, as the IR
  // parser does per nesting level.
  if (std::optional<std::string> error =
          checkNesting(unwrap(pipeline), "pipeline")) {
    report.add(*error);
    return report.fail();
  }
  std::string pipelineError;
  llvm::raw_string_ostream pipelineErrorStream(pipelineError);
  FailureOr<OpPassManager> passes =
      parsePassPipeline(unwrap(pipeline), pipelineErrorStream);
  if (failed(passes)) {
    report.add(StringRef(pipelineError).rtrim());
    return report.fail();
  }
  PassManager pm(moduleOp.getContext(), passes->getOpAnchorName());
  static_cast<OpPassManager &>(pm) = std::move(*passes);
  if (failed(pm.run(moduleOp)))
    return report.fail();
  return report.succeed(remarkCallback, remarkUserData);
}
