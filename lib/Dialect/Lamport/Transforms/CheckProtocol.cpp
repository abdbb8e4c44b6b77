//===- CheckProtocol.cpp - The mailbox protocol across a step's ops -------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// The driver of lamport-check-protocol and its program rules: a step's ops
// are followed in program order, keeping per mailbox the publish that no
// consumer has taken yet, so that a consumer without a publish, a publish
// without a consumer and two publishes into one generation are each found
// at one op with a note at the other. The kernel rules are in
// CheckKernelProtocol.cpp.
//
//===----------------------------------------------------------------------===//

#include "lamport/Dialect/Lamport/Transforms/Passes.h"

#include "CheckProtocol.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/MapVector.h"

namespace mlir::lamport {
#define GEN_PASS_DEF_LAMPORTCHECKPROTOCOL
#include "lamport/Dialect/Lamport/Transforms/Passes.h.inc"
} // namespace mlir::lamport

using namespace mlir;
using namespace mlir::lamport;

namespace {

/// What one op of a step does to one mailbox.
struct StepUse {
  Value mailbox;
  bool publishes = false;
  bool consumes = false;
  /// The op's token count M where it is static: the rows it publishes or
  /// reads.
  std::optional<int64_t> rows;
};

/// Where a step stands with its mailboxes after some of its ops.
struct StepState {
  /// Per mailbox, the publish no consumer has taken yet (null: none).
  llvm::MapVector<Value, Operation *> pending;
  /// Per mailbox, the consumer that took its last publish.
  DenseMap<Value, Operation *> lastConsumer;

  Operation *pendingOf(Value mailbox) const { return pending.lookup(mailbox); }
};

} // namespace

/// The static token count of a program-level op: the static size of the
/// token dimension of its buffers, if one has it.
static std::optional<int64_t> getStaticRows(ProgramOpInterface op) {
  SmallVector<BufferRole> roles;
  op.getBufferRoles(roles);
  for (const BufferRole &role : roles) {
    if (!role.tokensDim)
      continue;
    auto type = cast<MemRefType>(role.buffer.getType());
    if (!type.isDynamicDim(*role.tokensDim))
      return type.getDimSize(*role.tokensDim);
  }
  return std::nullopt;
}

/// What the kernel of `launch` does to each mailbox it is passed, read off
/// its body: a publish of the parameter publishes, a poll consumes.
static SmallVector<StepUse> getLaunchUses(gpu::LaunchFuncOp launch) {
  SmallVector<StepUse> uses;
  auto kernel = SymbolTable::lookupNearestSymbolFrom<gpu::GPUFuncOp>(
      launch, launch.getKernel());
  if (!kernel || kernel.isExternal())
    return uses;
  for (auto [i, operand] : llvm::enumerate(launch.getKernelOperands())) {
    if (!isa<MailboxType>(operand.getType()) || i >= kernel.getNumArguments())
      continue;
    Value parameter = kernel.getArgument(i);
    StepUse use{operand};
    kernel.walk([&](Operation *op) {
      if (auto publish = dyn_cast<MailboxPublishOp>(op))
        use.publishes |= publish.getMailbox() == parameter;
      else if (isa<MailboxPollOp, MailboxPollAtOp, MailboxPollOwnedOp>(op))
        use.consumes |= op->getOperand(0) == parameter;
    });
    if (use.publishes || use.consumes)
      uses.push_back(use);
  }
  return uses;
}

/// What `op` does to the mailboxes of the step.
static SmallVector<StepUse> getStepUses(Operation *op) {
  if (auto programOp = dyn_cast<ProgramOpInterface>(op)) {
    MailboxUse use = programOp.getMailboxUse();
    if (!use.mailbox || (!use.publishes && !use.consumes))
      return {};
    return {StepUse{use.mailbox, use.publishes, use.consumes,
                    getStaticRows(programOp)}};
  }
  if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op))
    return getLaunchUses(launch);
  return {};
}

