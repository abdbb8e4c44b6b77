//===- PollToNVVM.cpp - The reader side of a mailbox to NVVM --------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// lamport.mailbox.poll, poll_at and poll_owned wait on this rank's own copy
// until no BF16 lane of their fragments is the sentinel; rearm stores the
// sentinel back over what was read.
//
// A poll issues every 16-byte volatile load before it checks any, then spins
// on the fragments that still hold a sentinel lane only (a pending bitmask).
// Every address is computed once, before the loop. The first miss arms a
// deadline from %globaltimer; a miss past the deadline writes the timeout
// record of docs/bundle.md, fences at system scope and traps, so a rank that
// diverges fails its launch instead of hanging the group. The timeout is the
// op's (else the pass's) unless the host has set the module's
// lamport_poll_timeout_ns, which each polling kernel reads as it starts and
// a runtime may change between launches.
//
//===----------------------------------------------------------------------===//

#include "Descriptor.h"
#include "Fragment.h"
#include "Patterns.h"

#include "lamport/Runtime/Descriptor.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace mlir::lamport;

namespace {

/// Byte offsets of the timeout record's fields (docs/bundle.md).
enum TimeoutRecordField : int64_t {
  kClaimed = 0,
  kRecordRank = 4,
  kRecordMailboxId = 8,
  kRecordStage = 12,
  kRecordSlot = 16,
  kRecordRow = 20,
  kRecordColumn = 24,
  kRecordBlock = 28,
  kRecordElapsedNs = 32,
  kRecordTimeoutNs = 40,
};

} // namespace

/// An integer constant of `width` bits.
static Value constant(OpBuilder &b, Location loc, unsigned width,
                      int64_t value) {
  return createIntConstant(b, loc, width, value);
}

/// i1: whether bit `bit` of the i32 `mask` is set.
static Value testBit(OpBuilder &b, Location loc, Value mask, unsigned bit) {
  Value masked =
      LLVM::AndOp::create(b, loc, mask, constant(b, loc, 32, 1u << bit));
  return LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ne, masked,
                              constant(b, loc, 32, 0));
}

/// The i32 mask whose bit i says fragment i still holds a sentinel lane.
/// Every check comes after every load the caller issued.
static Value getPendingMask(OpBuilder &b, Location loc,
                            ArrayRef<Value> fragments) {
  Value pending;
  for (auto [i, words] : llvm::enumerate(fragments)) {
    Value dirty = LLVM::ZExtOp::create(b, loc, b.getI32Type(),
                                       hasSentinelLane(b, loc, words));
    if (i != 0)
      dirty = LLVM::ShlOp::create(b, loc, dirty, constant(b, loc, 32, i));
    pending = pending ? LLVM::OrOp::create(b, loc, pending, dirty) : dirty;
  }
  return pending;
}

/// Linear index of this CTA in its grid.
static Value getLinearBlockIndex(OpBuilder &b, Location loc) {
  Type i32 = b.getI32Type();
  Value x = NVVM::BlockIdXOp::create(b, loc, i32);
  Value y = NVVM::BlockIdYOp::create(b, loc, i32);
  Value z = NVVM::BlockIdZOp::create(b, loc, i32);
  Value width = NVVM::GridDimXOp::create(b, loc, i32);
  Value height = NVVM::GridDimYOp::create(b, loc, i32);
  Value plane =
      LLVM::AddOp::create(b, loc, y, LLVM::MulOp::create(b, loc, z, height));
  return LLVM::AddOp::create(b, loc, x,
                             LLVM::MulOp::create(b, loc, plane, width));
}

/// How long a poll that lost the claim on the timeout record waits before it
/// traps: far longer than the winner needs for nine stores and a fence.
constexpr int64_t kRecordGraceNs = 1000000;

/// Spins until %globaltimer passes `until`.
static void waitUntil(OpBuilder &b, Location loc, Value until) {
  scf::WhileOp::create(
      b, loc, TypeRange(), ValueRange(),
      [&](OpBuilder &b, Location loc, ValueRange) {
        Value now = NVVM::GlobalTimerOp::create(b, loc, b.getI64Type());
        Value waiting =
            LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ult, now, until);
        scf::ConditionOp::create(b, loc, waiting, ValueRange());
      },
      [&](OpBuilder &b, Location loc, ValueRange) {
        scf::YieldOp::create(b, loc);
      });
}

