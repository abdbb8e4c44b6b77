//===- Pipelines.cpp - Lamport lowering pipelines -------------------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// The pipeline and the check of its target options. Upstream's NVVM target
// takes any chip and feature string: an empty chip crashes its verifier, an
// unknown one is a warning, and a PTX version below the chip's minimum is a
// fatal error of the NVPTX backend that ends the process (a Python
// interpreter included). So the options are checked before any pass sees
// them: against the NVPTX backend's processors and features, and against
// the oldest PTX ISA each chip takes.
//
//===----------------------------------------------------------------------===//

#include "lamport/Conversion/Pipelines.h"
#include "lamport/Conversion/LamportHostToLLVM/LamportHostToLLVM.h"
#include "lamport/Conversion/LamportToNVVM/LamportToNVVM.h"
#include "lamport/Dialect/Lamport/IR/Lamport.h"
#include "lamport/Dialect/Lamport/Transforms/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ConvertToLLVM/ToLLVMPass.h"
#include "mlir/Conversion/GPUCommon/GPUCommonPass.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/Transforms/OptimizeForNVVM.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Config/Targets.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"

#include <mutex>

using namespace mlir;
using namespace mlir::lamport;

/// Why the kernels need sm_90 or later: what every chip error says.
static constexpr const char *kChipRule =
    "the kernels need sm_90 or later (thread block clusters, mbarrier, "
    "st.async and multimem.st), e.g. sm_90, sm_90a, sm_100 or sm_100a";

/// The SM number of `sm_<N>[a|f]`, or nullopt for any other text.
static std::optional<unsigned> getSmNumber(StringRef chip) {
  if (!chip.consume_front("sm_"))
    return std::nullopt;
  if (chip.ends_with("a") || chip.ends_with("f"))
    chip = chip.drop_back();
  unsigned number;
  if (chip.empty() || !llvm::all_of(chip, llvm::isDigit) ||
      chip.getAsInteger(10, number))
    return std::nullopt;
  return number;
}

/// "9.0" for ptx90.
static std::string ptxText(unsigned version) {
  return std::to_string(version / 10) + "." + std::to_string(version % 10);
}

#if LLVM_HAS_NVPTX_TARGET
/// The NVPTX backend's subtarget for `chip` (which it must know), or null
/// when the backend is not registered.
static std::unique_ptr<llvm::MCSubtargetInfo>
getNVPTXSubtarget(StringRef chip) {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTargetMC();
  });
  llvm::Triple triple("nvptx64-nvidia-cuda");
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return nullptr;
  return std::unique_ptr<llvm::MCSubtargetInfo>(
      target->createMCSubtargetInfo(triple, chip, ""));
}

