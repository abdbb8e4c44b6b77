//===- KernelRecord.h - Each kernel's ABI record, in its image --*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// The compiler's side of the ABI record (lamport/Runtime/KernelRecord.h,
// docs/bundle.md): what each kernel of a launch plan was compiled for,
// stored in the kernel's gpu.module as a constant global that the lowering
// carries into the PTX and the cubin, where a loader finds it by name.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_TARGET_KERNELRECORD_H
#define LAMPORT_TARGET_KERNELRECORD_H

#include "lamport/Target/LaunchPlan.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace mlir::lamport {

/// The record text of `kernel` of `plan`: its parameters as the manifest
/// lamport-compile writes from `plan` describes them.
std::string getKernelRecord(const LaunchPlan &plan, const PlanKernel &kernel);

/// Adds to the gpu.module of each kernel of `plan` in `module` an
/// `llvm.mlir.global external constant` holding its record, named
/// kernelRecordSymbol(kernel). Run before the lowering.
void addKernelRecords(ModuleOp module, const LaunchPlan &plan);

} // namespace mlir::lamport

#endif // LAMPORT_TARGET_KERNELRECORD_H