/// A volatile store of `value` at byte `offset` of the timeout record.
static void storeRecordField(OpBuilder &b, Location loc, Value record,
                             TimeoutRecordField offset, Value value) {
  Value address = LLVM::GEPOp::create(
      b, loc, record.getType(), b.getI8Type(), record,
      ArrayRef<LLVM::GEPArg>{int32_t(offset)}, LLVM::GEPNoWrapFlags::inbounds);
  unsigned bytes = value.getType().getIntOrFloatBitWidth() / 8;
  LLVM::StoreOp::create(b, loc, value, address, bytes, /*isVolatile=*/true);
}

/// The cold path of a poll past its deadline: names the first fragment still
/// pending in the timeout record (when the descriptor has one and no other
/// poll claimed it first), fences at system scope and traps. A poll that
/// lost the claim waits a little first, so that its trap does not end the
/// grid while the winner is still writing.
static void emitTimeout(OpBuilder &b, Location loc,
                        const MailboxDescriptor &mailbox,
                        ArrayRef<Value> addresses, Value pending, Value now,
                        Value deadline, Value timeout) {
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  MailboxType type = mailbox.getType();

  // The lowest pending fragment; its coordinates follow from its address, so
  // the spin loop keeps nothing else alive for this path.
  Value address = addresses.back();
  for (int64_t i = int64_t(addresses.size()) - 2; i >= 0; --i)
    address = LLVM::SelectOp::create(b, loc, testBit(b, loc, pending, i),
                                     addresses[i], address);
  Value bytes = LLVM::SubOp::create(
      b, loc, LLVM::PtrToIntOp::create(b, loc, i64, address),
      LLVM::PtrToIntOp::create(b, loc, i64, mailbox.local(b, loc)));
  Value element = LLVM::LShrOp::create(b, loc, bytes, constant(b, loc, 64, 1));
  auto split = [&](Value index, int64_t extent) -> std::pair<Value, Value> {
    Value size = constant(b, loc, 64, extent);
    return {LLVM::UDivOp::create(b, loc, index, size),
            LLVM::TruncOp::create(b, loc, i32,
                                  LLVM::URemOp::create(b, loc, index, size))};
  };
  auto [rowIndex, column] = split(element, type.getWidth());
  auto [slotIndex, row] = split(rowIndex, type.getCapacity());
  auto [stageIndex, slot] = split(slotIndex, type.getTp());
  Value stage = LLVM::TruncOp::create(b, loc, i32, stageIndex);
  // deadline = first miss + timeout.
  Value elapsed = LLVM::AddOp::create(
      b, loc, LLVM::SubOp::create(b, loc, now, deadline), timeout);

  Value record = mailbox.diagnostics(b, loc);
  Value hasRecord =
      LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ne, record,
                           LLVM::ZeroOp::create(b, loc, record.getType()));
  scf::IfOp::create(b, loc, hasRecord, [&](OpBuilder &b, Location loc) {
    // Only the first poll to time out anywhere in the grid fills the record.
    Value exchange = LLVM::AtomicCmpXchgOp::create(
        b, loc, record, constant(b, loc, 32, 0), constant(b, loc, 32, 1),
        LLVM::AtomicOrdering::monotonic, LLVM::AtomicOrdering::monotonic);
    Value claimed = LLVM::ExtractValueOp::create(b, loc, exchange, 1);
    scf::IfOp::create(
        b, loc, claimed,
        [&](OpBuilder &b, Location loc) {
          storeRecordField(b, loc, record, kRecordRank, mailbox.rank(b, loc));
          storeRecordField(b, loc, record, kRecordMailboxId,
                           mailbox.mailboxId(b, loc));
          storeRecordField(b, loc, record, kRecordStage, stage);
          storeRecordField(b, loc, record, kRecordSlot, slot);
          storeRecordField(b, loc, record, kRecordRow, row);
          storeRecordField(b, loc, record, kRecordColumn, column);
          storeRecordField(b, loc, record, kRecordBlock,
                           getLinearBlockIndex(b, loc));
          storeRecordField(b, loc, record, kRecordElapsedNs, elapsed);
          storeRecordField(b, loc, record, kRecordTimeoutNs, timeout);
          scf::YieldOp::create(b, loc);
        },
        [&](OpBuilder &b, Location loc) {
          // A trap ends the whole grid: give the poll that claimed the record
          // time to fill it (bounded, in case the claim is stale).
          waitUntil(b, loc,
                    LLVM::AddOp::create(b, loc, now,
                                        constant(b, loc, 64, kRecordGraceNs)));
          scf::YieldOp::create(b, loc);
        });
    scf::YieldOp::create(b, loc);
  });
  LLVM::FenceOp::create(b, loc, LLVM::AtomicOrdering::seq_cst);
  LLVM::Trap::create(b, loc);
}