/// Checks that the NVPTX backend knows `chip` and every feature named in
/// `features`.
static std::optional<std::string> checkAgainstBackend(StringRef chip,
                                                      StringRef features) {
  // Any chip the backend knows makes a subtarget that lists them all.
  std::unique_ptr<llvm::MCSubtargetInfo> sti = getNVPTXSubtarget("sm_90");
  if (!sti)
    return std::nullopt;
  if (!sti->isCPUStringValid(chip)) {
    std::string known;
    for (const llvm::SubtargetSubTypeKV &cpu :
         sti->getAllProcessorDescriptions())
      if (std::optional<unsigned> sm = getSmNumber(cpu.Key); sm && *sm >= 90)
        known += (known.empty() ? "" : ", ") + std::string(cpu.Key);
    return ("chip '" + chip + "' is not a processor the NVPTX backend knows (" +
            known + ")")
        .str();
  }
  SmallVector<StringRef> parts;
  features.split(parts, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  for (StringRef part : parts) {
    StringRef name = part.trim().drop_front();
    if (!llvm::any_of(sti->getAllProcessorFeatures(),
                      [&](const llvm::SubtargetFeatureKV &feature) {
                        return name == feature.Key;
                      }))
      return ("feature '" + part.trim() +
              "' is not one the NVPTX backend knows")
          .str();
  }
  return std::nullopt;
}
#endif

/// The oldest PTX ISA (86 for 8.6) the NVPTX backend of LLVM 22 emits for
/// `chip`: a `+ptx<NN>` below it is a fatal error of the backend that ends
/// the process. Nullopt for a chip this table does not know.
static std::optional<unsigned> getMinimumPtx(StringRef chip) {
  return llvm::StringSwitch<std::optional<unsigned>>(chip)
      .Case("sm_90", 78)
      .Case("sm_90a", 80)
      .Cases({"sm_100", "sm_100a", "sm_101", "sm_101a"}, 86)
      .Cases({"sm_120", "sm_120a"}, 87)
      .Cases({"sm_100f", "sm_101f", "sm_103", "sm_103a", "sm_103f", "sm_120f",
              "sm_121", "sm_121a", "sm_121f"},
             88)
      .Cases({"sm_110", "sm_110a", "sm_110f"}, 90)
      .Default(std::nullopt);
}

std::optional<std::string>
mlir::lamport::checkNVVMTargetOptions(StringRef chip, StringRef features,
                                      unsigned optLevel) {
  std::optional<unsigned> sm = getSmNumber(chip);
  if (!sm || *sm < 90)
    return ("chip '" + chip +
            "' is not a target of this lowering: " + kChipRule)
        .str();
  if (optLevel > 3)
    return "opt-level " + std::to_string(optLevel) + " must be in 0..3";
  unsigned requested = 0;
  SmallVector<StringRef> parts;
  features.split(parts, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  for (StringRef part : parts) {
    StringRef name = part.trim();
    bool enable = name.consume_front("+");
    if (!enable && !name.consume_front("-"))
      return ("feature '" + part.trim() +
              "' must be +NAME or -NAME (e.g. +ptx86 for PTX ISA 8.6)")
          .str();
    unsigned version;
    if (enable && name.consume_front("ptx") && !name.getAsInteger(10, version))
      requested = std::max(requested, version);
  }
#if LLVM_HAS_NVPTX_TARGET
  if (std::optional<std::string> error = checkAgainstBackend(chip, features))
    return error;
#endif
  std::optional<unsigned> minimum = getMinimumPtx(chip);
  if (!minimum)
    return ("chip '" + chip +
            "' is newer than the chips whose oldest PTX ISA this lowering "
            "knows (sm_90 to sm_121f)")
        .str();
  if (requested && requested < *minimum)
    return ("PTX ISA " + ptxText(requested) + " (features '" + features +
            "') is older than chip '" + chip + "' needs: set features=+ptx" +
            std::to_string(*minimum) + " or later")
        .str();
  return std::nullopt;
}

namespace {
/// Makes each tensor map parameter of a lowered kernel (listed by
/// `lamport.tensor_map_args`) a byval grid constant: PTX then declares it
/// `.param .align 64 .b8 [128]` and the kernel addresses it in place
/// (cvta.param), as cp.async.bulk.tensor needs.
struct TensorMapParamsPass
    : public PassWrapper<TensorMapParamsPass, OperationPass<gpu::GPUModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TensorMapParamsPass)
  StringRef getArgument() const override { return "lamport-tensor-map-params"; }
  void runOnOperation() override {
    getOperation().walk([](LLVM::LLVMFuncOp func) {
      auto maps = func->getAttrOfType<DenseI64ArrayAttr>(
          LamportDialect::TensorMapArgsAttrHelper::getNameStr());
      if (!maps)
        return;
      Builder b(func.getContext());
      Type bytes = LLVM::LLVMArrayType::get(b.getI64Type(), 16);
      for (int64_t arg : maps.asArrayRef()) {
        func.setArgAttr(arg, LLVM::LLVMDialect::getByValAttrName(),
                        TypeAttr::get(bytes));
        func.setArgAttr(arg, NVVM::NVVMDialect::getGridConstantAttrName(),
                        b.getUnitAttr());
      }
    });
  }
};
} // namespace

void mlir::lamport::buildLamportKernelsToNVVMPipeline(
    OpPassManager &pm, const LamportToNVVMPipelineOptions &options) {
  // Inside every gpu.module: the primitives first (they leave scf loops and
  // index casts behind), then upstream's lowering of everything else.
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  ConvertLamportToNVVMPassOptions lamport;
  lamport.transport = options.transport;
  lamport.timeoutNs = options.timeoutNs;
  kernels.addPass(createConvertLamportToNVVMPass(lamport));
  kernels.addPass(createConvertVectorToSCFPass());
  kernels.addPass(createSCFToControlFlowPass());
  kernels.addPass(memref::createExpandStridedMetadataPass());
  kernels.addPass(createLowerAffinePass());
  ConvertGpuOpsToNVVMOpsOptions gpuToNVVM;
  // The manifest passes every buffer as an 8-byte pointer.
  gpuToNVVM.useBarePtrCallConv = true;
  gpuToNVVM.indexBitwidth = 64;
  kernels.addPass(createConvertGpuOpsToNVVMOps(gpuToNVVM));
  kernels.addPass(std::make_unique<TensorMapParamsPass>());
  // NVVM ops that LLVM has no intrinsic for (the mbarrier wait loop of
  // lamport.cluster.wait) become their PTX.
  kernels.addPass(createConvertNVVMToLLVMPass());
  kernels.addPass(LLVM::createNVVMOptimizeForTargetPass());
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
  kernels.addPass(createReconcileUnrealizedCastsPass());

  GpuNVVMAttachTargetOptions target;
  target.chip = options.chip;
  target.features = options.features;
  target.optLevel = options.optLevel;
  pm.addPass(createGpuNVVMAttachTarget(target));
}

