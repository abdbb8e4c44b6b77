//===- LamportHostToLLVM.h - Host side of programs to C API calls -*- C++
//-*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// lamport-lower-host: the host functions of a program after kernel
// generation, rewritten so that mailboxes are runtime handles and launches
// take descriptors and rank streams from the runtime's C API; what is left
// is for upstream's gpu-to-llvm and convert-to-llvm.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_CONVERSION_LAMPORTHOSTTOLLVM_LAMPORTHOSTTOLLVM_H
#define LAMPORT_CONVERSION_LAMPORTHOSTTOLLVM_LAMPORTHOSTTOLLVM_H

#include "lamport/Dialect/Lamport/IR/Lamport.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Pass/Pass.h"

namespace mlir::lamport {

#define GEN_PASS_DECL_LOWERLAMPORTHOSTPASS
#include "lamport/Conversion/Passes.h.inc"

/// The C API entry points the lowered code calls
/// (include/lamport-c/HostRuntime.h).
inline constexpr const char kMailboxDescriptorFunction[] =
    "lamportMailboxDescriptor";
inline constexpr const char kMailboxStreamFunction[] = "lamportMailboxStream";
inline constexpr const char kTensorMapFunction[] = "lamportTensorMap";

/// Lowers one host function as lamport-lower-host does; \p emitCInterface
/// marks it llvm.emit_c_interface. A function without a mailbox argument
/// is left as it is.
LogicalResult lowerLamportHostFunction(func::FuncOp func, bool emitCInterface);

} // namespace mlir::lamport

#endif // LAMPORT_CONVERSION_LAMPORTHOSTTOLLVM_LAMPORTHOSTTOLLVM_H
