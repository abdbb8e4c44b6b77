//===- KernelGeneration.cpp - Shared parts of generated kernels -----------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// The scaffolding every kernel family shares: the gpu.module / gpu.func of
// a kernel with its launch shape and bundle metadata, the program-side
// launch that replaces the op, and the builders kernel bodies are made of.
//
//===----------------------------------------------------------------------===//

#include "KernelGeneration.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::lamport;

/// The global address space of the NVVM target, where kernel buffers live.
static constexpr unsigned kGlobalAddressSpace = 1;

/// Names of the attributes a generated kernel carries for the bundle writer.
static constexpr StringLiteral kOpAttr = "lamport.op";
static constexpr StringLiteral kAttributesAttr = "lamport.attributes";
static constexpr StringLiteral kPdlAttr = "lamport.pdl";
static constexpr StringLiteral kParamAttr = "lamport.param";
static constexpr StringLiteral kIoAttr = "lamport.io";
static constexpr StringLiteral kRoleAttr = "lamport.role";

//===----------------------------------------------------------------------===//
// KernelBody
//===----------------------------------------------------------------------===//

Value KernelBody::getTokens(OpBuilder &b, Location loc) {
  Value tokens =
      arith::IndexCastUIOp::create(b, loc, b.getIndexType(), getLaunchTokens());
  // An M past the capacity (which the runtime rejects before launch) must
  // not make the kernel touch memory outside its mailbox slots and buffers.
  Value capacity =
      arith::ConstantIndexOp::create(b, loc, getMailboxType().getCapacity());
  return arith::MinUIOp::create(b, loc, tokens, capacity);
}

void KernelBody::forEachWorkItem(
    OpBuilder &b, Location loc, Value count,
    function_ref<void(OpBuilder &, Location, Value)> body) {
  Value cta = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value thread = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value block = arith::ConstantIndexOp::create(b, loc, blockSize);
  Value first = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, cta, block), thread);
  Value step = arith::ConstantIndexOp::create(b, loc, gridSize * blockSize);
  scf::ForOp::create(
      b, loc, first, count, step, ValueRange(),
      [&](OpBuilder &nested, Location nestedLoc, Value item, ValueRange) {
        body(nested, nestedLoc, item);
        scf::YieldOp::create(nested, nestedLoc);
      });
}

void KernelBody::onLeadThread(OpBuilder &b, Location loc, bool wholeGrid,
                              function_ref<void(OpBuilder &, Location)> body) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value thread = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value lead =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, thread, zero);
  if (wholeGrid) {
    Value cta = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
    Value firstCta =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, cta, zero);
    lead = arith::AndIOp::create(b, loc, lead, firstCta);
    // A grid of one row of CTAs needs no test of y: block ids stay as the
    // one-dimensional kernels always generated them.
    if (gridY > 1) {
      Value ctaY = gpu::BlockIdOp::create(b, loc, gpu::Dimension::y);
      Value firstRow =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, ctaY, zero);
      lead = arith::AndIOp::create(b, loc, lead, firstRow);
    }
  }
  scf::IfOp::create(b, loc, lead, [&](OpBuilder &nested, Location nestedLoc) {
    body(nested, nestedLoc);
    scf::YieldOp::create(nested, nestedLoc);
  });
}

//===----------------------------------------------------------------------===//
// Kernel bodies
//===----------------------------------------------------------------------===//

void mlir::lamport::expectClusterBytes(OpBuilder &b, Location loc, Value isLead,
                                       ArrayRef<Value> barriers,
                                       int64_t bytes) {
  auto lead = scf::IfOp::create(b, loc, isLead, /*withElseRegion=*/false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&lead.getThenRegion().front());
    for (Value barrier : barriers)
      ClusterExpectBytesOp::create(b, loc, barrier, bytes);
    NVVM::FenceMbarrierInitOp::create(b, loc);
  }
  // Release: a peer that has waited on the cluster barrier sees every
  // barrier initialized before it sends into it.
  NVVM::ClusterArriveOp::create(b, loc, UnitAttr());
}

Value mlir::lamport::getGlobalPointer(OpBuilder &b, Location loc,
                                      Value memref) {
  Value address =
      memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  Value asInt = arith::IndexCastUIOp::create(b, loc, b.getI64Type(), address);
  return LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext(), 1), asInt);
}

