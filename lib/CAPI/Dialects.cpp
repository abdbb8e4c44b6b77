//===- Dialects.cpp - C API of the lamport dialect ------------------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#include "lamport-c/Dialects.h"

#include "lamport/Dialect/Lamport/IR/Lamport.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/CAPI/Support.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

using namespace mlir;
using namespace mlir::lamport;

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Lamport, lamport,
                                      mlir::lamport::LamportDialect)

void mlirLamportRegisterCompilerDialects(MlirDialectRegistry registry) {
  // The registry lamport-compile builds, so that C clients parse and lower
  // exactly what the tools do.
  DialectRegistry &unwrapped = *unwrap(registry);
  registerAllDialects(unwrapped);
  registerAllExtensions(unwrapped);
  registerAllToLLVMIRTranslations(unwrapped);
  unwrapped.insert<LamportDialect>();
}

MlirContext mlirLamportContextCreate(void) {
  DialectRegistry registry;
  mlirLamportRegisterCompilerDialects(wrap(&registry));
  auto *context = new MLIRContext(registry);
  // A builder creates ops before anything parses them: their dialects must
  // be loaded, not only registered.
  context->loadDialect<LamportDialect, func::FuncDialect, memref::MemRefDialect,
                       arith::ArithDialect, gpu::GPUDialect>();
  context->printOpOnDiagnostic(false);
  return wrap(context);
}

bool mlirTypeIsALamportMailbox(MlirType type) {
  return isa<MailboxType>(unwrap(type));
}

MlirType mlirLamportMailboxTypeGetChecked(MlirLocation location, uint32_t tp,
                                          uint32_t capacity, uint32_t width) {
  Location loc = unwrap(location);
  return wrap(MailboxType::getChecked([&] { return emitError(loc); },
                                      loc.getContext(), tp, capacity, width));
}

uint32_t mlirLamportMailboxTypeGetTp(MlirType type) {
  return cast<MailboxType>(unwrap(type)).getTp();
}

uint32_t mlirLamportMailboxTypeGetCapacity(MlirType type) {
  return cast<MailboxType>(unwrap(type)).getCapacity();
}

uint32_t mlirLamportMailboxTypeGetWidth(MlirType type) {
  return cast<MailboxType>(unwrap(type)).getWidth();
}

MlirLamportTactic mlirLamportTacticGetDefault(void) {
  // The attribute's own defaults; splits, kw and accs, which have none,
  // zero.
  TacticAttr::Knobs knobs;
  MlirLamportTactic tactic = {};
  tactic.tiles = knobs.tiles;
  tactic.passes = knobs.passes;
  tactic.minCtasPerSm = knobs.minCtasPerSm;
  tactic.earlyDependents = knobs.earlyDependents;
  tactic.lateChunks = knobs.lateChunks;
  tactic.bulkPipeline = knobs.pipeline == GemmPipeline::bulk;
  tactic.stages = knobs.stages;
  tactic.stageBytes = knobs.stageBytes;
  tactic.producerLanes = knobs.producerLanes;
  tactic.earlyReads = -1;
  return tactic;
}

MlirAttribute mlirLamportTacticAttrGet(MlirContext context,
                                       MlirLamportTactic tactic) {
  TacticAttr::Knobs knobs;
  knobs.splits = tactic.splits;
  knobs.kw = tactic.kw;
  knobs.accs = tactic.accs;
  knobs.tiles = tactic.tiles;
  knobs.passes = tactic.passes;
  knobs.minCtasPerSm = tactic.minCtasPerSm;
  knobs.earlyDependents = tactic.earlyDependents;
  knobs.lateChunks = tactic.lateChunks;
  knobs.pipeline =
      tactic.bulkPipeline ? GemmPipeline::bulk : GemmPipeline::registers;
  knobs.stages = tactic.stages;
  knobs.stageBytes = tactic.stageBytes;
  knobs.producerLanes = tactic.producerLanes;
  if (tactic.earlyReads >= 0)
    knobs.earlyReads = unsigned(tactic.earlyReads);
  knobs.tokenTiles.assign(tactic.tokenTiles,
                          tactic.tokenTiles + tactic.numTokenTiles);
  return wrap(TacticAttr::get(unwrap(context), knobs));
}

bool mlirAttributeIsALamportTactic(MlirAttribute attribute) {
  return isa<TacticAttr>(unwrap(attribute));
}

MlirAttribute mlirLamportTransportAttrGet(MlirContext context,
                                          MlirStringRef name) {
  std::optional<Transport> transport = symbolizeTransport(unwrap(name));
  if (!transport)
    return MlirAttribute{nullptr};
  return wrap(TransportAttr::get(unwrap(context), *transport));
}

MlirAttribute mlirLamportSumOrderAttrGet(MlirContext context,
                                         MlirStringRef name) {
  std::optional<SumOrder> order = symbolizeSumOrder(unwrap(name));
  if (!order)
    return MlirAttribute{nullptr};
  return wrap(SumOrderAttr::get(unwrap(context), *order));
}
