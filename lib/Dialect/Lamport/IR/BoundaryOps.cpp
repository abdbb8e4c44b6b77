//===- BoundaryOps.cpp - Program-level publishers and consumers -----------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#include "lamport/Dialect/Lamport/IR/Lamport.h"
#include "lamport/Dialect/Lamport/IR/Verification.h"

using namespace mlir;
using namespace mlir::lamport;

/// Checks that dimension `dim` of `type` is static and equal to `expected`;
/// `what` names the operand and `meaning` the dimension in the message.
static LogicalResult expectDim(Operation *op, MemRefType type, StringRef what,
                               unsigned dim, int64_t expected,
                               StringRef meaning) {
  std::optional<int64_t> size = staticDim(type, dim);
  if (size && *size == expected)
    return success();
  return op->emitOpError() << what << " " << type << ": dimension " << dim
                           << " must be " << expected << " (" << meaning
                           << ")";
}

/// Checks that two token counts agree where both are static.
static LogicalResult expectSameTokens(Operation *op, MemRefType a,
                                      StringRef aName, MemRefType b,
                                      StringRef bName) {
  std::optional<int64_t> am = staticDim(a, 0), bm = staticDim(b, 0);
  if (am && bm && *am != *bm)
    return op->emitOpError() << aName << " has M = " << *am << " but "
                             << bName << " has M = " << *bm;
  return success();
}

//===----------------------------------------------------------------------===//
// PublishRowsOp / PollRowsOp / AllReduceOp / AllGatherOp
//===----------------------------------------------------------------------===//

LogicalResult PublishRowsOp::verify() {
  MailboxType mailbox = getMailbox().getType();
  MemRefType rows = getRows().getType();
  if (auto width = staticDim(rows, 1); !width || *width != mailbox.getWidth())
    return emitOpError() << "rows " << rows << " must be [m, width] with width "
                         << mailbox.getWidth() << " (the mailbox width)";
  return verifyTokens(*this, rows, "rows", mailbox.getCapacity());
}

LogicalResult PollRowsOp::verify() {
  MailboxType mailbox = getMailbox().getType();
  MemRefType out = getOut().getType();
  if (failed(verifyTimeout(*this, getTimeoutNs())) ||
      failed(expectDim(*this, out, "out", 0, mailbox.getTp(), "tp slots")) ||
      failed(expectDim(*this, out, "out", 2, mailbox.getWidth(),
                       "the mailbox width")))
    return failure();
  if (auto m = staticDim(out, 1);
      m && (*m < 1 || *m > int64_t(mailbox.getCapacity())))
    return emitOpError() << "out has M = " << *m << " rows; needs 1 <= M <= "
                         << mailbox.getCapacity() << " (the mailbox capacity)";
  return success();
}

LogicalResult AllReduceOp::verify() {
  MailboxType mailbox = getMailbox().getType();
  MemRefType out = getOut().getType();
  if (failed(verifyTimeout(*this, getTimeoutNs())) ||
      failed(expectDim(*this, out, "out", 1, mailbox.getWidth(),
                       "the mailbox width")))
    return failure();
  return verifyTokens(*this, out, "out", mailbox.getCapacity());
}

LogicalResult AllGatherOp::verify() {
  MailboxType mailbox = getMailbox().getType();
  MemRefType out = getOut().getType();
  if (failed(verifyTimeout(*this, getTimeoutNs())) ||
      failed(expectDim(*this, out, "out", 1,
                       int64_t(mailbox.getTp()) * mailbox.getWidth(),
                       "tp * mailbox width: the gathered row")))
    return failure();
  return verifyTokens(*this, out, "out", mailbox.getCapacity());
}

//===----------------------------------------------------------------------===//
// AllReduceDualNormOp / DualNormOp
//===----------------------------------------------------------------------===//

/// The checks both dual norms share, for hidden size `hidden` and at most
/// `maxTokens` tokens: shapes of stream, gates, weights and out, and eps.
template <typename DualNormOp>
static LogicalResult verifyDualNorm(DualNormOp op, int64_t hidden,
                                    int64_t maxTokens) {
  Operation *raw = op.getOperation();
  MemRefType stream = op.getStream().getType(), out = op.getOut().getType();
  if (failed(expectDim(raw, stream, "stream", 1, hidden, "the hidden size")) ||
      failed(expectDim(raw, out, "out", 1, hidden, "the hidden size")) ||
      failed(expectDim(raw, op.getNextWeight().getType(), "next_weight", 0,
                       hidden, "the hidden size")) ||
      failed(expectSameTokens(raw, stream, "stream", out, "out")) ||
      failed(verifyTokens(raw, stream, "stream", maxTokens)))
    return failure();
  if (op.getPostWeight() &&
      failed(expectDim(raw, op.getPostWeight().getType(), "post_weight", 0,
                       hidden, "the hidden size")))
    return failure();
  for (auto [gate, name] : {std::pair(op.getAlpha(), "alpha"),
                            std::pair(op.getBeta(), "beta")}) {
    std::optional<int64_t> size = staticDim(gate.getType(), 0);
    if (!size || (*size != 1 && *size != hidden))
      return op.emitOpError()
             << name << " " << gate.getType()
             << " must be [1] (a scalar gate) or [" << hidden
             << "] (one gate per channel)";
  }
  if (!(op.getEps().convertToFloat() > 0.0f))
    return op.emitOpError() << "eps must be positive";
  return success();
}

LogicalResult AllReduceDualNormOp::verify() {
  MailboxType mailbox = getMailbox().getType();
  if (failed(verifyTimeout(*this, getTimeoutNs())))
    return failure();
  return verifyDualNorm(*this, mailbox.getWidth(),
                        std::min<int64_t>(LamportDialect::kMaxTokens,
                                          mailbox.getCapacity()));
}

LogicalResult DualNormOp::verify() {
  MemRefType reduced = getReduced().getType();
  std::optional<int64_t> hidden = staticDim(reduced, 1);
  if (!hidden)
    return emitOpError() << "reduced " << reduced
                         << " must have a static hidden size";
  if (failed(expectSameTokens(*this, reduced, "reduced", getOut().getType(),
                              "out")))
    return failure();
  return verifyDualNorm(*this, *hidden, LamportDialect::kMaxTokens);
}