/// A 16-byte aligned address-space-3 array of `elements` `elementType` at
/// the top of `module`, with `linkage`.
static LLVM::GlobalOp createSharedGlobal(OpBuilder &b, Location loc,
                                         gpu::GPUModuleOp module,
                                         StringRef name, Type elementType,
                                         int64_t elements,
                                         LLVM::Linkage linkage) {
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(module.getBody());
  auto type = LLVM::LLVMArrayType::get(elementType, elements);
  return LLVM::GlobalOp::create(b, loc, type, /*isConstant=*/false, linkage,
                                name, Attribute(),
                                /*alignment=*/16, /*addrSpace=*/3);
}

LLVM::GlobalOp mlir::lamport::createSharedArray(OpBuilder &b, Location loc,
                                                gpu::GPUModuleOp module,
                                                StringRef name,
                                                Type elementType,
                                                int64_t elements) {
  return createSharedGlobal(b, loc, module, name, elementType, elements,
                            LLVM::Linkage::Internal);
}

LLVM::GlobalOp mlir::lamport::createDynamicSharedArray(OpBuilder &b,
                                                       Location loc,
                                                       gpu::GPUModuleOp module,
                                                       StringRef name,
                                                       Type elementType) {
  // Unsized and external: PTX's `.extern .shared` array, whose bytes are
  // the launch's dynamic shared memory.
  return createSharedGlobal(b, loc, module, name, elementType, 0,
                            LLVM::Linkage::External);
}

std::pair<Value, Value> mlir::lamport::getRowAndColumn(OpBuilder &b,
                                                       Location loc, Value item,
                                                       int64_t width) {
  Value fragmentsPerRow = arith::ConstantIndexOp::create(
      b, loc, width / LamportDialect::kFragmentLanes);
  Value lanes =
      arith::ConstantIndexOp::create(b, loc, LamportDialect::kFragmentLanes);
  Value row = arith::DivUIOp::create(b, loc, item, fragmentsPerRow);
  Value fragment = arith::RemUIOp::create(b, loc, item, fragmentsPerRow);
  Value col = arith::MulIOp::create(b, loc, fragment, lanes);
  return {row, col};
}

Value mlir::lamport::sumPartials(OpBuilder &b, Location loc,
                                 ArrayRef<Value> partials, SumOrder order) {
  if (order == SumOrder::rank_ascending) {
    Value sum = partials.front();
    for (Value partial : partials.drop_front())
      sum = arith::AddFOp::create(b, loc, sum, partial);
    return sum;
  }
  SmallVector<Value> level(partials);
  while (level.size() > 1) {
    SmallVector<Value> next;
    for (size_t i = 0; i + 1 < level.size(); i += 2)
      next.push_back(arith::AddFOp::create(b, loc, level[i], level[i + 1]));
    if (level.size() % 2)
      next.push_back(level.back());
    level = std::move(next);
  }
  return level.front();
}

/// Most fragments one lamport.mailbox.poll waits for.
static constexpr int64_t kMaxPollFragments = 32;

SmallVector<Value>
mlir::lamport::pollEverySlot(OpBuilder &b, Location loc, Value mailbox,
                             Value stage, Value row, Value col,
                             std::optional<uint64_t> timeoutNs) {
  auto type = cast<MailboxType>(mailbox.getType());
  int64_t tp = type.getTp();
  Value slotStride =
      arith::ConstantIndexOp::create(b, loc, type.getSlotElements());
  IntegerAttr timeout =
      timeoutNs ? b.getI64IntegerAttr(int64_t(*timeoutNs)) : IntegerAttr();
  SmallVector<Value> fragments;
  // All of a poll's loads issue before its first check, so one poll per 32
  // ranks keeps every rank's load in flight at once.
  for (int64_t first = 0; first < tp; first += kMaxPollFragments) {
    int64_t count = std::min(kMaxPollFragments, tp - first);
    auto resultType = VectorType::get(
        {count, int64_t(LamportDialect::kFragmentLanes)}, b.getBF16Type());
    Value slot = arith::ConstantIntOp::create(b, loc, first, 32);
    Value polled = MailboxPollOp::create(b, loc, resultType, mailbox, stage,
                                         slot, row, col, slotStride, timeout);
    for (int64_t i = 0; i < count; ++i)
      fragments.push_back(vector::ExtractOp::create(b, loc, polled, i));
  }
  return fragments;
}

void mlir::lamport::rearmEverySlot(OpBuilder &b, Location loc, Value mailbox,
                                   Value stage, Value row, Value col) {
  auto type = cast<MailboxType>(mailbox.getType());
  int64_t tp = type.getTp();
  Value slotStride =
      arith::ConstantIndexOp::create(b, loc, type.getSlotElements());
  for (int64_t first = 0; first < tp; first += kMaxPollFragments) {
    int64_t count = std::min(kMaxPollFragments, tp - first);
    Value slot = arith::ConstantIntOp::create(b, loc, first, 32);
    MailboxRearmOp::create(b, loc, mailbox, stage, slot, row, col, slotStride,
                           b.getI64IntegerAttr(count), DenseI64ArrayAttr());
  }
}

