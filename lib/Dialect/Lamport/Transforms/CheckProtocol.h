//===- CheckProtocol.h - The protocol check's two halves --------*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// lamport-check-protocol checks programs (CheckProtocol.cpp) and kernels
// (CheckKernelProtocol.cpp); the rules are listed in Passes.td. Each check
// reports every rule it finds broken, with a note at the other op involved,
// and says whether any was.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_LIB_DIALECT_LAMPORT_TRANSFORMS_CHECKPROTOCOL_H
#define LAMPORT_LIB_DIALECT_LAMPORT_TRANSFORMS_CHECKPROTOCOL_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mlir::lamport {

/// Whether `program` applies program-level ops or launches kernels: a
/// decode step the program rules apply to.
bool isProtocolProgram(func::FuncOp program);

/// Checks the program rules (a step's publishes and consumers, one TP
/// group) on `program`; failure once any is broken, after reporting all.
LogicalResult checkProgramProtocol(func::FuncOp program);

/// Checks the kernel rules (stages that rotate, re-arms after reads) on the
/// body of `kernel`; failure once any is broken, after reporting all.
LogicalResult checkKernelProtocol(gpu::GPUFuncOp kernel);

/// Whether `a` and `b` hold the same value whenever both are computed, as
/// far as the IR shows: one SSA value, equal constants, or one
/// side-effect-free op applied to such operands (up to a few levels).
bool isSameValue(Value a, Value b);

} // namespace mlir::lamport

#endif // LAMPORT_LIB_DIALECT_LAMPORT_TRANSFORMS_CHECKPROTOCOL_H
