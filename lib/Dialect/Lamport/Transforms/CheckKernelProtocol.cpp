//===- CheckKernelProtocol.cpp - The mailbox protocol inside a kernel -----===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// The kernel rules of lamport-check-protocol (Passes.td, rules 6 to 10): the
// stages a kernel's publishes, stage words and re-arms use, compared with
// what its polls read. Coordinates are compared as values (isSameValue), and
// "before" is dominance, so a rule is reported only where the IR decides it.
//
//===----------------------------------------------------------------------===//

#include "CheckProtocol.h"

#include "lamport/Dialect/Lamport/IR/Lamport.h"
#include "lamport/Dialect/Lamport/IR/Verification.h"

#include "mlir/IR/Dominance.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::lamport;

/// How many defining ops isSameValue looks through.
static constexpr unsigned kSameValueDepth = 6;

/// isSameValue, looking through at most `depth` more defining ops.
static bool isSameValue(Value a, Value b, unsigned depth) {
  if (a == b)
    return true;
  if (!a || !b)
    return false;
  Attribute constantA, constantB;
  if (matchPattern(a, m_Constant(&constantA)) &&
      matchPattern(b, m_Constant(&constantB)))
    return constantA == constantB;
  auto resultA = dyn_cast<OpResult>(a), resultB = dyn_cast<OpResult>(b);
  if (!resultA || !resultB || depth == 0 ||
      resultA.getResultNumber() != resultB.getResultNumber())
    return false;
  Operation *opA = resultA.getOwner(), *opB = resultB.getOwner();
  if (opA->getName() != opB->getName() ||
      opA->getAttrDictionary() != opB->getAttrDictionary() ||
      opA->getNumOperands() != opB->getNumOperands() || opA->getNumRegions() ||
      !isMemoryEffectFree(opA))
    return false;
  return llvm::all_of_zip(
      opA->getOperands(), opB->getOperands(),
      [&](Value x, Value y) { return isSameValue(x, y, depth - 1); });
}

bool mlir::lamport::isSameValue(Value a, Value b) {
  return ::isSameValue(a, b, kSameValueDepth);
}

namespace {

/// The fragments an access to a slot covers, as BF16 offsets from its base
/// coordinates: known offsets, or `count` fragments a run-time `stride`
/// apart (which include offset 0).
struct FragmentSet {
  std::optional<SmallVector<int64_t>> offsets;
  Value stride;
  int64_t count = 1;

  static FragmentSet strided(Value stride, int64_t count) {
    FragmentSet set;
    if (std::optional<int64_t> step = getConstantInt(stride)) {
      set.offsets.emplace();
      for (int64_t i = 0; i < count; ++i)
        set.offsets->push_back(i * *step);
      return set;
    }
    set.stride = stride;
    set.count = count;
    return set;
  }

  static FragmentSet at(ArrayRef<int64_t> offsets) {
    FragmentSet set;
    set.offsets.emplace(offsets.begin(), offsets.end());
    return set;
  }

  bool contains(int64_t offset) const {
    return offsets ? llvm::is_contained(*offsets, offset) : offset == 0;
  }

  /// Whether every fragment of `other` is in this set; true where the IR
  /// does not decide it.
  bool covers(const FragmentSet &other) const {
    if (offsets && other.offsets)
      return llvm::all_of(*other.offsets,
                          [&](int64_t offset) { return contains(offset); });
    if (!offsets && !other.offsets && isSameValue(stride, other.stride))
      return other.count <= count;
    if (other.offsets && other.offsets->size() == 1)
      return contains(other.offsets->front());
    return true;
  }

  /// Whether this set and `other` share a fragment the IR shows.
  bool overlaps(const FragmentSet &other) const {
    if (offsets && other.offsets)
      return llvm::any_of(*other.offsets,
                          [&](int64_t offset) { return contains(offset); });
    // A run-time stride always covers offset 0.
    return contains(0) && other.contains(0);
  }
};

/// A poll, poll_at or re-arm: the slot it addresses and its fragments.
struct SlotAccess {
  Operation *op;
  Value mailbox, stage, slot, row, col;
  FragmentSet fragments;