//===----------------------------------------------------------------------===//
// Kernel signature and launch
//===----------------------------------------------------------------------===//

FailureOr<MemRefType>
mlir::lamport::getKernelBufferType(Operation *op, StringRef name,
                                   MemRefType type, unsigned tokensDim,
                                   int64_t capacity, bool flat) {
  if (!type.getLayout().isIdentity())
    return op->emitOpError()
           << "has no kernel for " << name << " " << type
           << ": a kernel indexes its buffers as dense row-major memrefs, so "
              "the layout must be the identity";
  if (Attribute space = type.getMemorySpace()) {
    auto integer = dyn_cast<IntegerAttr>(space);
    if (!integer || integer.getInt() != kGlobalAddressSpace)
      return op->emitOpError()
             << "has no kernel for " << name << " " << type
             << ": a buffer lives in the default or the global (1) address "
                "space";
  }
  SmallVector<int64_t> shape(type.getShape());
  for (auto [dim, size] : llvm::enumerate(shape)) {
    if (dim == tokensDim)
      size = capacity;
    else if (ShapedType::isDynamic(size))
      return op->emitOpError() << "has no kernel for " << name << " " << type
                               << ": only the token dimension may be dynamic";
  }
  if (flat)
    shape = {ShapedType::getNumElements(shape)};
  return MemRefType::get(
      shape, type.getElementType(), MemRefLayoutAttrInterface(),
      IntegerAttr::get(IntegerType::get(op->getContext(), 64),
                       kGlobalAddressSpace));
}

/// A symbol name `family_N` not yet used in `module`.
static std::string uniqueKernelName(ModuleOp module, StringRef family) {
  for (unsigned n = 0;; ++n) {
    std::string name = (family + "_" + Twine(n)).str();
    if (!SymbolTable::lookupSymbolIn(module, name))
      return name;
  }
}

/// The program-side value passed for a buffer parameter: `value` viewed as
/// `kernelType` (same base pointer, static shape, global address space).
static Value castToKernelView(OpBuilder &b, Location loc, Value value,
                              MemRefType kernelType) {
  auto type = cast<MemRefType>(value.getType());
  if (type.getShape() != kernelType.getShape()) {
    // reinterpret_cast, not memref.cast: the kernel views capacity rows of a
    // buffer that holds M of them, and touches only the first M.
    SmallVector<int64_t> strides(kernelType.getRank(), 1);
    for (int64_t dim = kernelType.getRank() - 2; dim >= 0; --dim)
      strides[dim] = strides[dim + 1] * kernelType.getDimSize(dim + 1);
    auto viewType =
        MemRefType::get(kernelType.getShape(), type.getElementType(),
                        MemRefLayoutAttrInterface(), type.getMemorySpace());
    value = memref::ReinterpretCastOp::create(
        b, loc, viewType, value, /*offset=*/0, kernelType.getShape(), strides);
  }
  if (cast<MemRefType>(value.getType()) != kernelType)
    value = memref::MemorySpaceCastOp::create(b, loc, kernelType, value);
  return value;
}

