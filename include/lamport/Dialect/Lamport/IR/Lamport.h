//===- Lamport.h - Lamport dialect, types, attributes and ops ---*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// The one header a user of the lamport dialect includes.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_DIALECT_LAMPORT_IR_LAMPORT_H
#define LAMPORT_DIALECT_LAMPORT_IR_LAMPORT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "lamport/Dialect/Lamport/IR/LamportOpsDialect.h.inc"
#include "lamport/Dialect/Lamport/IR/ProgramOpInterface.h"

namespace mlir::OpTrait::lamport {
/// Marks a kernel-level op (ODS: Lamport_KernelLevel): one that lives in a
/// generated kernel and that convert-lamport-to-nvvm lowers.
template <typename ConcreteType>
class KernelLevel : public TraitBase<ConcreteType, KernelLevel> {};
} // namespace mlir::OpTrait::lamport

#include "lamport/Dialect/Lamport/IR/LamportEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "lamport/Dialect/Lamport/IR/LamportAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "lamport/Dialect/Lamport/IR/LamportOpsTypes.h.inc"

#define GET_OP_CLASSES
#include "lamport/Dialect/Lamport/IR/LamportOps.h.inc"

#endif // LAMPORT_DIALECT_LAMPORT_IR_LAMPORT_H
