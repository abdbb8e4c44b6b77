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
                           << " must be " << expected << " (" << meaning << ")";
}

/// Checks the token count M (dimension 0) of every operand in `operands`:
/// each static one within 1..`maxTokens`, and all static ones equal.
static LogicalResult
verifySameTokens(Operation *op,
                 ArrayRef<std::pair<MemRefType, StringRef>> operands,
                 int64_t maxTokens) {
  std::optional<std::pair<int64_t, StringRef>> first;
  for (auto [type, name] : operands) {
    if (failed(verifyTokens(op, type, name, maxTokens)))
      return failure();
    std::optional<int64_t> m = staticDim(type, 0);
    if (!m)
      continue;
    if (!first)
      first.emplace(*m, name);
    else if (first->first != *m)
      return op->emitOpError() << first->second << " has M = " << first->first
                               << " but " << name << " has M = " << *m;
  }
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
  return verifyTokens(*this, rows, "rows", mailbox.getMaxTokens());
}

LogicalResult PollRowsOp::verify() {
  MailboxType mailbox = getMailbox().getType();
  MemRefType out = getOut().getType();
  if (failed(verifyTimeout(*this, getTimeoutNs())) ||
      failed(expectDim(*this, out, "out", 0, mailbox.getTp(), "tp slots")) ||
      failed(expectDim(*this, out, "out", 2, mailbox.getWidth(),
                       "the mailbox width")))
    return failure();
  return verifyTokens(*this, out, "out", mailbox.getMaxTokens(), /*dim=*/1);
}

LogicalResult AllReduceOp::verify() {
  MailboxType mailbox = getMailbox().getType();
  MemRefType out = getOut().getType();
  if (failed(verifyTimeout(*this, getTimeoutNs())) ||
      failed(expectDim(*this, out, "out", 1, mailbox.getWidth(),
                       "the mailbox width")))
    return failure();
  return verifyTokens(*this, out, "out", mailbox.getMaxTokens());
}

LogicalResult AllGatherOp::verify() {
  MailboxType mailbox = getMailbox().getType();
  MemRefType out = getOut().getType();
  if (failed(verifyTimeout(*this, getTimeoutNs())) ||
      failed(expectDim(*this, out, "out", 1,
                       int64_t(mailbox.getTp()) * mailbox.getWidth(),
                       "tp * mailbox width: the gathered row")))
    return failure();
  return verifyTokens(*this, out, "out", mailbox.getMaxTokens());
}

//===----------------------------------------------------------------------===//
// AllReduceDualNormOp / DualNormOp
//===----------------------------------------------------------------------===//

