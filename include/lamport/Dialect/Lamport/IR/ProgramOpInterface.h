//===- ProgramOpInterface.h - Program-level ops' registry -------*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// ProgramOpInterface (LamportInterfaces.td), the buffer roles its ops
// report and what each does to its mailbox.
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

/// What a program-level op does to its mailbox in a step.
struct MailboxUse {
  /// The op's mailbox operand; null where the op has none.
  Value mailbox;
  /// Whether the op publishes into slot [NEXT, rank] (and sets ACTIVE).
  bool publishes = false;
  /// Whether the op polls the ACTIVE (or, publishing too, the NEXT)
  /// generation, re-arms what it read and advances NEXT.
  bool consumes = false;
};

} // namespace mlir::lamport

#include "lamport/Dialect/Lamport/IR/LamportInterfaces.h.inc"

#endif // LAMPORT_DIALECT_LAMPORT_IR_PROGRAMOPINTERFACE_H