/// The global address space, where the override of the polls' timeout
/// lives: the host writes it, each kernel reads it once on entry (read at
/// each poll from the constant bank, it cost the boundary alone 1-7%:
/// docs/design/kernels.md, "Tried and dropped").
constexpr unsigned kGlobalAddressSpace = 1;

/// Whether `symbol` is the polls' timeout override.
static LLVM::GlobalOp asPollTimeoutGlobal(Operation *symbol) {
  auto global = dyn_cast<LLVM::GlobalOp>(symbol);
  if (!global || !global.getGlobalType().isInteger(64) ||
      global.getAddrSpace() != kGlobalAddressSpace)
    return nullptr;
  return global;
}

/// The load of the override that prepareToPoll puts at the start of `func`,
/// or null.
static LLVM::LoadOp findOverrideLoad(gpu::GPUFuncOp func) {
  if (func.getBody().empty())
    return nullptr;
  for (auto load : func.getBody().front().getOps<LLVM::LoadOp>()) {
    auto address = load.getAddr().getDefiningOp<LLVM::AddressOfOp>();
    if (address &&
        address.getGlobalName() == ::lamport::runtime::kPollTimeoutSymbol)
      return load;
  }
  return nullptr;
}

/// The global that overrides the polls' timeout in `module` (an i64, 0
/// until the host sets it), created where the module has none; null where
/// another symbol takes its name.
static LLVM::GlobalOp getOrCreatePollTimeoutGlobal(OpBuilder &b,
                                                   gpu::GPUModuleOp module) {
  if (Operation *symbol = SymbolTable::lookupSymbolIn(
          module, ::lamport::runtime::kPollTimeoutSymbol))
    return asPollTimeoutGlobal(symbol);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(module.getBody());
  // External linkage: the PTX declares it .visible, so cuModuleGetGlobal
  // finds it, and LLVM may not fold its loads to the initial 0.
  return LLVM::GlobalOp::create(
      b, module.getLoc(), b.getI64Type(), /*isConstant=*/false,
      LLVM::Linkage::External, ::lamport::runtime::kPollTimeoutSymbol,
      b.getI64IntegerAttr(0), /*alignment=*/8, kGlobalAddressSpace);
}

/// A load of `global`. Not volatile: ptxas keeps other loads behind a
/// volatile one, which held the kernel's own early loads back.
static Value loadOverride(OpBuilder &b, Location loc, LLVM::GlobalOp global) {
  Value address = LLVM::AddressOfOp::create(b, loc, global);
  return LLVM::LoadOp::create(b, loc, b.getI64Type(), address,
                              /*alignment=*/8);
}