  bool sameBase(const SlotAccess &other) const {
    return isSameValue(mailbox, other.mailbox) &&
           isSameValue(stage, other.stage) && isSameValue(slot, other.slot) &&
           isSameValue(row, other.row) && isSameValue(col, other.col);
  }
};

SlotAccess getAccess(MailboxPollOp poll) {
  return {poll,
          poll.getMailbox(),
          poll.getStage(),
          poll.getSlot(),
          poll.getRow(),
          poll.getCol(),
          FragmentSet::strided(poll.getStride(),
                               poll.getFragments().getType().getDimSize(0))};
}

SlotAccess getAccess(MailboxPollAtOp poll) {
  return {poll,
          poll.getMailbox(),
          poll.getStage(),
          poll.getSlot(),
          poll.getRow(),
          poll.getCol(),
          FragmentSet::at(poll.getOffsets())};
}

SlotAccess getAccess(MailboxRearmOp rearm) {
  FragmentSet fragments;
  if (std::optional<ArrayRef<int64_t>> offsets = rearm.getOffsets())
    fragments = FragmentSet::at(*offsets);
  else if (rearm.getStride())
    fragments = FragmentSet::strided(rearm.getStride(), *rearm.getCount());
  else
    fragments = FragmentSet::at({0});
  return {rearm,          rearm.getMailbox(), rearm.getStage(), rearm.getSlot(),
          rearm.getRow(), rearm.getCol(),     fragments};
}

/// An op that reads a stage of a mailbox: a poll, poll_at or poll_owned.
struct StageRead {
  Operation *op;
  Value mailbox, stage;
};

/// Checks the kernel rules of one gpu.func.
class KernelChecker {
public:
  explicit KernelChecker(gpu::GPUFuncOp kernel)
      : kernel(kernel), dominance(kernel) {
    kernel.walk([&](Operation *op) {
      if (auto publish = dyn_cast<MailboxPublishOp>(op))
        publishes.push_back(publish);
      else if (auto poll = dyn_cast<MailboxPollOp>(op))
        polls.push_back(getAccess(poll));
      else if (auto poll = dyn_cast<MailboxPollAtOp>(op))
        polls.push_back(getAccess(poll));
      if (auto poll = dyn_cast<MailboxPollOwnedOp>(op))
        reads.push_back({poll, poll.getMailbox(), poll.getStage()});
      else if (auto poll = dyn_cast<MailboxPollOp>(op))
        reads.push_back({poll, poll.getMailbox(), poll.getStage()});
      else if (auto poll = dyn_cast<MailboxPollAtOp>(op))
        reads.push_back({poll, poll.getMailbox(), poll.getStage()});
    });
  }

  LogicalResult check() {
    kernel.walk([&](Operation *op) {
      if (auto publish = dyn_cast<MailboxPublishOp>(op)) {
        checkPublishStage(publish);
        checkPublishOnce(publish);
      } else if (auto setActive = dyn_cast<StageSetActiveOp>(op)) {
        checkSetActive(setActive);
      } else if (auto advance = dyn_cast<StageAdvanceOp>(op)) {
        checkAdvance(advance);
      } else if (auto rearm = dyn_cast<MailboxRearmOp>(op)) {
        checkRearm(rearm);
      }
    });
    return report.result();
  }

private:
  /// Where the op that defines `value` is, where one does.
  static std::optional<Location> getDefinition(Value value) {
    if (Operation *def = value.getDefiningOp())
      return def->getLoc();
    return std::nullopt;
  }

  /// Rule 6: a publish into a rotating generation.
  void checkPublishStage(MailboxPublishOp publish) {
    Value stage = publish.getStage();
    if (std::optional<int64_t> constant = getConstantInt(stage)) {
      report.error(publish, getDefinition(stage), "the constant stage")
          << "publishes into constant stage " << *constant
          << ": the generation never rotates, so the next launch publishes "
             "into the generation a slower peer may still be reading; take "
             "the stage from lamport.stage.next or a ticket";
      return;
    }
    auto active = stage.getDefiningOp<StageActiveOp>();
    if (!active || !isSameValue(active.getMailbox(), publish.getMailbox()))
      return;
    report.error(publish, active.getLoc(), "the ACTIVE stage word, read here")
        << "publishes into the ACTIVE generation, the one this rank's "
           "consumer reads, over rows a peer may still be reading: a "
           "publisher writes the generation NEXT names";
  }

