//===- ProgramOpInterface.h - Program-level ops' registry -------*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// ProgramOpInterface (LamportInterfaces.td) and the buffer roles its ops
// report.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_DIALECT_LAMPORT_IR_PROGRAMOPINTERFACE_H
#define LAMPORT_DIALECT_LAMPORT_IR_PROGRAMOPINTERFACE_H

#include "mlir/IR/OpDefinition.h"

#include <optional>

namespace mlir::lamport {

/// How a kernel uses a buffer: the manifest's param `io`.
enum class BufferAccess { Read, Write, ReadWrite };

/// The manifest's word for `access`: "in", "out" or "inout".
inline StringRef stringifyBufferAccess(BufferAccess access) {
  switch (access) {
  case BufferAccess::Read:
    return "in";
  case BufferAccess::Write:
    return "out";
  case BufferAccess::ReadWrite:
    return "inout";
  }
  return "";
}

/// One buffer operand of a program-level op.
struct BufferRole {
  /// The op's memref operand.
  Value buffer;
  /// What the buffer is to the op ("rows", "weight", "x", "stream", ...).
  StringRef role;
  BufferAccess access;
  /// The dimension holding the token count M; none for a buffer whose size
  /// does not follow M (weights, gates, a ticket).
  std::optional<unsigned> tokensDim;
};

} // namespace mlir::lamport

#include "lamport/Dialect/Lamport/IR/LamportInterfaces.h.inc"

#endif // LAMPORT_DIALECT_LAMPORT_IR_PROGRAMOPINTERFACE_H