LogicalResult mlir::lamport::prepareToPoll(gpu::GPUModuleOp module) {
  StringRef name = ::lamport::runtime::kPollTimeoutSymbol;
  Operation *symbol = SymbolTable::lookupSymbolIn(module, name);
  if (symbol && !asPollTimeoutGlobal(symbol))
    return symbol->emitOpError()
           << "takes the name '" << name
           << "' that the polls' timeout override needs: an i64 global in "
              "address space "
           << kGlobalAddressSpace;
  OpBuilder b(module.getContext());
  LLVM::GlobalOp global;
  for (auto func : module.getOps<gpu::GPUFuncOp>()) {
    bool polls =
        func.walk([](Operation *op) {
              return isa<MailboxPollOp, MailboxPollAtOp, MailboxPollOwnedOp>(op)
                         ? WalkResult::interrupt()
                         : WalkResult::advance();
            })
            .wasInterrupted();
    if (!polls || func.getBody().empty() || findOverrideLoad(func))
      continue;
    if (!global)
      global = getOrCreatePollTimeoutGlobal(b, module);
    b.setInsertionPointToStart(&func.getBody().front());
    loadOverride(b, func.getLoc(), global);
  }
  return success();
}

/// The override `op`'s kernel read on entry (prepareToPoll), else one read
/// here, the global made where the module has none.
static FailureOr<Value> getPollTimeoutOverride(ConversionPatternRewriter &b,
                                               Operation *op) {
  if (auto func = op->getParentOfType<gpu::GPUFuncOp>())
    if (LLVM::LoadOp load = findOverrideLoad(func))
      return load.getResult();
  auto module = op->getParentOfType<gpu::GPUModuleOp>();
  if (!module)
    return b.notifyMatchFailure(op, "a poll lowers inside a gpu.module");
  LLVM::GlobalOp global = getOrCreatePollTimeoutGlobal(b, module);
  if (!global)
    return b.notifyMatchFailure(
        op, "the name of the polls' timeout override is taken");
  return loadOverride(b, op->getLoc(), global);
}

/// The timeout of a poll compiled with `compiledNs`: `override` (the
/// module's, as read) where the host set one (nonzero), else `compiledNs`.
static Value getPollTimeout(OpBuilder &b, Location loc, Value override,
                            int64_t compiledNs) {
  Value unset = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, override,
                                     constant(b, loc, 64, 0));
  return LLVM::SelectOp::create(b, loc, unset, constant(b, loc, 64, compiledNs),
                                override);
}

/// Polls the fragments at `addresses` (`ptr<1>`, 16-byte aligned) of
/// `mailbox`'s own copy until none holds a sentinel lane, for at most
/// `override` (i64) where nonzero, else `compiledNs`, after the first miss;
/// returns their words (vector<4xi32> each).
static SmallVector<Value> emitPoll(OpBuilder &b, Location loc,
                                   const MailboxDescriptor &mailbox,
                                   ArrayRef<Value> addresses, Value override,
                                   int64_t compiledNs) {
  assert(!addresses.empty() && addresses.size() <= 32 &&
         "a poll waits for 1..32 fragments");
  Type i64 = b.getI64Type();
  SmallVector<Value> fragments;
  for (Value address : addresses)
    fragments.push_back(loadFragmentVolatile(b, loc, address));
  Value timeout = getPollTimeout(b, loc, override, compiledNs);
  Value pending = getPendingMask(b, loc, fragments);

  // Loop-carried: the pending mask, the deadline (0 while unarmed) and the
  // fragments.
  SmallVector<Value> inits = {pending, constant(b, loc, 64, 0)};
  llvm::append_range(inits, fragments);
  auto loop = scf::WhileOp::create(
      b, loc, ValueRange(inits).getTypes(), inits,
      [&](OpBuilder &b, Location loc, ValueRange carried) {
        Value spinning =
            LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ne, carried[0],
                                 constant(b, loc, 32, 0));
        scf::ConditionOp::create(b, loc, spinning, carried);
      },
      [&](OpBuilder &b, Location loc, ValueRange carried) {
        Value pending = carried[0], deadline = carried[1];
        ValueRange previous = carried.drop_front(2);

        // A miss: arm the deadline on the first, trap once it has passed.
        Value now = NVVM::GlobalTimerOp::create(b, loc, i64);
        Value unarmed = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq,
                                             deadline, constant(b, loc, 64, 0));
        Value armed = LLVM::SelectOp::create(
            b, loc, unarmed, LLVM::AddOp::create(b, loc, now, timeout),
            deadline);
        Value expired =
            LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ugt, now, armed);
        scf::IfOp::create(b, loc, expired, [&](OpBuilder &b, Location loc) {
          emitTimeout(b, loc, mailbox, addresses, pending, now, armed, timeout);
          scf::YieldOp::create(b, loc);
        });

        // Load the pending fragments again, all before any check.
        SmallVector<Value> next;
        for (auto [i, address] : llvm::enumerate(addresses)) {
          if (addresses.size() == 1) {
            next.push_back(loadFragmentVolatile(b, loc, address));
            continue;
          }
          auto reload = scf::IfOp::create(
              b, loc, testBit(b, loc, pending, i),
              [&](OpBuilder &b, Location loc) {
                scf::YieldOp::create(b, loc,
                                     loadFragmentVolatile(b, loc, address));
              },
              [&](OpBuilder &b, Location loc) {
                scf::YieldOp::create(b, loc, previous[i]);
              });
          next.push_back(reload.getResult(0));
        }
        SmallVector<Value> yielded = {getPendingMask(b, loc, next), armed};
        llvm::append_range(yielded, next);
        scf::YieldOp::create(b, loc, yielded);
      });
  return SmallVector<Value>(loop.getResults().drop_front(2));
}

