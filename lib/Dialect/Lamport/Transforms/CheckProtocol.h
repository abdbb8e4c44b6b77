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

/// Reports the rules one check finds broken: each an error at the op that
/// breaks it with a note at the other op involved, and whether any was.
class ProtocolReport {
public:
  /// An error at `op`, with a note that says `note` at `other` where there
  /// is one; the caller streams the error's text into the result.
  InFlightDiagnostic error(Operation *op,
                           std::optional<Location> other = std::nullopt,
                           const Twine &note = {});
  /// The same at `loc`: a rule broken by a value that no op uses.
  InFlightDiagnostic error(Location loc,
                           std::optional<Location> other = std::nullopt,
                           const Twine &note = {});

  /// Failure once any rule was reported broken.
  LogicalResult result() const { return failure(broken); }

private:
  InFlightDiagnostic attach(InFlightDiagnostic diag,
                            std::optional<Location> other, const Twine &note);

  bool broken = false;
};

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
