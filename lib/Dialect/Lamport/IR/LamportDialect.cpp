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
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
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

/// The knobs of `#lamport.tactic<...>` in the order they print; the first
/// three and token_tiles must be written, the others default.
static constexpr StringLiteral kTacticKnobs[] = {"splits",
                                                 "kw",
                                                 "accs",
                                                 "tiles",
                                                 "passes",
                                                 "min_ctas_per_sm",
                                                 "early_dependents",
                                                 "late_chunks",
                                                 "pipeline",
                                                 "stages",
                                                 "stage_bytes",
                                                 "producer_lanes",
                                                 "early_reads",
                                                 "token_tiles"};
static constexpr StringLiteral kRequiredTacticKnobs[] = {"splits", "kw", "accs",
                                                         "token_tiles"};

ArrayRef<StringLiteral> TacticAttr::getKnobNames() { return kTacticKnobs; }

/// Parses `name = value` into the knob of that name.
static ParseResult parseTacticKnob(AsmParser &parser, StringRef name,
                                   TacticAttr::Knobs &knobs) {
  auto count = [&](unsigned &knob) -> ParseResult {
    FailureOr<unsigned> value = parseCountParameter(parser);
    if (failed(value))
      return failure();
    knob = *value;
    return success();
  };
  // A knob whose value is a word `accept` takes, `what` in the error.
  auto word =
      [&](StringRef what,
          function_ref<bool(StringRef)> accept) -> FailureOr<StringRef> {
    SMLoc loc = parser.getCurrentLocation();
    StringRef value;
    if (succeeded(parser.parseOptionalKeyword(&value)) && accept(value))
      return value;
    InFlightDiagnostic diag = parser.emitError(loc)
                              << "expected " << what << " after '" << name
                              << " ='";
    if (!value.empty())
      diag << ", got '" << value << "'";
    return failure();
  };
  using Knobs = TacticAttr::Knobs;
  static constexpr std::pair<StringLiteral, unsigned Knobs::*> kCounts[] = {
      {"splits", &Knobs::splits},
      {"kw", &Knobs::kw},
      {"accs", &Knobs::accs},
      {"tiles", &Knobs::tiles},
      {"passes", &Knobs::passes},
      {"min_ctas_per_sm", &Knobs::minCtasPerSm},
      {"late_chunks", &Knobs::lateChunks},
      {"stages", &Knobs::stages},
      {"stage_bytes", &Knobs::stageBytes},
      {"producer_lanes", &Knobs::producerLanes}};
  for (auto [knob, member] : kCounts)
    if (name == knob)
      return count(knobs.*member);
  if (name == "early_reads") {
    unsigned reads = 0;
    if (count(reads))
      return failure();
    knobs.earlyReads = reads;
    return success();
  }
  if (name == "early_dependents") {
    FailureOr<StringRef> value = word("true or false", [](StringRef value) {
      return value == "true" || value == "false";
    });
    if (failed(value))
      return failure();
    knobs.earlyDependents = *value == "true";
    return success();
  }
  if (name == "pipeline") {
    FailureOr<StringRef> value = word("registers or bulk", [](StringRef value) {
      return symbolizeGemmPipeline(value).has_value();
    });
    if (failed(value))
      return failure();
    knobs.pipeline = *symbolizeGemmPipeline(*value);
    return success();
  }
  assert(name == "token_tiles" && "a knob of kTacticKnobs");
  knobs.tokenTiles.clear();
  return parser.parseCommaSeparatedList(
      AsmParser::Delimiter::Square,
      [&]() -> ParseResult {
        int64_t tile = 0;
        if (parser.parseInteger(tile))
          return failure();
        knobs.tokenTiles.push_back(tile);
        return success();
      },
      " in token_tiles");
}

/// `<knob = value, ...>` with the knobs in any order: a tactic written by
/// hand need not follow the printed order, and a misspelt, repeated or
/// missing knob is an error that names it (and lists the knobs).
Attribute TacticAttr::parse(AsmParser &parser, Type) {
  SMLoc start = parser.getCurrentLocation();
  if (parser.parseLess())
    return {};
  Knobs knobs;
  llvm::SmallDenseSet<StringRef, 16> written;
  auto knobList = [](InFlightDiagnostic &diag) {
    llvm::interleaveComma(kTacticKnobs, diag);
  };
  if (failed(parser.parseOptionalGreater())) {
    do {
      SMLoc loc = parser.getCurrentLocation();
      StringRef name;
      if (failed(parser.parseOptionalKeyword(&name))) {
        InFlightDiagnostic diag = parser.emitError(loc)
                                  << "expected a tactic knob: ";
        knobList(diag);
        return {};
      }
      if (!llvm::is_contained(kTacticKnobs, name)) {
        InFlightDiagnostic diag = parser.emitError(loc)
                                  << "unknown tactic knob '" << name
                                  << "'; the knobs are ";
        knobList(diag);
        return {};
      }
      if (!written.insert(name).second) {
        parser.emitError(loc) << "tactic knob '" << name << "' written twice";
        return {};
      }
      if (parser.parseEqual() || parseTacticKnob(parser, name, knobs))
        return {};
    } while (succeeded(parser.parseOptionalComma()));
    if (failed(parser.parseOptionalGreater())) {
      parser.emitError(parser.getCurrentLocation())
          << "expected ',' before the next tactic knob or '>' after the last";
      return {};
    }
  }
  SmallVector<StringRef> missing;
  for (StringRef name : kRequiredTacticKnobs)
    if (!written.contains(name))
      missing.push_back(name);
  if (!missing.empty()) {
    InFlightDiagnostic diag = parser.emitError(start) << "tactic lacks ";
    llvm::interleaveComma(missing, diag);
    diag << " (splits, kw, accs and token_tiles are required)";
    return {};
  }
  return get(parser.getContext(), knobs);
}

/// Every knob in kTacticKnobs' order, those at their defaults (Knobs')
/// left out, so that IR written before a knob existed prints as written.
void TacticAttr::print(AsmPrinter &printer) const {
  printer << "<splits = " << getSplits() << ", kw = " << getKw()
          << ", accs = " << getAccs() << ", ";
  const Knobs defaults;
  auto countIfSet = [&](StringRef name, unsigned value, unsigned byDefault) {
    if (value != byDefault)
      printer << name << " = " << value << ", ";
  };
  countIfSet("tiles", getTiles(), defaults.tiles);
  countIfSet("passes", getPasses(), defaults.passes);
  countIfSet("min_ctas_per_sm", getMinCtasPerSm(), defaults.minCtasPerSm);
  if (getEarlyDependents() != defaults.earlyDependents)
    printer << "early_dependents = true, ";
  countIfSet("late_chunks", getLateChunks(), defaults.lateChunks);
  if (getPipeline() != defaults.pipeline)
    printer << "pipeline = " << stringifyGemmPipeline(getPipeline()) << ", ";
  countIfSet("stages", getStages(), defaults.stages);
  countIfSet("stage_bytes", getStageBytes(), defaults.stageBytes);
  countIfSet("producer_lanes", getProducerLanes(), defaults.producerLanes);
  if (std::optional<unsigned> reads = getEarlyReads())
    printer << "early_reads = " << *reads << ", ";
  printer << "token_tiles = [";
  llvm::interleaveComma(getTokenTiles(), printer);
  printer << "]>";
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