bool mlir::lamport::isProtocolProgram(func::FuncOp program) {
  return program
      .walk([](Operation *op) {
        return isa<ProgramOpInterface, gpu::LaunchFuncOp>(op)
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

namespace {

/// Checks the program rules of one program (Passes.td, rules 1 to 5).
class ProgramChecker {
public:
  explicit ProgramChecker(func::FuncOp program) : program(program) {
    program.walk<WalkOrder::PreOrder>([&](Operation *op) {
      for (const StepUse &use : getStepUses(op)) {
        uses.push_back({op, use});
        firstUse.try_emplace(use.mailbox, op);
      }
    });
  }

  LogicalResult check() {
    checkTpGroup();
    StepState state;
    checkRegion(program.getBody(), state);
    for (auto [mailbox, publisher] : state.pending)
      if (publisher)
        reportUnconsumed(publisher, mailbox, state);
    return report.result();
  }

private:
  /// "mailbox argument N" for a program argument, else "mailbox".
  std::string describe(Value mailbox) {
    auto argument = dyn_cast<BlockArgument>(mailbox);
    if (!argument ||
        argument.getOwner()->getParentOp() != program.getOperation())
      return "mailbox";
    return "mailbox argument " + std::to_string(argument.getArgNumber());
  }

  /// Reports at `op` (or, without one, at `mailbox`'s definition), with a
  /// note that says `note` at `other` where there is one.
  InFlightDiagnostic error(Operation *op, Value mailbox,
                           std::optional<Location> other = std::nullopt,
                           const Twine &note = {}) {
    if (op)
      return report.error(op, other, note);
    return report.error(mailbox.getLoc(), other, note);
  }

  /// Follows the ops of `region` in program order.
  void checkRegion(Region &region, StepState &state) {
    for (Block &block : region)
      for (Operation &op : block)
        checkOp(&op, state);
  }

  /// Follows one op of the step, and the ops nested in it.
  void checkOp(Operation *op, StepState &state) {
    if (auto choice = dyn_cast<scf::IfOp>(op)) {
      checkChoice(choice, state);
      return;
    }
    // Ops with regions other than a choice (loops, ...) run once here: a
    // bundle has no host code, so lamport-compile refuses them later.
    if (!isa<ProgramOpInterface, gpu::LaunchFuncOp>(op))
      for (Region &region : op->getRegions())
        checkRegion(region, state);
    for (const StepUse &use : getStepUses(op))
      apply(op, use, state);
  }

  /// The branches of an scf.if are alternatives (the launches of one op
  /// chosen by M): each starts from `state`, and both must leave every
  /// mailbox with or without a pending publish alike.
  void checkChoice(scf::IfOp choice, StepState &state) {
    StepState thenState = state, elseState = state;
    checkRegion(choice.getThenRegion(), thenState);
    checkRegion(choice.getElseRegion(), elseState);
    state = thenState;
    for (const StepState *branch : {&thenState, &elseState}) {
      for (auto [mailbox, publisher] : branch->pending) {
        Operation *other =
            (branch == &thenState ? elseState : thenState).pendingOf(mailbox);
        if (!publisher || other)
          continue;
        error(choice, mailbox, publisher->getLoc(),
              "the branch's publish, not consumed in it")
            << "leaves a publish into " << describe(mailbox)
            << " pending in one branch only: the alternatives of one step "
               "must do the same to each mailbox";
        return;
      }
    }
  }

  /// Follows what `op` does to one mailbox (rules 1, 3 and 4).
  void apply(Operation *op, const StepUse &use, StepState &state) {
    Value mailbox = use.mailbox;
    Operation *pending = state.pendingOf(mailbox);
    if (use.publishes && pending) {
      error(op, mailbox, pending->getLoc(),
            "the earlier publish, with no consumer between the two")
          << "publishes into " << describe(mailbox)
          << " while an earlier publish into it is not consumed yet: both "
             "write slot [NEXT, rank] of one generation, the second over rows "
             "a peer may still be reading";
      pending = nullptr;
    }
    if (use.consumes) {
      // A fused op publishes and consumes one generation in one launch.
      if (!use.publishes && !pending)
        reportUnpublished(op, mailbox, state);
      else if (!use.publishes)
        checkRows(op, use, pending, mailbox);
      state.pending[mailbox] = nullptr;
      state.lastConsumer[mailbox] = op;
      return;
    }
    state.pending[mailbox] = op;
    publishedRows[op] = use.rows;
  }

  /// Rule 1: a consumer with no publish to take.
  void reportUnpublished(Operation *op, Value mailbox, StepState &state) {
    // The other end: the consumer that took the last publish, else a
    // publish after this consumer (the uses are in program order), else
    // the mailbox.
    Location other = mailbox.getLoc();
    std::string note =
        describe(mailbox) + ", which no op of the program publishes into";
    auto self = llvm::find_if(
        uses, [&](const auto &entry) { return entry.first == op; });
    auto later = std::find_if(self, uses.end(), [&](const auto &entry) {
      return entry.second.mailbox == mailbox && entry.second.publishes;
    });
    if (Operation *consumer = state.lastConsumer.lookup(mailbox)) {
      other = consumer->getLoc();
      note = "the mailbox's last publish is consumed here";
    } else if (later != uses.end()) {
      other = later->first->getLoc();
      note = "the mailbox is published only after its consumer, here";
    }
    error(op, mailbox, other, note)
        << "consumes " << describe(mailbox)
        << ", but no earlier op of the step publishes into it that another "
           "consumer has not taken: its poll would wait for rows nobody "
           "writes until the timeout traps";
  }

  /// Rule 2: a publish that no consumer takes before the step ends.
  void reportUnconsumed(Operation *publisher, Value mailbox,
                        const StepState &state) {
    Operation *consumer = state.lastConsumer.lookup(mailbox);
    error(publisher, mailbox, consumer ? consumer->getLoc() : mailbox.getLoc(),
          consumer
              ? "the mailbox's last consumer runs before the publish"
              : describe(mailbox) + ", which no op of the program consumes")
        << "publishes into " << describe(mailbox)
        << ", but no later op of the step consumes it: its rows are never "
           "read nor re-armed and NEXT does not advance, so the next step "
           "publishes into the same generation";
  }

  /// Rule 4: static token counts of a publisher and its consumer agree.
  void checkRows(Operation *consumer, const StepUse &use, Operation *publisher,
                 Value mailbox) {
    std::optional<int64_t> published = publishedRows.lookup(publisher);
    if (!use.rows || !published || *use.rows == *published)
      return;
    InFlightDiagnostic diag =
        error(consumer, mailbox, publisher->getLoc(),
              "the publisher, " + Twine(*published) + " rows")
        << "reads " << *use.rows << " rows of " << describe(mailbox)
        << ", but its publisher published " << *published << ": ";
    if (*use.rows > *published)
      diag << "the poll would wait for rows nobody writes until the timeout "
              "traps";
    else
      diag << "the rows past " << *use.rows
           << " are never read nor re-armed, and a later poll of them would "
              "take stale rows for new ones";
  }

  /// Rule 5: every mailbox argument of the program has one tp.
  void checkTpGroup() {
    BlockArgument first;
    for (BlockArgument argument : program.getArguments()) {
      auto type = dyn_cast<MailboxType>(argument.getType());
      if (!type)
        continue;
      if (!first) {
        first = argument;
        continue;
      }
      unsigned tp = cast<MailboxType>(first.getType()).getTp();
      if (type.getTp() == tp)
        continue;
      Operation *site = firstUse.lookup(argument);
      Operation *firstSite = firstUse.lookup(first);
      error(site, argument, firstSite ? firstSite->getLoc() : first.getLoc(),
            describe(first) + " (tp = " + Twine(tp) + ")" +
                (firstSite ? " is used here" : " is declared here"))
          << describe(argument) << " has tp = " << type.getTp() << ", but "
          << describe(first) << " has tp = " << tp
          << ": a program runs on one TP group, so all its mailboxes share "
             "one tp";
    }
  }

  func::FuncOp program;
  ProtocolReport report;
  /// Every mailbox use of the program, in program order.
  SmallVector<std::pair<Operation *, StepUse>> uses;
  /// Per mailbox, the first op that uses it.
  DenseMap<Value, Operation *> firstUse;
  /// Per publisher, the static rows it publishes.
  DenseMap<Operation *, std::optional<int64_t>> publishedRows;
};

} // namespace

InFlightDiagnostic ProtocolReport::attach(InFlightDiagnostic diag,
                                          std::optional<Location> other,
                                          const Twine &note) {
  broken = true;
  if (other)
    diag.attachNote(*other) << note;
  return diag;
}

InFlightDiagnostic ProtocolReport::error(Operation *op,
                                         std::optional<Location> other,
                                         const Twine &note) {
  return attach(op->emitOpError(), other, note);
}

InFlightDiagnostic ProtocolReport::error(Location loc,
                                         std::optional<Location> other,
                                         const Twine &note) {
  return attach(emitError(loc), other, note);
}

LogicalResult mlir::lamport::checkProgramProtocol(func::FuncOp program) {
  return ProgramChecker(program).check();
}

namespace {
struct CheckProtocolPass
    : public lamport::impl::LamportCheckProtocolBase<CheckProtocolPass> {
  using Base::Base;

  void runOnOperation() override {
    bool broken = false;
    getOperation().walk([&](Operation *op) {
      if (auto program = dyn_cast<func::FuncOp>(op);
          program && !program.isExternal() && isProtocolProgram(program))
        broken |= failed(checkProgramProtocol(program));
      else if (auto kernel = dyn_cast<gpu::GPUFuncOp>(op);
               kernel && !kernel.isExternal())
        broken |= failed(checkKernelProtocol(kernel));
    });
    if (broken)
      return signalPassFailure();
    markAllAnalysesPreserved();
  }
};
} // namespace
