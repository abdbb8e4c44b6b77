//===- Passes.h - Lamport dialect transformation passes ---------*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_DIALECT_LAMPORT_TRANSFORMS_PASSES_H
#define LAMPORT_DIALECT_LAMPORT_TRANSFORMS_PASSES_H

#include "lamport/Dialect/Lamport/IR/Lamport.h"
#include "lamport/Dialect/Lamport/Transforms/BulkCopies.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::lamport {

#define GEN_PASS_DECL
#include "lamport/Dialect/Lamport/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "lamport/Dialect/Lamport/Transforms/Passes.h.inc"

} // namespace mlir::lamport

#endif // LAMPORT_DIALECT_LAMPORT_TRANSFORMS_PASSES_H
