//===- KernelGenerator.td - Kernel generators of program ops -*- tablegen -*-===//
//
// Part of the Lamport project.
//
// How lamport-generate-kernels turns a program-level op into kernels. Each
// kernel family attaches this interface to its op as an external model
// (registerKernelGenerators), so the dialect stays free of the generators
// and the pass finds them through the interface instead of a list of ops.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_DIALECT_LAMPORT_TRANSFORMS_KERNELGENERATOR_TD
#define LAMPORT_DIALECT_LAMPORT_TRANSFORMS_KERNELGENERATOR_TD

include "mlir/IR/OpBase.td"

def Lamport_KernelGeneratorOpInterface
    : OpInterface<"KernelGeneratorOpInterface"> {
  let cppNamespace = "::mlir::lamport";
  let description = [{
    A program-level op's kernel generator: creates the op's gpu.module(s) and
    gpu.func kernel(s), composed of lamport kernel-level ops and upstream
    ops, and replaces the op by their launches.
  }];
  let methods = [
    InterfaceMethod<[{
        Generates the op's kernels and replaces it by their launches; fails
        with a diagnostic on the op when it has no kernel.
      }],
      "::llvm::LogicalResult", "generateKernels",
      (ins "const ::mlir::lamport::KernelGenerationOptions &":$options)>,
  ];
}

#endif // LAMPORT_DIALECT_LAMPORT_TRANSFORMS_KERNELGENERATOR_TD
