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
#include "lamport/Dialect/Lamport/Transforms/Passes.h"
#include "lamport/Target/Bundle.h"
#include "lamport/Target/KernelRecord.h"

#include "mlir/AsmParser/AsmParserState.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringSet.h"

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

/// The program `options` names, or the only one of `module`.
static FailureOr<func::FuncOp> selectProgram(ModuleOp module,
                                             const CompileOptions &options) {
  SmallVector<func::FuncOp> programs = getPrograms(module);
  if (!options.program.empty()) {
    for (func::FuncOp program : programs)
      if (program.getSymName() == options.program)
        return program;
    return module.emitError()
           << "no program named '" << options.program << "' in this file";
  }
  if (programs.empty())
    return module.emitError()
           << "no program in this file: a program is a func.func that "
              "applies program-level lamport ops (lamport.publish_rows, "
              "lamport.poll_rows, lamport.all_reduce, ...) to its arguments";
  if (programs.size() > 1) {
    InFlightDiagnostic diag = module.emitError()
                              << programs.size() << " programs in this file (";
    llvm::interleaveComma(programs, diag, [&](func::FuncOp program) {
      diag << program.getSymName();
    });
    diag << "): choose one by name (lamport-compile --program)";
    return diag;
  }
  return programs.front();
}

FailureOr<func::FuncOp>
mlir::lamport::generateProgramKernels(ModuleOp module,
                                      const CompileOptions &options) {
  if (!isSupportedChip(options.chip))
    return module.emitError() << "unknown chip '" << options.chip
                              << "': Lamport targets sm_90 and sm_100a";
  FailureOr<func::FuncOp> program = selectProgram(module, options);
  if (failed(program))
    return failure();
  PassManager pm(module.getContext());
  if (options.checkProtocol)
    pm.addPass(createLamportCheckProtocol());
  LamportGenerateKernelsOptions generateOptions;
  generateOptions.transport = options.transport;
  pm.addPass(createLamportGenerateKernels(generateOptions));
  if (failed(pm.run(module)))
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

FailureOr<CompiledProgram>
mlir::lamport::lowerProgram(ModuleOp module, func::FuncOp program,
                            const CompileOptions &options,
                            const ArgumentNames &names) {
  CompiledProgram compiled;
  auto programNames = names.find(&program.getBody().front());
  FailureOr<LaunchPlan> plan = readLaunchPlan(
      program, programNames == names.end()
                   ? ArrayRef<std::string>()
                   : ArrayRef<std::string>(programNames->second));
  if (failed(plan))
    return failure();
  compiled.plan = std::move(*plan);

  keepKernelsOf(module, compiled.plan);
  // Each image says what it was compiled for; loaders check the manifest.
  addKernelRecords(module, compiled.plan);
  PassManager pm(module.getContext());
  LamportToNVVMPipelineOptions lowerOptions;
  lowerOptions.chip = options.chip;
  lowerOptions.transport = options.transport;
  lowerOptions.timeoutNs = options.timeoutNs;
  buildLamportToNVVMPipeline(pm, lowerOptions);
  if (failed(pm.run(module)))
    return failure();

  FailureOr<llvm::MapVector<StringRef, StringRef>> assembly =
      getKernelAssembly(module);
  if (failed(assembly))
    return failure();
  for (auto &[name, ptx] : *assembly)
    compiled.assembly[name] = ptx.str();
  return compiled;
}