gpu::GPUFuncOp
mlir::lamport::createKernel(Operation *op, const KernelSignature &signature,
                            const KernelGenerationOptions &options,
                            const KernelBodyBuilder &buildBody) {
  MLIRContext *ctx = op->getContext();
  Location loc = op->getLoc();
  auto module = op->getParentOfType<ModuleOp>();

  // Launch shape: the family's own, or enough threads for every work item at
  // M = capacity, in whole warps, capped so that each rank's kernels leave
  // room on the GPU.
  int64_t gridSize, gridY = 1, blockSize;
  if (signature.launch) {
    gridSize = signature.launch->gridX;
    gridY = signature.launch->gridY;
    blockSize = signature.launch->blockSize;
  } else {
    int64_t items = std::max<int64_t>(signature.workItemsAtCapacity, 1);
    blockSize =
        std::min<int64_t>(options.threadsPerCta, llvm::alignTo(items, 32));
    gridSize =
        std::min<int64_t>(options.maxCtas, llvm::divideCeil(items, blockSize));
  }

  // Signature: the mailbox (if any), buffers, tokens.
  OpBuilder b(ctx);
  bool hasMailbox = bool(signature.mailbox);
  SmallVector<Type> inputs;
  if (hasMailbox)
    inputs.push_back(signature.mailbox.getType());
  for (const KernelBuffer &buffer : signature.buffers)
    inputs.push_back(buffer.kernelType);
  for (size_t i = 0; i < signature.tensorMaps.size(); ++i)
    inputs.push_back(LLVM::LLVMPointerType::get(ctx));
  inputs.push_back(b.getI32Type());

  std::string name = uniqueKernelName(module, signature.family);
  b.setInsertionPointToEnd(module.getBody());
  auto kernelModule = gpu::GPUModuleOp::create(b, loc, name);
  b.setInsertionPointToStart(kernelModule.getBody());
  auto func =
      gpu::GPUFuncOp::create(b, loc, name, b.getFunctionType(inputs, {}));
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  func.setKnownBlockSizeAttr(
      b.getDenseI32ArrayAttr({int32_t(blockSize), 1, 1}));
  func.setKnownGridSizeAttr(
      b.getDenseI32ArrayAttr({int32_t(gridSize), int32_t(gridY), 1}));
  func->setAttr(kOpAttr, b.getStringAttr(signature.family));
  func->setAttr(kAttributesAttr, b.getDictionaryAttr(signature.attributes));
  if (signature.pdl)
    func->setAttr(kPdlAttr, b.getUnitAttr());
  unsigned firstBuffer = hasMailbox ? 1 : 0;
  if (hasMailbox)
    func.setArgAttr(0, kParamAttr, b.getStringAttr("mailbox"));
  for (auto [i, buffer] : llvm::enumerate(signature.buffers)) {
    func.setArgAttr(firstBuffer + i, kParamAttr, b.getStringAttr("buffer"));
    func.setArgAttr(firstBuffer + i, kIoAttr, b.getStringAttr(buffer.io));
    if (!buffer.role.empty())
      func.setArgAttr(firstBuffer + i, kRoleAttr, b.getStringAttr(buffer.role));
  }
  // A tensor map is passed by value, 64-byte aligned, and addressed where
  // it lies (the lowering makes it a grid-constant byval parameter).
  unsigned firstMap = firstBuffer + signature.buffers.size();
  SmallVector<int64_t> mapArguments;
  for (auto [i, map] : llvm::enumerate(signature.tensorMaps)) {
    unsigned arg = firstMap + i;
    func.setArgAttr(arg, kParamAttr, b.getStringAttr("tensor_map"));
    func.setArgAttr(arg, LamportDialect::TensorOfAttrHelper::getNameStr(),
                    b.getI64IntegerAttr(firstBuffer + map.buffer));
    func.setArgAttr(arg, LamportDialect::BoxAttrHelper::getNameStr(),
                    b.getDenseI64ArrayAttr({map.boxInner, map.boxOuter}));
    func.setArgAttr(arg, LLVM::LLVMDialect::getAlignAttrName(),
                    b.getI64IntegerAttr(64));
    mapArguments.push_back(arg);
  }
  if (!mapArguments.empty())
    func->setAttr(LamportDialect::TensorMapArgsAttrHelper::getNameStr(),
                  b.getDenseI64ArrayAttr(mapArguments));
  func.setArgAttr(inputs.size() - 1, kParamAttr, b.getStringAttr("tokens"));

  KernelBody body(func, gridSize, gridY, blockSize, hasMailbox,
                  signature.tensorMaps.size());
  b.setInsertionPointToStart(&func.getBody().front());
  buildBody(b, loc, body);
  gpu::ReturnOp::create(b, loc);
  module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                  b.getUnitAttr());
  return func;
}

