//===- LamportOps.td - All Lamport dialect ops -------------*- tablegen -*-===//
//
// Part of the Lamport project.
//
// The single entry point add_mlir_dialect generates from; each op family
// lives in its own file.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_DIALECT_LAMPORT_IR_LAMPORTOPS_TD
#define LAMPORT_DIALECT_LAMPORT_IR_LAMPORTOPS_TD

include "lamport/Dialect/Lamport/IR/LamportDialect.td"
include "lamport/Dialect/Lamport/IR/LamportTypes.td"
include "lamport/Dialect/Lamport/IR/LamportAttrs.td"
include "lamport/Dialect/Lamport/IR/LamportInterfaces.td"
include "lamport/Dialect/Lamport/IR/MailboxOps.td"
include "lamport/Dialect/Lamport/IR/StageOps.td"
include "lamport/Dialect/Lamport/IR/KernelOps.td"
include "lamport/Dialect/Lamport/IR/GemmOps.td"
include "lamport/Dialect/Lamport/IR/BoundaryOps.td"

#endif // LAMPORT_DIALECT_LAMPORT_IR_LAMPORTOPS_TD
