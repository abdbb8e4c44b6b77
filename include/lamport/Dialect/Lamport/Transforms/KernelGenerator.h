//===- KernelGenerator.h - Kernel generators of program ops -----*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// KernelGeneratorOpInterface (KernelGenerator.td), the options every
// generator reads, and the registration of the generators as external
// models of the program-level ops.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_DIALECT_LAMPORT_TRANSFORMS_KERNELGENERATOR_H
#define LAMPORT_DIALECT_LAMPORT_TRANSFORMS_KERNELGENERATOR_H

#include "lamport/Dialect/Lamport/IR/Lamport.h"
#include "lamport/Dialect/Lamport/Transforms/BulkCopies.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/OpDefinition.h"

namespace mlir::lamport {

/// Options of lamport-generate-kernels the kernel generators read.
struct KernelGenerationOptions {
  /// Transport of publishes whose op sets none.
  Transport transport = Transport::unicast;
  /// Most threads per CTA (a multiple of 32).
  unsigned threadsPerCta = 128;
  /// Most CTAs per grid.
  unsigned maxCtas = 128;
  BulkCopies bulkCopies = BulkCopies::automatic;
};

/// Attaches every kernel generator to its program-level op (once the
/// lamport dialect is loaded).
void registerKernelGenerators(DialectRegistry &registry);

} // namespace mlir::lamport

#include "lamport/Dialect/Lamport/Transforms/KernelGenerator.h.inc"

#endif // LAMPORT_DIALECT_LAMPORT_TRANSFORMS_KERNELGENERATOR_H
