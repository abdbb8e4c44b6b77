//===- StageOps.cpp - Stage words and tickets -----------------------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#include "lamport/Dialect/Lamport/IR/Lamport.h"
#include "lamport/Dialect/Lamport/IR/Verification.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;
using namespace mlir::lamport;

//===----------------------------------------------------------------------===//
// StageSetActiveOp / StageAdvanceOp
//===----------------------------------------------------------------------===//

LogicalResult StageSetActiveOp::verify() {
  return verifySlotAccess(*this, getMailbox().getType(), getStage(),
                          /*slot=*/nullptr, /*row=*/nullptr, /*col=*/nullptr,
                          /*fragments=*/0);
}

LogicalResult StageAdvanceOp::verify() {
  return verifySlotAccess(*this, getMailbox().getType(), getActive(),
                          /*slot=*/nullptr, /*row=*/nullptr, /*col=*/nullptr,
                          /*fragments=*/0);
}

LogicalResult StageArriveOp::verify() {
  int64_t ctas = getCtas();
  if (ctas < 1 || ctas > INT32_MAX)
    return emitOpError() << "ctas = " << ctas
                         << " must be in [1, 2^31 - 1]: the CTAs of the grid "
                            "that arrive, counted in an int32 word";
  return success();
}

//===----------------------------------------------------------------------===//
// StageFromTicketOp / StageToTicketOp
//===----------------------------------------------------------------------===//

OpFoldResult StageFromTicketOp::fold(FoldAdaptor adaptor) {
  auto ticket = dyn_cast_if_present<IntegerAttr>(adaptor.getTicket());
  if (!ticket)
    return {};
  // The stage is the upper half of the word: a logical shift.
  return IntegerAttr::get(
      getType(), ticket.getValue().lshr(LamportDialect::kTicketStageShift));
}

OpFoldResult StageToTicketOp::fold(FoldAdaptor adaptor) {
  auto stage = dyn_cast_if_present<IntegerAttr>(adaptor.getStage());
  if (!stage)
    return {};
  return IntegerAttr::get(
      getType(), stage.getValue().shl(LamportDialect::kTicketStageShift));
}