void mlir::lamport::buildLamportToNVVMPipeline(
    OpPassManager &pm, const LamportToNVVMPipelineOptions &options) {
  buildLamportKernelsToNVVMPipeline(pm, options);
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = "isa";
  pm.addPass(createGpuModuleToBinaryPass(binary));
}

void mlir::lamport::addKernelGenerationPasses(OpPassManager &pm, StringRef chip,
                                              StringRef tacticTable,
                                              Transport transport,
                                              bool explainTactics,
                                              BulkCopies bulkCopies) {
  LamportSelectTacticsOptions select;
  select.chip = chip.str();
  select.tacticTable = tacticTable.str();
  select.transport = transport;
  select.explain = explainTactics;
  select.bulkCopies = bulkCopies;
  pm.addPass(createLamportSelectTactics(select));
  LamportGenerateKernelsOptions generate;
  generate.transport = transport;
  generate.bulkCopies = bulkCopies;
  pm.addPass(createLamportGenerateKernels(generate));
}

void mlir::lamport::buildLamportLowerProgramPipeline(
    OpPassManager &pm, const LamportToNVVMPipelineOptions &options) {
  addKernelGenerationPasses(pm, options.chip, options.tacticTable,
                            options.transport, options.explainTactics,
                            options.bulkCopies);
  buildLamportToNVVMPipeline(pm, options);
  pm.addPass(createLowerLamportHostPass());
}

void mlir::lamport::buildLamportToLLVMPipeline(
    OpPassManager &pm, const LamportToNVVMPipelineOptions &options) {
  buildLamportLowerProgramPipeline(pm, options);
  // Upstream's lowering of what the Lamport passes leave: launches and
  // binaries, the program's scf.if choices by M, then everything else.
  pm.addPass(createGpuToLLVMConversionPass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

/// Registers the pipeline `name` over `build`, with the options of
/// lamport-lower-to-nvvm checked first: PassPipelineRegistration's builder
/// cannot fail, and this one refuses target options the NVVM target would
/// crash on or ignore.
static void registerCheckedPipeline(
    StringRef name, StringRef description,
    void (*build)(OpPassManager &, const LamportToNVVMPipelineOptions &)) {
  std::string prefix = name.str();
  registerPassPipeline(
      name, description,
      [build, prefix](OpPassManager &pm, StringRef text,
                      function_ref<LogicalResult(const Twine &)> errorHandler) {
        LamportToNVVMPipelineOptions options;
        if (failed(options.parseFromString(text)))
          return failure();
        if (std::optional<std::string> error = checkNVVMTargetOptions(
                options.chip, options.features, options.optLevel))
          return errorHandler(prefix + ": " + *error);
        if (options.timeoutNs <= 0)
          return errorHandler(prefix + ": timeout-ns must be positive, got " +
                              Twine(options.timeoutNs));
        build(pm, options);
        return success();
      },
      [](function_ref<void(const mlir::detail::PassOptions &)> optHandler) {
        optHandler(LamportToNVVMPipelineOptions());
      });
}

void mlir::lamport::registerLamportPipelines() {
  registerCheckedPipeline(
      "lamport-lower-to-nvvm",
      "Lower gpu.module kernels made of lamport primitives and "
      "arith/scf/vector/memref/gpu ops to gpu.binary ops holding PTX",
      buildLamportToNVVMPipeline);
  registerCheckedPipeline(
      "lamport-lower-program",
      "Lower a lamport program to upstream dialects only: its kernels to "
      "gpu.binary ops holding PTX, its host functions to gpu.launch_func "
      "ops that take descriptors and streams from the runtime's C API "
      "(finish with gpu-to-llvm, convert-scf-to-cf, convert-to-llvm, "
      "reconcile-unrealized-casts)",
      buildLamportLowerProgramPipeline);
  registerCheckedPipeline(
      "lamport-lower-to-llvm",
      "lamport-lower-program followed by upstream's gpu-to-llvm, "
      "convert-scf-to-cf, convert-to-llvm and reconcile-unrealized-casts: "
      "the LLVM dialect that mlir-translate --mlir-to-llvmir takes",
      buildLamportToLLVMPipeline);
}