/// The poll result (`!llvm.array<F x vector<8xbf16>>`, the LLVM form of
/// vector<F x 8 x bf16>) holding `fragments`.
static Value packFragments(OpBuilder &b, Location loc, Type resultType,
                           ArrayRef<Value> fragments) {
  auto laneType =
      VectorType::get({LamportDialect::kFragmentLanes}, b.getBF16Type());
  Value result = LLVM::PoisonOp::create(b, loc, resultType);
  for (auto [i, words] : llvm::enumerate(fragments))
    result = LLVM::InsertValueOp::create(
        b, loc, result, LLVM::BitcastOp::create(b, loc, laneType, words),
        int64_t(i));
  return result;
}

/// Address of fragment `i` of a strided access: `base` + i * `stride` BF16.
static Value getStridedAddress(OpBuilder &b, Location loc, Value base,
                               Value stride, int64_t i) {
  if (i == 0)
    return base;
  Value elements = LLVM::MulOp::create(b, loc, zextToI64(b, loc, stride),
                                       constant(b, loc, 64, i));
  return getElementAddress(b, loc, base, elements);
}

/// Address of [stage, slot, row, col] in this rank's own copy.
static Value getLocalAddress(OpBuilder &b, Location loc,
                             const MailboxDescriptor &mailbox, Value stage,
                             Value slot, Value row, Value col) {
  return getElementAddress(b, loc, mailbox.local(b, loc),
                           mailbox.elementIndex(b, loc, stage, slot, row, col));
}

namespace {

/// Lowers lamport.mailbox.poll (`stride` apart) and lamport.mailbox.poll_at
/// (compile-time `offsets`).
template <typename OpTy>
struct MailboxPollLowering : public ConvertOpToLLVMPattern<OpTy> {
  MailboxPollLowering(const LLVMTypeConverter &converter,
                      int64_t defaultTimeoutNs)
      : ConvertOpToLLVMPattern<OpTy>(converter),
        defaultTimeoutNs(defaultTimeoutNs) {}

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type resultType = this->getTypeConverter()->convertType(op.getType());
    if (!resultType)
      return rewriter.notifyMatchFailure(op, "result type has no LLVM form");
    MailboxDescriptor mailbox(adaptor.getMailbox(), op.getMailbox().getType());
    Value base =
        getLocalAddress(rewriter, loc, mailbox, adaptor.getStage(),
                        adaptor.getSlot(), adaptor.getRow(), adaptor.getCol());
    int64_t count = op.getType().getDimSize(0);
    SmallVector<Value> addresses;
    for (int64_t i = 0; i < count; ++i) {
      if constexpr (std::is_same_v<OpTy, MailboxPollOp>)
        addresses.push_back(
            getStridedAddress(rewriter, loc, base, adaptor.getStride(), i));
      else
        addresses.push_back(
            getElementAddress(rewriter, loc, base, op.getOffsets()[i]));
    }
    FailureOr<Value> override = getPollTimeoutOverride(rewriter, op);
    if (failed(override))
      return failure();
    SmallVector<Value> fragments =
        emitPoll(rewriter, loc, mailbox, addresses, *override,
                 int64_t(op.getTimeoutNs().value_or(defaultTimeoutNs)));
    rewriter.replaceOp(op, packFragments(rewriter, loc, resultType, fragments));
    return success();
  }

