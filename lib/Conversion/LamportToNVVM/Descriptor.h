//===- Descriptor.h - The mailbox descriptor in a kernel --------*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// The by-value mailbox descriptor a kernel receives (docs/bundle.md): field
// accessors and the element addressing that every lowering shares, so the
// layout of a copy is written down once.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_LIB_CONVERSION_LAMPORTTONVVM_DESCRIPTOR_H
#define LAMPORT_LIB_CONVERSION_LAMPORTTONVVM_DESCRIPTOR_H

#include "lamport/Dialect/Lamport/IR/Lamport.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"

namespace mlir::lamport {

/// One rank's view of a mailbox inside a kernel: the descriptor struct value
/// and the mailbox shape it describes.
class MailboxDescriptor {
public:
  /// Field positions in the descriptor struct, in docs/bundle.md's order.
  enum Field : int64_t {
    kLocal = 0,
    kMulticast = 1,
    kStage = 2,
    kDiagnostics = 3,
    kRank = 4,
    kMailboxId = 5,
    kPeers = 6,
  };

  MailboxDescriptor(Value descriptor, MailboxType type)
      : descriptor(descriptor), type(type) {}

  MailboxType getType() const { return type; }

  /// This rank's copy (`ptr<1>`).
  Value local(OpBuilder &b, Location loc) const;
  /// The multicast address of the whole buffer (`ptr<1>`, null without one).
  Value multicast(OpBuilder &b, Location loc) const;
  /// This rank's stage words, int32 [ACTIVE, NEXT] (`ptr<1>`).
  Value stageWords(OpBuilder &b, Location loc) const;
  /// The host-visible timeout record (`ptr<1>`, null for none).
  Value diagnostics(OpBuilder &b, Location loc) const;
  /// This rank's index in the TP group (i32).
  Value rank(OpBuilder &b, Location loc) const;
  /// Index of this mailbox in the manifest (i32).
  Value mailboxId(OpBuilder &b, Location loc) const;
  /// Rank `rank`'s copy as mapped into this rank's address space.
  Value peer(OpBuilder &b, Location loc, unsigned rank) const;
  /// Rank `rank`'s copy for a rank known at run time (i32). The peers array
  /// is part of a by-value parameter, so a dynamic index would spill the
  /// descriptor to local memory; a chain of selects keeps it in registers.
  Value peer(OpBuilder &b, Location loc, Value rank) const;

  /// BF16 element index (i64) of [stage, slot, row, col] in a copy:
  /// ((stage * tp + slot) * capacity + row) * width + col. Coordinates are
  /// i32 or i64 and non-negative.
  Value elementIndex(OpBuilder &b, Location loc, Value stage, Value slot,
                     Value row, Value col) const;

private:
  Value field(OpBuilder &b, Location loc, ArrayRef<int64_t> position) const;

  Value descriptor;
  MailboxType type;
};

/// `base` (a `ptr<1>` to BF16) advanced by `elements` (i64) BF16 elements.
Value getElementAddress(OpBuilder &b, Location loc, Value base, Value elements);
/// `base` advanced by a constant number of BF16 elements.
Value getElementAddress(OpBuilder &b, Location loc, Value base,
                        int64_t elements);

/// `value` (i32, i64 or index-converted i64) as a non-negative i64.
Value zextToI64(OpBuilder &b, Location loc, Value value);

/// An integer constant of `width` bits.
Value createIntConstant(OpBuilder &b, Location loc, unsigned width,
                        int64_t value);

} // namespace mlir::lamport

#endif // LAMPORT_LIB_CONVERSION_LAMPORTTONVVM_DESCRIPTOR_H
