//===- Pipelines.h - Lamport lowering pipelines -----------------*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// `lamport-lower-to-nvvm`: gpu.module kernels made of lamport primitives and
// arith/scf/vector/memref/gpu ops, down to a gpu.binary holding PTX.
// `lamport-lower-program` and `lamport-lower-to-llvm`: a whole program, its
// host side included, down to upstream dialects or to the LLVM dialect.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_CONVERSION_PIPELINES_H
#define LAMPORT_CONVERSION_PIPELINES_H

#include "lamport/Dialect/Lamport/IR/Lamport.h"
#include "lamport/Dialect/Lamport/Transforms/BulkCopies.h"

#include "mlir/Pass/PassOptions.h"

namespace mlir {
class OpPassManager;

namespace lamport {

/// Options of `lamport-lower-to-nvvm`.
struct LamportToNVVMPipelineOptions
    : public PassPipelineOptions<LamportToNVVMPipelineOptions> {
  PassOptions::Option<std::string> chip{
      *this, "chip", llvm::cl::desc("Target SM, e.g. sm_90 or sm_100a"),
      llvm::cl::init("sm_90")};
  /// PTX ISA 8.6 is the lowest that both sm_90 (multimem.st needs 8.1) and
  /// sm_100a (8.6) accept; ptxas 13.0 reads up to 9.0.
  PassOptions::Option<std::string> features{
      *this, "features", llvm::cl::desc("NVPTX target features (PTX ISA)"),
      llvm::cl::init("+ptx86")};
  PassOptions::Option<unsigned> optLevel{
      *this, "opt-level", llvm::cl::desc("LLVM optimization level (0-3)"),
      llvm::cl::init(3)};
  PassOptions::Option<Transport> transport{
      *this, "transport",
      llvm::cl::desc("Transport of publishes that set none"),
      llvm::cl::init(Transport::unicast),
      llvm::cl::values(clEnumValN(Transport::unicast, "unicast",
                                  "one 16-byte store per peer"),
                       clEnumValN(Transport::multicast, "multicast",
                                  "one multimem.st to the multicast address"))};
  PassOptions::Option<int64_t> timeoutNs{
      *this, "timeout-ns",
      llvm::cl::desc("Timeout in ns of polls that set none"),
      llvm::cl::init(LamportDialect::kDefaultTimeoutNs)};
  PassOptions::Option<std::string> tacticTable{
      *this, "tactic-table",
      llvm::cl::desc("Tactic table of lamport-select-tactics (default: the "
                     "chip's installed one)"),
      llvm::cl::init("")};
  PassOptions::Option<bool> explainTactics{
      *this, "explain-tactics",
      llvm::cl::desc("Remark where each gemm_publish's tactics came from"),
      llvm::cl::init(false)};
  PassOptions::Option<BulkCopies> bulkCopies{
      *this, "bulk-copies",
      llvm::cl::desc("How gemm_publish's bulk stages are filled"),
      llvm::cl::init(BulkCopies::automatic),
      llvm::cl::values(
          clEnumValN(BulkCopies::automatic, "auto",
                     "tensor copies where a CTA streams rows under 2 KiB "
                     "(default)"),
          clEnumValN(BulkCopies::rows, "rows",
                     "one bulk copy a row, no tensor map"),
          clEnumValN(BulkCopies::tensor, "tensor",
                     "tensor copies wherever a stage is not contiguous"))};
};

/// Lowers the body of every gpu.module of the module `pm` runs on to the
/// NVVM and LLVM dialects (what buildLamportToNVVMPipeline serializes) and
/// attaches the NVVM target of `options`: the stage lamport-compile
/// --emit=nvvm prints and --emit=llvm translates.
void buildLamportKernelsToNVVMPipeline(
    OpPassManager &pm, const LamportToNVVMPipelineOptions &options);

/// Lowers every gpu.module of the module `pm` runs on: the lamport
/// primitives (convert-lamport-to-nvvm), then upstream's GPU-to-NVVM
/// lowering with bare-pointer kernel memrefs, then nvvm-attach-target and
/// gpu-module-to-binary{format=isa}, so each gpu.module becomes a gpu.binary
/// holding PTX. Host code is not touched.
void buildLamportToNVVMPipeline(OpPassManager &pm,
                                const LamportToNVVMPipelineOptions &options);

/// Why `chip`, `features` and `optLevel` cannot target the NVVM lowering,
/// or nullopt where they can: `chip` must be sm_<N>[a|f] with N >= 90 (the
/// kernels use clusters, mbarrier, st.async and multimem.st) and a
/// processor the NVPTX backend knows; every feature one it knows; a
/// `+ptx<NN>` no older than the chip needs; `optLevel` at most 3.
std::optional<std::string>
checkNVVMTargetOptions(StringRef chip, StringRef features, unsigned optLevel);

/// lamport-select-tactics (for `chip`, from `tacticTable` or the chip's
/// table, remarking where each tactic came from if `explainTactics`) then
/// lamport-generate-kernels, both for `transport` (the GEMM's bulk stages
/// filled as `bulkCopies` says): how every pipeline turns a program's
/// lamport ops into kernels.
void addKernelGenerationPasses(OpPassManager &pm, StringRef chip,
                               StringRef tacticTable, Transport transport,
                               bool explainTactics,
                               BulkCopies bulkCopies = BulkCopies::automatic);

/// A whole program down to upstream dialects: lamport-select-tactics (the
/// options' chip, tactic table and transport), lamport-generate-kernels
/// (with the options' transport), the pipeline above, then
/// lamport-lower-host, so no lamport type or op is left and upstream's
/// gpu-to-llvm and convert-to-llvm finish the host side.
void buildLamportLowerProgramPipeline(
    OpPassManager &pm, const LamportToNVVMPipelineOptions &options);

/// buildLamportLowerProgramPipeline, then upstream's gpu-to-llvm,
/// convert-scf-to-cf, convert-to-llvm and reconcile-unrealized-casts: the
/// LLVM dialect that mlir-translate --mlir-to-llvmir takes.
void buildLamportToLLVMPipeline(OpPassManager &pm,
                                const LamportToNVVMPipelineOptions &options);

/// Registers `lamport-lower-to-nvvm`, `lamport-lower-program` and
/// `lamport-lower-to-llvm`; each refuses the target options that
/// checkNVVMTargetOptions refuses, and a timeout that is not positive.
void registerLamportPipelines();

} // namespace lamport
} // namespace mlir

#endif // LAMPORT_CONVERSION_PIPELINES_H