  /// Rule 7: one publish per fragment of a stage.
  void checkPublishOnce(MailboxPublishOp publish) {
    for (MailboxPublishOp earlier : publishes) {
      if (earlier == publish ||
          !dominance.properlyDominates(earlier.getOperation(), publish) ||
          !isSameValue(earlier.getMailbox(), publish.getMailbox()) ||
          !isSameValue(earlier.getStage(), publish.getStage()) ||
          !isSameValue(earlier.getRow(), publish.getRow()) ||
          !isSameValue(earlier.getCol(), publish.getCol()) ||
          bool(earlier.getTarget()) != bool(publish.getTarget()) ||
          (publish.getTarget() &&
           !isSameValue(earlier.getTarget(), publish.getTarget())))
        continue;
      report.error(publish, earlier.getLoc(), "the earlier publish")
          << "publishes the fragment at the same stage, row and column as an "
             "earlier publish: a peer may take the first store for the data";
      return;
    }
  }

  /// Rule 8: ACTIVE names a generation the kernel published into.
  void checkSetActive(StageSetActiveOp setActive) {
    MailboxPublishOp first;
    for (MailboxPublishOp publish : publishes) {
      if (!isSameValue(publish.getMailbox(), setActive.getMailbox()))
        continue;
      if (isSameValue(publish.getStage(), setActive.getStage()))
        return;
      if (!first)
        first = publish;
    }
    if (!first)
      return; // Publishes elsewhere: not decided here.
    report.error(setActive, first.getLoc(),
                 "a publish of the kernel, into another stage")
        << "sets ACTIVE to a stage none of this kernel's publishes into the "
           "mailbox wrote: the consumer would poll a generation nobody "
           "published into";
  }

  /// Rule 9: NEXT advances past a generation the kernel read.
  void checkAdvance(StageAdvanceOp advance) {
    Value stage = advance.getActive();
    if (std::optional<int64_t> constant = getConstantInt(stage)) {
      report.error(advance, getDefinition(stage), "the constant stage")
          << "advances NEXT past constant stage " << *constant
          << ": NEXT would never rotate, so every publish would write the "
             "same generation";
      return;
    }
    Operation *first = nullptr;
    for (const StageRead &read : reads) {
      if (!isSameValue(read.mailbox, advance.getMailbox()))
        continue;
      if (isSameValue(read.stage, stage))
        return;
      if (!first)
        first = read.op;
    }
    if (!first)
      return; // Reads elsewhere: not decided here.
    report.error(advance, first->getLoc(),
                 "a poll of the kernel, of another stage")
        << "advances NEXT past a stage none of this kernel's polls of the "
           "mailbox read: the next publish would land in a generation out of "
           "step with the one consumed";
  }

  /// Rule 10: a re-arm follows the poll that read its fragments, and no
  /// poll reads them after it.
  void checkRearm(MailboxRearmOp op) {
    SlotAccess rearm = getAccess(op);
    for (const SlotAccess &poll : polls) {
      if (!rearm.sameBase(poll) ||
          !dominance.properlyDominates(op.getOperation(), poll.op) ||
          !poll.fragments.overlaps(rearm.fragments))
        continue;
      report.error(op, poll.op->getLoc(),
                   "the poll of the same fragments, after the re-arm")
          << "re-arms fragments this kernel still reads: the poll after it "
             "would find the sentinel and wait until the timeout traps";
      return;
    }
    const SlotAccess *sameStage = nullptr;
    for (const SlotAccess &poll : polls) {
      if (rearm.sameBase(poll) &&
          dominance.properlyDominates(poll.op, op.getOperation()) &&
          poll.fragments.covers(rearm.fragments))
        return;
      if (!sameStage && isSameValue(poll.mailbox, rearm.mailbox) &&
          isSameValue(poll.stage, rearm.stage))
        sameStage = &poll;
    }
    report.error(
        op, sameStage ? sameStage->op->getLoc() : getDefinition(rearm.stage),
        sameStage ? "a poll of the same stage, which does not read "
                    "those fragments before the re-arm"
                  : "the stage re-armed, which no poll reads")
        << "re-arms fragments no earlier poll of this kernel read: it would "
           "erase rows a peer published before anyone read them; a consumer "
           "re-arms what it polled, after the poll";
  }

  gpu::GPUFuncOp kernel;
  DominanceInfo dominance;
  ProtocolReport report;
  SmallVector<MailboxPublishOp> publishes;
  /// The polls and poll_ats, which re-arms follow.
  SmallVector<SlotAccess> polls;
  /// Every op that reads a slot: polls, poll_ats and poll_owneds.
  SmallVector<StageRead> reads;
};

} // namespace

LogicalResult mlir::lamport::checkKernelProtocol(gpu::GPUFuncOp kernel) {
  return KernelChecker(kernel).check();
}
