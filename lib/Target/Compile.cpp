//===- Compile.cpp - Compile a Lamport program to a bundle ----------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// The order matters: the launch plan is read right after kernel generation,
// while the program still says which argument each kernel parameter takes;
// then the host code goes, because the lowering compiles gpu.modules only
// and a bundle runs no host code.
//
//===----------------------------------------------------------------------===//

#include "lamport/Target/Compile.h"

#include "lamport/Conversion/Pipelines.h"
#include "lamport/Dialect/Lamport/IR/Lamport.h"
#include "lamport/Dialect/Lamport/Transforms/Passes.h"
#include "lamport/Target/Bundle.h"
#include "lamport/Target/KernelRecord.h"

#include "mlir/AsmParser/AsmParserState.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/IR/Module.h"

using namespace mlir;
using namespace mlir::lamport;

ArgumentNames mlir::lamport::getArgumentNames(const AsmParserState &state) {
  ArgumentNames names;
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

void mlir::lamport::buildProgramPipeline(OpPassManager &pm,
                                         const CompileOptions &options) {
  if (options.checkProtocol)
    pm.addPass(createLamportCheckProtocol());
  addKernelGenerationPasses(pm, options.chip, options.tacticTable,
                            options.transport, options.explainTactics,
                            options.bulkCopies);
}

void mlir::lamport::registerCompilePasses() {
  registerLamportPasses();
  // The upstream passes of buildLamportToNVVMPipeline.
  registerConvertVectorToSCFPass();
  registerSCFToControlFlowPass();
  memref::registerExpandStridedMetadataPass();
  registerLowerAffinePass();
  registerConvertGpuOpsToNVVMOps();
  registerConvertNVVMToLLVMPass();
  LLVM::registerNVVMOptimizeForTargetPass();
  registerCanonicalizer();
  registerCSE();
  registerReconcileUnrealizedCastsPass();
  registerGpuNVVMAttachTarget();
  registerGpuModuleToBinaryPass();
}

/// Runs `pm` on `module` after the driver's configuration of it.
static LogicalResult runPipeline(PassManager &pm, ModuleOp module,
                                 const CompileOptions &options) {
  if (options.configurePassManager && failed(options.configurePassManager(pm)))
    return failure();
  return pm.run(module);
}

/// Sets the options of the kernels' lowering that `options` sets.
static void setLoweringOptions(LamportToNVVMPipelineOptions &lowerOptions,
                               const CompileOptions &options) {
  lowerOptions.chip = options.chip;
  lowerOptions.transport = options.transport;
  lowerOptions.timeoutNs = options.timeoutNs;
}

/// What differs between mailbox types `passed` and `expected`: "tp 4, not
/// 8; width 64, not 128".
static std::string describeMismatch(MailboxType passed, MailboxType expected) {
  std::string text;
  auto field = [&](StringRef name, int64_t got, int64_t want) {
    if (got != want)
      text += (text.empty() ? "" : "; ") + name.str() + " " +
              std::to_string(got) + ", not " + std::to_string(want);
  };
  field("tp", passed.getTp(), expected.getTp());
  field("capacity", passed.getCapacity(), expected.getCapacity());
  field("width", passed.getWidth(), expected.getWidth());
  return text;
}

LogicalResult mlir::lamport::checkLaunchedMailboxes(ModuleOp module) {
  bool broken = false;
  module.walk([&](gpu::LaunchFuncOp launch) {
    if (failed(verify(launch, /*verifyRecursively=*/false)))
      return;
    auto kernel = SymbolTable::lookupNearestSymbolFrom<gpu::GPUFuncOp>(
        launch, launch.getKernel());
    if (!kernel || failed(verify(kernel, /*verifyRecursively=*/false)))
      return;
    for (auto [i, operand] : llvm::enumerate(launch.getKernelOperands())) {
      auto passed = dyn_cast<MailboxType>(operand.getType());
      auto expected = i < kernel.getNumArguments()
                          ? dyn_cast<MailboxType>(kernel.getArgumentTypes()[i])
                          : MailboxType();
      if (!passed || !expected || passed == expected)
        continue;
      InFlightDiagnostic diag =
          launch.emitOpError()
          << "passes kernel '" << kernel.getName() << "' a mailbox of "
          << describeMismatch(passed, expected) << " as argument " << i
          << ": a kernel runs on the mailbox it was compiled for";
      diag.attachNote(kernel.getLoc())
          << "the kernel, whose parameter " << i << " is " << expected;
      broken = true;
    }
  });
  return failure(broken);
}

/// The program `options` names, or the only one of `module`. Errors about
/// the file as a whole are at `module`, with a note at each program.
static FailureOr<func::FuncOp> selectProgram(ModuleOp module,
                                             const CompileOptions &options) {
  SmallVector<func::FuncOp> programs = getPrograms(module);
  auto noteEach = [&](InFlightDiagnostic &diag, ArrayRef<func::FuncOp> list) {
    for (func::FuncOp program : list)
      diag.attachNote(program.getLoc())
          << "program '" << program.getSymName() << "'";
  };
  if (!options.program.empty()) {
    for (func::FuncOp program : programs)
      if (program.getSymName() == options.program)
        return program;
    InFlightDiagnostic diag = module.emitError()
                              << "no program named '" << options.program
                              << "' in this file";
    noteEach(diag, programs);
    return diag;
  }
  if (programs.empty())
    return module.emitError()
           << "no program in this file: a program is a func.func that "
              "applies program-level lamport ops (lamport.publish_rows, "
              "lamport.poll_rows, lamport.all_reduce, ...) to its arguments";
  if (programs.size() > 1) {
    InFlightDiagnostic diag = programs.front().emitOpError()
                              << "is one of " << programs.size()
                              << " programs in this file (";
    llvm::interleaveComma(programs, diag, [&](func::FuncOp program) {
      diag << program.getSymName();
    });
    diag << "): choose one by name (lamport-compile --program)";
    noteEach(diag, ArrayRef(programs).drop_front());
    return diag;
  }
  return programs.front();
}

FailureOr<func::FuncOp>
mlir::lamport::generateProgramKernels(ModuleOp module,
                                      const CompileOptions &options) {
  if (!isSupportedChip(options.chip))
    return module.emitError() << unsupportedChipMessage(options.chip);
  FailureOr<func::FuncOp> program = selectProgram(module, options);
  if (failed(program))
    return failure();
  PassManager pm(module.getContext());
  buildProgramPipeline(pm, options);
  if (failed(runPipeline(pm, module, options)))
    return failure();
  return program;
}

/// Leaves only the kernels `plan` launches: no host code reaches the
/// lowering, and no other program's kernels are compiled.
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

/// The longest any poll of each launched kernel waits before it traps (its
/// own `timeout_ns`, else the lowering's default), as the kernel's
/// `timeout_ns` attribute in the manifest: what a runtime bounds its waits
/// by, and how far apart the ranks may reach a step.
static void recordPollTimeouts(ModuleOp module, LaunchPlan &plan,
                               int64_t defaultNs) {
  for (PlanKernel &kernel : plan.kernels) {
    Operation *kernelModule = SymbolTable::lookupSymbolIn(module, kernel.name);
    if (!kernelModule)
      continue;
    std::optional<uint64_t> longest;
    kernelModule->walk([&](Operation *op) {
      std::optional<uint64_t> own;
      if (auto poll = dyn_cast<MailboxPollOp>(op))
        own = poll.getTimeoutNs();
      else if (auto poll = dyn_cast<MailboxPollAtOp>(op))
        own = poll.getTimeoutNs();
      else if (auto poll = dyn_cast<MailboxPollOwnedOp>(op))
        own = poll.getTimeoutNs();
      else
        return;
      longest = std::max(longest.value_or(0), own.value_or(defaultNs));
    });
    if (longest)
      kernel.attributes["timeout_ns"] = int64_t(*longest);
  }
}

FailureOr<LaunchPlan>
mlir::lamport::lowerProgramToNVVM(ModuleOp module, func::FuncOp program,
                                  const CompileOptions &options,
                                  const ArgumentNames &names) {
  auto programNames = names.find(&program.getBody().front());
  FailureOr<LaunchPlan> plan = readLaunchPlan(
      program, programNames == names.end()
                   ? ArrayRef<std::string>()
                   : ArrayRef<std::string>(programNames->second));
  if (failed(plan))
    return failure();
  keepKernelsOf(module, *plan);
  recordPollTimeouts(module, *plan, options.timeoutNs);
  // Each image says what it was compiled for; loaders check the manifest.
  addKernelRecords(module, *plan);
  PassManager pm(module.getContext());
  LamportToNVVMPipelineOptions lowerOptions;
  setLoweringOptions(lowerOptions, options);
  buildLamportKernelsToNVVMPipeline(pm, lowerOptions);
  if (failed(runPipeline(pm, module, options)))
    return failure();
  return plan;
}

FailureOr<llvm::MapVector<StringRef, std::string>>
mlir::lamport::translateKernelsToLLVMIR(ModuleOp module) {
  llvm::MapVector<StringRef, std::string> kernels;
  for (auto kernelModule : module.getOps<gpu::GPUModuleOp>()) {
    ArrayAttr targets = kernelModule.getTargetsAttr();
    auto target = targets && targets.size() == 1
                      ? dyn_cast<gpu::TargetAttrInterface>(targets[0])
                      : gpu::TargetAttrInterface();
    if (!target)
      return kernelModule.emitOpError()
             << "has no single target to translate for: run "
                "lowerProgramToNVVM first";
    std::string text;
    // The IR the target hands to its backend: what the PTX is made of.
    auto print = [&](llvm::Module &llvmModule) {
      llvm::raw_string_ostream os(text);
      llvmModule.print(os, /*AAW=*/nullptr);
    };
    gpu::TargetOptions targetOptions(
        /*toolkitPath=*/{}, /*librariesToLink=*/{}, /*cmdOptions=*/{},
        /*elfSection=*/{}, gpu::CompilationTarget::Offload,
        /*getSymbolTableCallback=*/{}, /*initialLlvmIRCallback=*/{},
        /*linkedLlvmIRCallback=*/{}, print);
    if (!target.serializeToObject(kernelModule, targetOptions))
      return kernelModule.emitOpError()
             << "could not be translated to LLVM IR for " << target;
    kernels[kernelModule.getName()] = std::move(text);
  }
  return kernels;
}

FailureOr<CompiledProgram>
mlir::lamport::lowerProgram(ModuleOp module, func::FuncOp program,
                            const CompileOptions &options,
                            const ArgumentNames &names) {
  CompiledProgram compiled;
  FailureOr<LaunchPlan> plan =
      lowerProgramToNVVM(module, program, options, names);
  if (failed(plan))
    return failure();
  compiled.plan = std::move(*plan);

  // The last step of buildLamportToNVVMPipeline: each gpu.module to a
  // gpu.binary holding its PTX.
  PassManager pm(module.getContext());
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = "isa";
  pm.addPass(createGpuModuleToBinaryPass(binary));
  if (failed(runPipeline(pm, module, options)))
    return failure();

  FailureOr<llvm::MapVector<StringRef, StringRef>> assembly =
      getKernelAssembly(module);
  if (failed(assembly))
    return failure();
  for (auto &[name, ptx] : *assembly)
    compiled.assembly[name] = ptx.str();
  return compiled;
}
