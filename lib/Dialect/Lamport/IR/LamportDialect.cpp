//===- LamportDialect.cpp - Lamport dialect, types and attributes ---------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#include "lamport/Dialect/Lamport/IR/Lamport.h"
#include "lamport/Dialect/Lamport/IR/Verification.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

#include <limits>

using namespace mlir;
using namespace mlir::lamport;

/// Parses a Lamport_CountParameter: an integer in 0..UINT32_MAX, so that a
/// negative size is an error instead of wrapping around.
static FailureOr<unsigned> parseCountParameter(AsmParser &parser) {
  SMLoc loc = parser.getCurrentLocation();
  int64_t value = 0;
  if (parser.parseInteger(value))
    return failure();
  if (value < 0 || value > std::numeric_limits<unsigned>::max())
    return parser.emitError(loc)
           << "expected a count in 0.." << std::numeric_limits<unsigned>::max()
           << ", got " << value;
  return unsigned(value);
}

#include "lamport/Dialect/Lamport/IR/LamportOpsDialect.cpp.inc"

#include "lamport/Dialect/Lamport/IR/LamportInterfaces.cpp.inc"

#include "lamport/Dialect/Lamport/IR/LamportEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "lamport/Dialect/Lamport/IR/LamportAttrs.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "lamport/Dialect/Lamport/IR/LamportOpsTypes.cpp.inc"

TacticAttr::Knobs TacticAttr::getKnobs() const {
  Knobs knobs;
  knobs.splits = getSplits();
  knobs.kw = getKw();
  knobs.accs = getAccs();
  knobs.tiles = getTiles();
  knobs.passes = getPasses();
  knobs.minCtasPerSm = getMinCtasPerSm();
  knobs.earlyDependents = getEarlyDependents();
  knobs.lateChunks = getLateChunks();
  knobs.pipeline = getPipeline();
  knobs.stages = getStages();
  knobs.stageBytes = getStageBytes();
  knobs.producerLanes = getProducerLanes();
  knobs.earlyReads = getEarlyReads();
  knobs.tokenTiles.assign(getTokenTiles().begin(), getTokenTiles().end());
  return knobs;
}

TacticAttr TacticAttr::get(MLIRContext *context, const Knobs &knobs) {
  return get(context, knobs.splits, knobs.kw, knobs.accs, knobs.tiles,
             knobs.passes, knobs.minCtasPerSm, knobs.earlyDependents,
             knobs.lateChunks, knobs.pipeline, knobs.stages, knobs.stageBytes,
             knobs.producerLanes, knobs.earlyReads, knobs.tokenTiles);
}

/// `tactic(#lamport.tactic<...>, ...)`: lamport.gemm_publish's tactics as a
/// comma-separated list, so that one tactic reads as it always did.
static ParseResult parseTacticList(OpAsmParser &parser, ArrayAttr &tactics) {
  SmallVector<Attribute> list;
  if (parser.parseCommaSeparatedList([&]() -> ParseResult {
        TacticAttr tactic;
        if (parser.parseAttribute(tactic))
          return failure();
        list.push_back(tactic);
        return success();
      }))
    return failure();
  tactics = parser.getBuilder().getArrayAttr(list);
  return success();
}

static void printTacticList(OpAsmPrinter &printer, Operation *,
                            ArrayAttr tactics) {
  llvm::interleaveComma(tactics, printer, [&](Attribute tactic) {
    printer.printAttribute(tactic);
  });
}

#define GET_OP_CLASSES
#include "lamport/Dialect/Lamport/IR/LamportOps.cpp.inc"

namespace {
/// Names the mailbox types of printed IR once, at the top of the module:
/// `!mailbox_tp8_c16_w8192 = !lamport.mailbox<tp = 8, capacity = 16,
/// width = 8192>`, and every op that uses one says `!mailbox_tp8_c16_w8192`.
/// The name carries the type's parameters, so two types never share one (the
/// printer appends no counter) and a reader sees the TP group at every use.
/// Overridable: another dialect's interface may name the type otherwise.
struct LamportOpAsmInterface : public OpAsmDialectInterface {
  using OpAsmDialectInterface::OpAsmDialectInterface;

  AliasResult getAlias(Type type, raw_ostream &os) const override {
    auto mailbox = dyn_cast<MailboxType>(type);
    if (!mailbox)
      return AliasResult::NoAlias;
    os << "mailbox_tp" << mailbox.getTp() << "_c" << mailbox.getCapacity()
       << "_w" << mailbox.getWidth();
    return AliasResult::OverridableAlias;
  }
};
} // namespace

void LamportDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "lamport/Dialect/Lamport/IR/LamportOps.cpp.inc"
      >();
  addTypes<
#define GET_TYPEDEF_LIST
#include "lamport/Dialect/Lamport/IR/LamportOpsTypes.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "lamport/Dialect/Lamport/IR/LamportAttrs.cpp.inc"
      >();
  addInterfaces<LamportOpAsmInterface>();
}