void mlir::lamport::createLaunch(OpBuilder &b, Location loc,
                                 const KernelSignature &signature,
                                 gpu::GPUFuncOp func) {
  int64_t gridSize = (*func.getKnownGridSize())[0];
  int64_t gridY = (*func.getKnownGridSize())[1];
  int64_t blockSize = (*func.getKnownBlockSize())[0];
  int64_t clusterY = signature.launch ? signature.launch->clusterY : 1;
  bool hasMailbox = bool(signature.mailbox);
  // The launch shape createKernel fixed, read back from the kernel.
  SmallVector<Value> operands;
  if (hasMailbox)
    operands.push_back(signature.mailbox);
  for (const KernelBuffer &buffer : signature.buffers)
    operands.push_back(
        castToKernelView(b, loc, buffer.value, buffer.kernelType));
  // The runtime encodes each tensor map from its buffer; the program passes
  // a placeholder.
  for (size_t i = 0; i < signature.tensorMaps.size(); ++i)
    operands.push_back(LLVM::ZeroOp::create(
        b, loc, LLVM::LLVMPointerType::get(b.getContext())));
  auto tokensType = cast<MemRefType>(signature.tokensBuffer.getType());
  Value tokens;
  if (tokensType.isDynamicDim(signature.tokensDim)) {
    Value m = memref::DimOp::create(b, loc, signature.tokensBuffer,
                                    signature.tokensDim);
    tokens = arith::IndexCastUIOp::create(b, loc, b.getI32Type(), m);
  } else {
    tokens = arith::ConstantIntOp::create(
        b, loc, tokensType.getDimSize(signature.tokensDim), 32);
  }
  operands.push_back(tokens);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  auto dim = [&](int64_t size) -> Value {
    return size == 1 ? one : arith::ConstantIndexOp::create(b, loc, size);
  };
  Value gridYValue = dim(gridY);
  gpu::KernelDim3 grid = {arith::ConstantIndexOp::create(b, loc, gridSize),
                          gridYValue, one};
  gpu::KernelDim3 block = {arith::ConstantIndexOp::create(b, loc, blockSize),
                           one, one};
  std::optional<gpu::KernelDim3> cluster;
  if (clusterY > 1)
    cluster = gpu::KernelDim3{
        one, clusterY == gridY ? gridYValue : dim(clusterY), one};
  Value dynamicShared;
  if (signature.launch && signature.launch->dynamicSharedBytes > 0)
    dynamicShared = arith::ConstantIntOp::create(
        b, loc, signature.launch->dynamicSharedBytes, 32);
  auto launch = gpu::LaunchFuncOp::create(
      b, loc, func, grid, block, dynamicShared, operands,
      /*asyncTokenType=*/Type(),
      /*asyncDependencies=*/ValueRange(), cluster);
  // What host code needs to encode each tensor map (the kernel's own
  // attributes are gone once it is a binary): its operand, its buffer's
  // operand and its box.
  if (!signature.tensorMaps.empty()) {
    SmallVector<int64_t> maps;
    unsigned firstMap = (hasMailbox ? 1 : 0) + signature.buffers.size();
    for (auto [i, map] : llvm::enumerate(signature.tensorMaps))
      maps.append({int64_t(firstMap + i),
                   int64_t((hasMailbox ? 1 : 0) + map.buffer), map.boxInner,
                   map.boxOuter});
    launch->setAttr(LamportDialect::TensorMapsAttrHelper::getNameStr(),
                    b.getDenseI64ArrayAttr(maps));
  }
}

LogicalResult
mlir::lamport::generateKernel(Operation *op, const KernelSignature &signature,
                              const KernelGenerationOptions &options,
                              const KernelBodyBuilder &buildBody) {
  gpu::GPUFuncOp func = createKernel(op, signature, options, buildBody);
  // The launch, in the program, where the op was.
  OpBuilder b(op);
  createLaunch(b, op->getLoc(), signature, func);
  op->erase();
  return success();
}

LogicalResult mlir::lamport::generateConsumerKernel(
    Operation *op, const KernelSignature &signature,
    const KernelGenerationOptions &options, ConsumerBodyBuilder consume) {
  return generateKernel(
      op, signature, options,
      [&](OpBuilder &b, Location loc, KernelBody &kernel) {
        Value mailbox = kernel.getMailbox();
        if (signature.pdl)
          NVVM::GriddepcontrolOp::create(b, loc, NVVM::GridDepActionKind::wait);
        Value stage = StageActiveOp::create(b, loc, b.getI32Type(), mailbox);
        consume(b, loc, kernel, stage);
        kernel.onLeadThread(b, loc, /*wholeGrid=*/true,
                            [&](OpBuilder &b, Location loc) {
                              StageAdvanceOp::create(b, loc, mailbox, stage);
                            });
        if (signature.pdl)
          NVVM::GriddepcontrolOp::create(
              b, loc, NVVM::GridDepActionKind::launch_dependents);
      });
}

LogicalResult mlir::lamport::addProgramBuffers(ProgramOpInterface op,
                                               int64_t capacity,
                                               KernelSignature &signature) {
  SmallVector<BufferRole> roles;
  op.getBufferRoles(roles);
  for (const BufferRole &role : roles) {
    // A buffer without a token dimension keeps its shape: no dimension is
    // replaced by the capacity.
    unsigned tokensDim = role.tokensDim.value_or(~0u);
    bool flat = role.tokensDim.value_or(0) != 0;
    FailureOr<MemRefType> type = getKernelBufferType(
        op, role.role, cast<MemRefType>(role.buffer.getType()), tokensDim,
        capacity, flat);
    if (failed(type))
      return failure();
    signature.buffers.push_back(
        {role.buffer, *type, stringifyBufferAccess(role.access), role.role});
  }
  return success();
}
