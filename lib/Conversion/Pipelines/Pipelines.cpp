//===- Pipelines.cpp - Lamport lowering pipelines -------------------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#include "lamport/Conversion/Pipelines.h"
#include "lamport/Conversion/LamportHostToLLVM/LamportHostToLLVM.h"
#include "lamport/Conversion/LamportToNVVM/LamportToNVVM.h"
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
#include "mlir/Dialect/LLVMIR/Transforms/OptimizeForNVVM.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::lamport;

void mlir::lamport::buildLamportToNVVMPipeline(
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
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = "isa";
  pm.addPass(createGpuModuleToBinaryPass(binary));
}

void mlir::lamport::buildLamportLowerProgramPipeline(
    OpPassManager &pm, const LamportToNVVMPipelineOptions &options) {
  LamportGenerateKernelsOptions generate;
  generate.transport = options.transport;
  pm.addPass(createLamportGenerateKernels(generate));
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

void mlir::lamport::registerLamportPipelines() {
  PassPipelineRegistration<LamportToNVVMPipelineOptions>(
      "lamport-lower-to-nvvm",
      "Lower gpu.module kernels made of lamport primitives and "
      "arith/scf/vector/memref/gpu ops to gpu.binary ops holding PTX",
      buildLamportToNVVMPipeline);
  PassPipelineRegistration<LamportToNVVMPipelineOptions>(
      "lamport-lower-program",
      "Lower a lamport program to upstream dialects only: its kernels to "
      "gpu.binary ops holding PTX, its host functions to gpu.launch_func "
      "ops that take descriptors and streams from the runtime's C API "
      "(finish with gpu-to-llvm, convert-scf-to-cf, convert-to-llvm, "
      "reconcile-unrealized-casts)",
      buildLamportLowerProgramPipeline);
  PassPipelineRegistration<LamportToNVVMPipelineOptions>(
      "lamport-lower-to-llvm",
      "lamport-lower-program followed by upstream's gpu-to-llvm, "
      "convert-scf-to-cf, convert-to-llvm and reconcile-unrealized-casts: "
      "the LLVM dialect that mlir-translate --mlir-to-llvmir takes",
      buildLamportToLLVMPipeline);
}