Operation *LamportDialect::materializeConstant(OpBuilder &builder,
                                               Attribute value, Type type,
                                               Location loc) {
  return arith::ConstantOp::materialize(builder, value, type, loc);
}

//===----------------------------------------------------------------------===//
// MailboxType
//===----------------------------------------------------------------------===//

LogicalResult MailboxType::verify(function_ref<InFlightDiagnostic()> emitError,
                                  unsigned tp, unsigned capacity,
                                  unsigned width) {
  if (tp < 1 || tp > LamportDialect::kMaxTp)
    return emitError() << "tp = " << tp << " must be in 1.."
                       << LamportDialect::kMaxTp;
  if (capacity < 1 || capacity > LamportDialect::kMaxCapacity)
    return emitError() << "capacity = " << capacity << " must be in 1.."
                       << LamportDialect::kMaxCapacity
                       << " rows (what a bundle's manifest holds)";
  if (width == 0 || width % LamportDialect::kFragmentLanes)
    return emitError() << "width must be a multiple of 8 BF16 elements, got "
                       << width;
  if (width > LamportDialect::kMaxWidth)
    return emitError() << "width = " << width << " must be at most "
                       << LamportDialect::kMaxWidth
                       << " BF16 (what a bundle's manifest holds)";
  return success();
}

int64_t MailboxType::getMaxTokens() const {
  return std::min<int64_t>(LamportDialect::kMaxTokens, getCapacity());
}

//===----------------------------------------------------------------------===//
// Shared verification
//===----------------------------------------------------------------------===//

std::optional<int64_t> mlir::lamport::getConstantInt(Value value) {
  APInt constant;
  if (value && matchPattern(value, m_ConstantInt(&constant)))
    return constant.getSExtValue();
  return std::nullopt;
}

LogicalResult mlir::lamport::verifySlotAccess(Operation *op,
                                              MailboxType mailbox, Value stage,
                                              Value slot, Value row, Value col,
                                              int64_t fragments) {
  if (auto s = getConstantInt(stage);
      s && (*s < 0 || *s >= LamportDialect::kGenerations))
    return op->emitOpError()
           << "stage " << *s << " is not one of the 3 generations (0..2)";
  if (auto r = getConstantInt(slot);
      r && (*r < 0 || *r >= int64_t(mailbox.getTp())))
    return op->emitOpError() << "slot " << *r << " is outside the TP group of "
                             << mailbox.getTp() << " ranks";
  if (auto r = getConstantInt(row);
      r && (*r < 0 || *r >= int64_t(mailbox.getCapacity())))
    return op->emitOpError() << "row " << *r << " is outside the slot's "
                             << mailbox.getCapacity() << " rows";
  if (auto c = getConstantInt(col)) {
    if (*c < 0 || *c % LamportDialect::kFragmentLanes)
      return op->emitOpError()
             << "column " << *c
             << " is not at a 16-byte fragment boundary (a multiple of 8)";
    int64_t end = *c + fragments * LamportDialect::kFragmentLanes;
    if (end > int64_t(mailbox.getWidth()))
      return op->emitOpError()
             << "fragments [" << *c << ", " << end
             << ") run past the mailbox width " << mailbox.getWidth();
  }
  return success();
}

LogicalResult mlir::lamport::verifyTimeout(Operation *op,
                                           std::optional<uint64_t> timeoutNs) {
  if (timeoutNs && (*timeoutNs == 0 || int64_t(*timeoutNs) < 0))
    return op->emitOpError()
           << "timeout_ns must be positive, got " << int64_t(*timeoutNs);
  return success();
}

LogicalResult mlir::lamport::verifyFragments(Operation *op,
                                             VectorType fragments) {
  if (fragments.getDimSize(1) != LamportDialect::kFragmentLanes)
    return op->emitOpError()
           << "fragments must be vector<F x 8 x bf16> (one 16-byte fragment "
              "per row), got "
           << fragments;
  int64_t count = fragments.getDimSize(0);
  if (count < 1 || count > 32)
    return op->emitOpError()
           << "polls " << count
           << " fragments; one poll waits for 1..32 (a 32-bit pending mask)";
  return success();
}

std::optional<int64_t> mlir::lamport::staticDim(MemRefType type, unsigned dim) {
  if (type.isDynamicDim(dim))
    return std::nullopt;
  return type.getDimSize(dim);
}

LogicalResult mlir::lamport::verifyTokens(Operation *op, MemRefType type,
                                          StringRef what, int64_t maxTokens,
                                          unsigned dim) {
  if (auto m = staticDim(type, dim); m && (*m < 1 || *m > maxTokens))
    return op->emitOpError() << what << " has M = " << *m
                             << " tokens; needs 1 <= M <= " << maxTokens;
  return success();
}
