//===- Verification.h - Checks shared by the op verifiers -------*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// Static checks of mailbox coordinates: every op that addresses a slot checks
// the coordinates that are constants against the mailbox shape, with the same
// message wherever the rule is broken.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_DIALECT_LAMPORT_IR_VERIFICATION_H
#define LAMPORT_DIALECT_LAMPORT_IR_VERIFICATION_H

#include "lamport/Dialect/Lamport/IR/Lamport.h"

#include <optional>

namespace mlir::lamport {

/// The value of `value` when it is an integer constant.
std::optional<int64_t> getConstantInt(Value value);

/// Checks constant coordinates of an access to `fragments` 16-byte fragments
/// (8 BF16 each, consecutive in the row) of slot [stage, slot] of `mailbox`
/// at row `row`, column `col`; `slot` may be null where the slot is the
/// publisher's own rank.
LogicalResult verifySlotAccess(Operation *op, MailboxType mailbox, Value stage,
                               Value slot, Value row, Value col,
                               int64_t fragments);

/// Checks a poll timeout attribute: positive where present.
LogicalResult verifyTimeout(Operation *op, std::optional<uint64_t> timeoutNs);

/// Checks a `vector<F x 8 x bf16>` of polled fragments: F in 1..32.
LogicalResult verifyFragments(Operation *op, VectorType fragments);

/// The static size of dimension `dim` of `type`, or nullopt when dynamic.
std::optional<int64_t> staticDim(MemRefType type, unsigned dim);

/// Checks a token count (dimension `dim` of `type`, named `what`) against
/// 1..`maxTokens` when it is static.
LogicalResult verifyTokens(Operation *op, MemRefType type, StringRef what,
                           int64_t maxTokens, unsigned dim = 0);

} // namespace mlir::lamport

#endif // LAMPORT_DIALECT_LAMPORT_IR_VERIFICATION_H