/// The checks both dual norms share, for hidden size `hidden` and at most
/// `maxTokens` tokens: shapes of stream, gates, weights and out, the token
/// counts of `tokenOperands` (every operand with a row per token), and eps.
template <typename DualNormOp>
static LogicalResult
verifyDualNorm(DualNormOp op, int64_t hidden, int64_t maxTokens,
               ArrayRef<std::pair<MemRefType, StringRef>> tokenOperands) {
  Operation *raw = op.getOperation();
  MemRefType stream = op.getStream().getType(), out = op.getOut().getType();
  if (failed(expectDim(raw, stream, "stream", 1, hidden, "the hidden size")) ||
      failed(expectDim(raw, out, "out", 1, hidden, "the hidden size")) ||
      failed(expectDim(raw, op.getNextWeight().getType(), "next_weight", 0,
                       hidden, "the hidden size")) ||
      failed(verifySameTokens(raw, tokenOperands, maxTokens)))
    return failure();
  if (op.getPostWeight() &&
      failed(expectDim(raw, op.getPostWeight().getType(), "post_weight", 0,
                       hidden, "the hidden size")))
    return failure();
  for (auto [gate, name] :
       {std::pair(op.getAlpha(), "alpha"), std::pair(op.getBeta(), "beta")}) {
    std::optional<int64_t> size = staticDim(gate.getType(), 0);
    if (!size || (*size != 1 && *size != hidden))
      return op.emitOpError() << name << " " << gate.getType()
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
  SmallVector<std::pair<MemRefType, StringRef>> tokenOperands = {
      {getStream().getType(), "stream"}, {getOut().getType(), "out"}};
  if (Value partial = getPartial()) {
    MemRefType type = cast<MemRefType>(partial.getType());
    if (failed(expectDim(*this, type, "partial", 1, mailbox.getWidth(),
                         "the mailbox width")))
      return failure();
    tokenOperands.insert(tokenOperands.begin(), {type, "partial"});
  } else if (getTransport()) {
    return emitOpError() << "transport applies to the publish of "
                            "`publishing(%partial)`, which this op lacks";
  }
  return verifyDualNorm(*this, mailbox.getWidth(), mailbox.getMaxTokens(),
                        tokenOperands);
}

LogicalResult DualNormOp::verify() {
  MemRefType reduced = getReduced().getType();
  std::optional<int64_t> hidden = staticDim(reduced, 1);
  if (!hidden)
    return emitOpError() << "reduced " << reduced
                         << " must have a static hidden size";
  return verifyDualNorm(*this, *hidden, LamportDialect::kMaxTokens,
                        {{reduced, "reduced"},
                         {getStream().getType(), "stream"},
                         {getOut().getType(), "out"}});
}

//===----------------------------------------------------------------------===//
// ProgramOpInterface: buffer roles
//===----------------------------------------------------------------------===//

using Access = BufferAccess;
/// The token count M is the leading dimension.
static constexpr unsigned kTokensFirst = 0;

void PublishRowsOp::getBufferRoles(SmallVectorImpl<BufferRole> &roles) {
  roles.push_back({getRows(), "rows", Access::Read, kTokensFirst});
}

void PollRowsOp::getBufferRoles(SmallVectorImpl<BufferRole> &roles) {
  // out is [tp, M, width]: M is the middle dimension.
  roles.push_back({getOut(), "out", Access::Write, 1u});
}

void AllReduceOp::getBufferRoles(SmallVectorImpl<BufferRole> &roles) {
  roles.push_back({getOut(), "out", Access::Write, kTokensFirst});
}

void AllGatherOp::getBufferRoles(SmallVectorImpl<BufferRole> &roles) {
  roles.push_back({getOut(), "out", Access::Write, kTokensFirst});
}

/// The buffers both dual norms share, after what feeds r: the stream, the
/// gates and weights, out.
template <typename DualNormOpT>
static void appendDualNormRoles(DualNormOpT op,
                                SmallVectorImpl<BufferRole> &roles) {
  roles.push_back({op.getStream(), "stream", Access::ReadWrite, kTokensFirst});
  roles.push_back({op.getAlpha(), "alpha", Access::Read, std::nullopt});
  roles.push_back({op.getBeta(), "beta", Access::Read, std::nullopt});
  if (op.getPostWeight())
    roles.push_back(
        {op.getPostWeight(), "post_weight", Access::Read, std::nullopt});
  roles.push_back(
      {op.getNextWeight(), "next_weight", Access::Read, std::nullopt});
  roles.push_back({op.getOut(), "out", Access::Write, kTokensFirst});
}

void AllReduceDualNormOp::getBufferRoles(SmallVectorImpl<BufferRole> &roles) {
  appendDualNormRoles(*this, roles);
  if (getPartial())
    roles.push_back({getPartial(), "partial", Access::Read, kTokensFirst});
}

void DualNormOp::getBufferRoles(SmallVectorImpl<BufferRole> &roles) {
  roles.push_back({getReduced(), "reduced", Access::Read, kTokensFirst});
  appendDualNormRoles(*this, roles);
}

//===----------------------------------------------------------------------===//
// ProgramOpInterface: mailbox use
//===----------------------------------------------------------------------===//

MailboxUse PublishRowsOp::getMailboxUse() {
  return {getMailbox(), /*publishes=*/true, /*consumes=*/false};
}

MailboxUse PollRowsOp::getMailboxUse() {
  return {getMailbox(), /*publishes=*/false, /*consumes=*/true};
}

MailboxUse AllReduceOp::getMailboxUse() {
  return {getMailbox(), /*publishes=*/false, /*consumes=*/true};
}

MailboxUse AllGatherOp::getMailboxUse() {
  return {getMailbox(), /*publishes=*/false, /*consumes=*/true};
}

MailboxUse AllReduceDualNormOp::getMailboxUse() {
  // With `publishing(%partial)` the op is the whole boundary.
  return {getMailbox(), /*publishes=*/bool(getPartial()), /*consumes=*/true};
}

MailboxUse DualNormOp::getMailboxUse() { return {}; }
