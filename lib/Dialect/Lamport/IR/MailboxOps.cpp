//===- MailboxOps.cpp - Kernel-level mailbox primitives -------------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#include "lamport/Dialect/Lamport/IR/Lamport.h"
#include "lamport/Dialect/Lamport/IR/Verification.h"

using namespace mlir;
using namespace mlir::lamport;

//===----------------------------------------------------------------------===//
// MailboxPublishOp
//===----------------------------------------------------------------------===//

LogicalResult MailboxPublishOp::verify() {
  MailboxType mailbox = getMailbox().getType();
  int64_t lanes = getValue().getType().getNumElements();
  if (lanes % LamportDialect::kFragmentLanes)
    return emitOpError() << "publishes " << lanes
                         << " BF16, not whole 16-byte fragments: needs a "
                            "multiple of 8 lanes";
  if (getTarget() && getTransport())
    return emitOpError() << "a routed publish ('to') stores into one rank's "
                            "copy through its peer address and takes no "
                            "transport";
  if (auto target = getConstantInt(getTarget());
      target && (*target < 0 || *target >= int64_t(mailbox.getTp())))
    return emitOpError() << "target rank " << *target
                         << " is outside the TP group of " << mailbox.getTp()
                         << " ranks";
  return verifySlotAccess(*this, mailbox, getStage(), /*slot=*/nullptr,
                          getRow(), getCol(),
                          lanes / LamportDialect::kFragmentLanes);
}

//===----------------------------------------------------------------------===//
// MailboxPollOp / MailboxPollAtOp
//===----------------------------------------------------------------------===//

/// The fragments of a poll or re-arm of \p count fragments `stride` apart
/// that must fit in the row: with a constant stride of one fragment they are
/// consecutive and all must; otherwise only the first is checked statically.
/// Fails for a constant stride that is not whole fragments.
static FailureOr<int64_t> verifyStrideSpan(Operation *op, Value strideValue,
                                           int64_t count) {
  std::optional<int64_t> stride = getConstantInt(strideValue);
  if (stride && (*stride < 0 || *stride % LamportDialect::kFragmentLanes)) {
    op->emitOpError() << "stride " << *stride
                      << " is not a non-negative multiple of 8 BF16 "
                         "elements (whole 16-byte fragments)";
    return failure();
  }
  return stride && *stride == LamportDialect::kFragmentLanes ? count : 1;
}

LogicalResult MailboxPollOp::verify() {
  VectorType fragments = getFragments().getType();
  if (failed(verifyFragments(*this, fragments)) ||
      failed(verifyTimeout(*this, getTimeoutNs())))
    return failure();
  FailureOr<int64_t> span =
      verifyStrideSpan(*this, getStride(), fragments.getDimSize(0));
  if (failed(span))
    return failure();
  return verifySlotAccess(*this, getMailbox().getType(), getStage(), getSlot(),
                          getRow(), getCol(), *span);
}

/// Checks compile-time fragment offsets: one per fragment, each a
/// non-negative multiple of 8 BF16 elements.
static LogicalResult verifyOffsets(Operation *op, ArrayRef<int64_t> offsets,
                                   int64_t fragments) {
  if (int64_t(offsets.size()) != fragments)
    return op->emitOpError() << offsets.size() << " offsets for " << fragments
                             << " fragments: needs one offset per fragment";
  for (int64_t offset : offsets)
    if (offset < 0 || offset % LamportDialect::kFragmentLanes)
      return op->emitOpError()
             << "offset " << offset
             << " is not a non-negative multiple of 8 BF16 elements (whole "
                "16-byte fragments)";
  return success();
}

LogicalResult MailboxPollAtOp::verify() {
  VectorType fragments = getFragments().getType();
  if (failed(verifyFragments(*this, fragments)) ||
      failed(verifyTimeout(*this, getTimeoutNs())) ||
      failed(verifyOffsets(*this, getOffsets(), fragments.getDimSize(0))))
    return failure();
  return verifySlotAccess(*this, getMailbox().getType(), getStage(), getSlot(),
                          getRow(), getCol(), 1);
}

//===----------------------------------------------------------------------===//
// MailboxRearmOp
//===----------------------------------------------------------------------===//

LogicalResult MailboxRearmOp::verify() {
  if (getStride() && getOffsets())
    return emitOpError() << "re-arms either 'count' fragments 'stride' apart "
                            "or the fragments at 'offsets', not both";
  if (getStride() && !getCount())
    return emitOpError() << "a 'stride' needs a 'count'";
  if (getCount() && !getStride())
    return emitOpError() << "a 'count' needs a 'stride'";
  if (getCount() && (*getCount() < 1 || *getCount() > 32))
    return emitOpError() << "count " << int64_t(*getCount())
                         << " must be in 1..32, as for a poll";
  if (std::optional<ArrayRef<int64_t>> offsets = getOffsets()) {
    if (offsets->empty() || offsets->size() > 32)
      return emitOpError() << "re-arms " << offsets->size()
                           << " offsets; needs 1..32, as for a poll";
    if (failed(verifyOffsets(*this, *offsets, offsets->size())))
      return failure();
  }
  FailureOr<int64_t> span =
      verifyStrideSpan(*this, getStride(), getFragmentCount());
  if (failed(span))
    return failure();
  return verifySlotAccess(*this, getMailbox().getType(), getStage(), getSlot(),
                          getRow(), getCol(), *span);
}

//===----------------------------------------------------------------------===//
// MailboxPollOwnedOp
//===----------------------------------------------------------------------===//

LogicalResult MailboxPollOwnedOp::verify() {
  VectorType fragments = getFragments().getType();
  if (failed(verifyFragments(*this, fragments)) ||
      failed(verifyTimeout(*this, getTimeoutNs())))
    return failure();
  if (fragments.getDimSize(0) != 1)
    return emitOpError() << "reads one fragment from its owner: the result "
                            "must be vector<1x8xbf16>";
  MailboxType mailbox = getMailbox().getType();
  int64_t rowFragments =
      int64_t(mailbox.getTp()) * mailbox.getFragmentsPerRow();
  if (auto f = getConstantInt(getFragment());
      f && (*f < 0 || *f >= rowFragments))
    return emitOpError() << "fragment " << *f << " is outside the "
                         << rowFragments << " fragments of a gathered row";
  return verifySlotAccess(*this, mailbox, getStage(), nullptr, getToken(),
                          nullptr, 1);
}