  int64_t defaultTimeoutNs;
};

/// Lowers lamport.mailbox.poll_owned: the fragment's owner is rank
/// fragment / (width / 8), its local fragment fragment % (width / 8); poll it
/// in slot [stage, owner] at row `token`, then re-arm it.
struct MailboxPollOwnedLowering
    : public ConvertOpToLLVMPattern<MailboxPollOwnedOp> {
  MailboxPollOwnedLowering(const LLVMTypeConverter &converter,
                           int64_t defaultTimeoutNs)
      : ConvertOpToLLVMPattern(converter), defaultTimeoutNs(defaultTimeoutNs) {}

  LogicalResult
  matchAndRewrite(MailboxPollOwnedOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type resultType = getTypeConverter()->convertType(op.getType());
    if (!resultType)
      return rewriter.notifyMatchFailure(op, "result type has no LLVM form");
    MailboxDescriptor mailbox(adaptor.getMailbox(), op.getMailbox().getType());
    Value fragment = zextToI64(rewriter, loc, adaptor.getFragment());
    Value rowFragments =
        constant(rewriter, loc, 64, mailbox.getType().getFragmentsPerRow());
    Value owner = LLVM::UDivOp::create(rewriter, loc, fragment, rowFragments);
    Value localFragment =
        LLVM::URemOp::create(rewriter, loc, fragment, rowFragments);
    Value column = LLVM::MulOp::create(
        rewriter, loc, localFragment,
        constant(rewriter, loc, 64, LamportDialect::kFragmentLanes));
    Value address = getLocalAddress(rewriter, loc, mailbox, adaptor.getStage(),
                                    owner, adaptor.getToken(), column);
    FailureOr<Value> override = getPollTimeoutOverride(rewriter, op);
    if (failed(override))
      return failure();
    SmallVector<Value> fragments =
        emitPoll(rewriter, loc, mailbox, address, *override,
                 int64_t(op.getTimeoutNs().value_or(defaultTimeoutNs)));
    storeFragment(rewriter, loc, getSentinelFragment(rewriter, loc), address);
    rewriter.replaceOp(op, packFragments(rewriter, loc, resultType, fragments));
    return success();
  }

  int64_t defaultTimeoutNs;
};

/// Lowers lamport.mailbox.rearm: the sentinel over one fragment, `count`
/// fragments `stride` apart, or the fragments at `offsets`.
struct MailboxRearmLowering : public ConvertOpToLLVMPattern<MailboxRearmOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(MailboxRearmOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MailboxDescriptor mailbox(adaptor.getMailbox(), op.getMailbox().getType());
    Value base =
        getLocalAddress(rewriter, loc, mailbox, adaptor.getStage(),
                        adaptor.getSlot(), adaptor.getRow(), adaptor.getCol());
    Value sentinel = getSentinelFragment(rewriter, loc);
    for (int64_t i = 0, e = op.getFragmentCount(); i < e; ++i) {
      Value address = base;
      if (std::optional<ArrayRef<int64_t>> offsets = op.getOffsets())
        address = getElementAddress(rewriter, loc, base, (*offsets)[i]);
      else if (Value stride = adaptor.getStride())
        address = getStridedAddress(rewriter, loc, base, stride, i);
      storeFragment(rewriter, loc, sentinel, address);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::lamport::populatePollToNVVMPatterns(
    LLVMTypeConverter &converter, RewritePatternSet &patterns,
    const LamportToNVVMOptions &options) {
  patterns.add<MailboxPollLowering<MailboxPollOp>,
               MailboxPollLowering<MailboxPollAtOp>, MailboxPollOwnedLowering>(
      converter, options.timeoutNs);
  patterns.add<MailboxRearmLowering>(converter);
}
