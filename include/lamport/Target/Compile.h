//===- Compile.h - Compile a Lamport program to a bundle --------*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// The driver behind lamport-compile (and any other front end, such as a C
// API): pick the program of a module, generate its kernels, read its launch
// plan, lower the kernels to PTX and hand back what writeBundle needs.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_TARGET_COMPILE_H
#define LAMPORT_TARGET_COMPILE_H

#include "lamport/Dialect/Lamport/IR/Lamport.h"
#include "lamport/Dialect/Lamport/Transforms/BulkCopies.h"
#include "lamport/Target/LaunchPlan.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringMap.h"

#include <functional>
#include <string>
#include <vector>

namespace mlir {
class AsmParserState;
class OpPassManager;
class PassManager;

namespace lamport {

/// What to compile a program for.
struct CompileOptions {
  /// `sm_90` or `sm_100a`.
  std::string chip = "sm_90";
  /// Transport of publishes whose op sets none.
  Transport transport = Transport::unicast;
  /// Timeout of polls whose op sets none.
  int64_t timeoutNs = LamportDialect::kDefaultTimeoutNs;
  /// The program to compile; empty where the module holds exactly one.
  std::string program;
  /// Whether lamport-check-protocol runs before the kernels are generated.
  bool checkProtocol = true;
  /// The tactic table lamport-select-tactics reads; empty for the chip's
  /// installed one (docs/tactics.md).
  std::string tacticTable;
  /// Whether lamport-select-tactics remarks where each op's tactics came
  /// from.
  bool explainTactics = false;
  /// How the GEMM's bulk stages are filled (lamport-generate-kernels
  /// `bulk-copies`).
  BulkCopies bulkCopies = BulkCopies::automatic;
  /// Called on every pass manager before it runs: where a driver adds IR
  /// printing, timing and statistics (mlir::applyPassManagerCLOptions). A
  /// failure stops the compilation; it must have reported why.
  std::function<LogicalResult(PassManager &)> configurePassManager;
};

/// Adds the program-level passes, in order: lamport-check-protocol (unless
/// options.checkProtocol is off), lamport-select-tactics, then
/// lamport-generate-kernels. Every
/// driver builds the pipeline here, so a pass that joins it joins here (and
/// in registerCompilePasses).
void buildProgramPipeline(OpPassManager &pm, const CompileOptions &options);

/// Registers the passes of the program pipeline and of the kernels'
/// lowering, so that a driver's --mlir-print-ir-before=PASS and the like can
/// name them.
void registerCompilePasses();

/// The source names of block arguments ("%rows" -> "rows"), by block.
using ArgumentNames = DenseMap<Block *, std::vector<std::string>>;

/// The argument names the parser recorded in `state`.
ArgumentNames getArgumentNames(const AsmParserState &state);

/// A program compiled to PTX: its launch plan and each kernel's assembly.
struct CompiledProgram {
  LaunchPlan plan;
  /// The PTX of each kernel, by kernel name.
  llvm::StringMap<std::string> assembly;
};

/// Checks that every gpu.launch_func of `module` passes each kernel mailbox
/// parameter a mailbox of its tp, capacity and width: an error at the
/// launch naming what differs, with a note at the kernel. Meant for a
/// module parsed without verification, before it is verified (upstream's
/// verifier says only that the types differ); launches and kernels that do
/// not verify on their own are left to the verifier.
LogicalResult checkLaunchedMailboxes(ModuleOp module);

/// Selects the program of `module` (options.program, or the only one) and
/// runs lamport-check-protocol (unless options.checkProtocol is off),
/// lamport-select-tactics and lamport-generate-kernels on `module`. Fails with
/// a diagnostic where there is no such program, the module breaks the protocol
/// or a kernel cannot be generated.
FailureOr<func::FuncOp> generateProgramKernels(ModuleOp module,
                                               const CompileOptions &options);

/// Reads the launch plan of `program` (after generateProgramKernels), drops
/// everything but the kernels it launches from `module` and lowers their
/// bodies to the NVVM and LLVM dialects, NVVM target attached
/// (buildLamportKernelsToNVVMPipeline): lamport-compile --emit=nvvm.
FailureOr<LaunchPlan> lowerProgramToNVVM(ModuleOp module, func::FuncOp program,
                                         const CompileOptions &options,
                                         const ArgumentNames &names);

/// The LLVM IR of every kernel of `module` after lowerProgramToNVVM, by
/// kernel name: upstream's translation of the gpu.module and the NVVM
/// target's optimization, the module its PTX is generated from. Fails with
/// a diagnostic on the gpu.module that cannot be translated.
FailureOr<llvm::MapVector<StringRef, std::string>>
translateKernelsToLLVMIR(ModuleOp module);

/// lowerProgramToNVVM, then each kernel to PTX (gpu-module-to-binary
/// format=isa): the plan and the assembly writeBundle takes.
FailureOr<CompiledProgram> lowerProgram(ModuleOp module, func::FuncOp program,
                                        const CompileOptions &options,
                                        const ArgumentNames &names);

} // namespace lamport
} // namespace mlir

#endif // LAMPORT_TARGET_COMPILE_H
