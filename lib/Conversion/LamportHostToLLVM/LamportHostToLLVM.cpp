//===- LamportHostToLLVM.cpp - Host side of programs to C API calls -------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// The lamport-lower-host pass. A program function after
// lamport-generate-kernels holds gpu.launch_func ops whose operands are
// mailboxes, views of the program's buffers and the token count. Mailbox
// arguments become runtime handles (!llvm.ptr); each launch takes its
// mailbox's descriptor by value from lamportMailboxDescriptor, its buffers
// as bare pointers, and the rank's stream from lamportMailboxStream as its
// async object. Nothing lamport is left on the host: upstream's gpu-to-llvm
// and convert-to-llvm finish the lowering (docs/c-api.md, host ABI).
//
//===----------------------------------------------------------------------===//

#include "lamport/Conversion/LamportHostToLLVM/LamportHostToLLVM.h"
#include "lamport/Conversion/LamportToNVVM/LamportToNVVM.h"
#include "lamport/Dialect/Lamport/IR/Lamport.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::lamport {
#define GEN_PASS_DEF_LOWERLAMPORTHOSTPASS
#include "lamport/Conversion/Passes.h.inc"
} // namespace mlir::lamport

using namespace mlir;
using namespace mlir::lamport;

namespace {

/// The C API functions a lowered function calls, declared in its module.
struct RuntimeFunctions {
  LLVM::LLVMFuncOp descriptor;
  LLVM::LLVMFuncOp stream;
};

/// `name` declared with `type` at the top of `module`, or the declaration
/// already there when it has that type.
FailureOr<LLVM::LLVMFuncOp> declare(ModuleOp module, StringRef name,
                                    LLVM::LLVMFunctionType type,
                                    Operation *user) {
  Operation *existing = module.lookupSymbol(name);
  if (auto function = dyn_cast_or_null<LLVM::LLVMFuncOp>(existing)) {
    if (function.getFunctionType() == type)
      return function;
    InFlightDiagnostic diag =
        user->emitOpError()
        << "needs the C API function '" << name << "' of type " << type
        << ", but the module declares it as " << function.getFunctionType();
    diag.attachNote(function.getLoc()) << "the module's declaration";
    return diag;
  }
  if (existing) {
    InFlightDiagnostic diag =
        user->emitOpError()
        << "needs the C API function '" << name
        << "', but the module has another symbol of that name";
    diag.attachNote(existing->getLoc()) << "the other symbol";
    return diag;
  }
  auto builder = OpBuilder::atBlockBegin(module.getBody());
  return LLVM::LLVMFuncOp::create(builder, module.getLoc(), name, type);
}

FailureOr<RuntimeFunctions> declareRuntimeFunctions(func::FuncOp func) {
  auto module = func->getParentOfType<ModuleOp>();
  if (!module)
    return func.emitOpError() << "is not in a module";
  MLIRContext *ctx = func.getContext();
  auto ptr = LLVM::LLVMPointerType::get(ctx);
  auto i32 = IntegerType::get(ctx, 32);
  RuntimeFunctions functions;
  auto descriptor =
      declare(module, kMailboxDescriptorFunction,
              LLVM::LLVMFunctionType::get(ptr, {ptr, i32, i32, i32}), func);
  auto stream = declare(module, kMailboxStreamFunction,
                        LLVM::LLVMFunctionType::get(ptr, {ptr}), func);
  if (failed(descriptor) || failed(stream))
    return failure();
  return RuntimeFunctions{*descriptor, *stream};
}

/// The LLVM address space of a launch operand's memref: device memory
/// only.
FailureOr<unsigned> addressSpaceOf(MemRefType type, Operation *launch) {
  Attribute space = type.getMemorySpace();
  if (!space)
    return 0u;
  // The default space of a program's buffers, or the kernels' global one.
  if (auto integer = dyn_cast<IntegerAttr>(space))
    if (integer.getInt() == 0 || integer.getInt() == 1)
      return unsigned(integer.getInt());
  if (auto gpuSpace = dyn_cast<gpu::AddressSpaceAttr>(space))
    if (gpuSpace.getValue() == gpu::AddressSpace::Global)
      return 1u;
  return launch->emitOpError()
         << "passes a memref in memory space " << space
         << ", which a kernel cannot take as a global pointer";
}

/// The bare pointer a kernel takes for `memref` (the bundle ABI, and what
/// convert-gpu-to-nvvm's bare-pointer convention gave the kernel): its
/// aligned pointer advanced by its offset.
FailureOr<Value> barePointer(OpBuilder &b, Location loc, Value memref,
                             Operation *launch) {
  auto type = cast<MemRefType>(memref.getType());
  int64_t offset = 0;
  SmallVector<int64_t> strides;
  if (failed(type.getStridesAndOffset(strides, offset)) ||
      type.getElementTypeBitWidth() % 8)
    return launch->emitOpError()
           << "passes " << type
           << ", which has no strided layout of whole bytes to pass as a "
              "pointer";
  FailureOr<unsigned> space = addressSpaceOf(type, launch);
  if (failed(space))
    return failure();
  Type i64 = b.getI64Type();
  Value aligned =
      memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  Value address = arith::IndexCastOp::create(b, loc, i64, aligned);
  if (offset != 0) {
    Value elements;
    if (ShapedType::isDynamic(offset)) {
      auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, memref);
      elements = arith::IndexCastOp::create(b, loc, i64, metadata.getOffset());
    } else {
      elements = arith::ConstantIntOp::create(b, loc, i64, offset);
    }
    Value bytes = arith::MulIOp::create(
        b, loc, elements,
        arith::ConstantIntOp::create(b, loc, i64,
                                     type.getElementTypeBitWidth() / 8));
    address = arith::AddIOp::create(b, loc, address, bytes);
  }
  return LLVM::IntToPtrOp::create(
             b, loc, LLVM::LLVMPointerType::get(b.getContext(), *space),
             address)
      .getResult();
}

/// Rewrites one launch: descriptors by value, bare pointers, and the rank's
/// stream. `mailboxes` maps each mailbox argument to its type (the
/// arguments are runtime handles already).
LogicalResult lowerLaunch(gpu::LaunchFuncOp launch,
                          const DenseMap<Value, MailboxType> &mailboxes,
                          Value firstMailbox,
                          const RuntimeFunctions &functions) {
  if (launch.getAsyncObject() || launch.getAsyncToken() ||
      !launch.getAsyncDependencies().empty())
    return launch.emitOpError()
           << "is asynchronous already: lamport-lower-host puts every launch "
              "of a program on its rank's stream";
  if (SymbolTable::lookupNearestSymbolFrom<gpu::GPUFuncOp>(
          launch, launch.getKernelAttr()))
    return launch.emitOpError()
           << "launches a kernel that is still a gpu.func: lower the "
              "kernels first (lamport-lower-to-nvvm), since the launch then "
              "passes the parameters of the lowered kernel";
  OpBuilder b(launch);
  Location loc = launch.getLoc();
  Type i32 = b.getI32Type();
  Value streamSource;
  // Tensor map operands: (operand, its buffer's operand, box), from
  // lamport-generate-kernels.
  DenseMap<unsigned, std::array<int64_t, 3>> tensorMaps;
  if (auto maps = launch->getAttrOfType<DenseI64ArrayAttr>(
          LamportDialect::TensorMapsAttrHelper::getNameStr()))
    for (int64_t i = 0; i + 3 < maps.size(); i += 4)
      tensorMaps[maps[i]] = {maps[i + 1], maps[i + 2], maps[i + 3]};
  for (Value operand : launch.getKernelOperands())
    if (!streamSource && mailboxes.count(operand))
      streamSource = operand;
  SmallVector<Value> operands;
  for (auto [index, operand] : llvm::enumerate(launch.getKernelOperands())) {
    if (auto map = tensorMaps.find(index); map != tensorMaps.end()) {
      // The 128 bytes of the buffer's tensor map, encoded by the runtime
      // from its address now, by value.
      auto [of, boxInner, boxOuter] = map->second;
      Value buffer = launch.getKernelOperands()[of];
      auto type = dyn_cast<MemRefType>(buffer.getType());
      if (!type || type.getRank() != 2 || !type.hasStaticShape())
        return launch.emitOpError()
               << "passes a tensor map of operand " << of
               << ", which is not a 2-D memref of static shape";
      FailureOr<Value> pointer = barePointer(b, loc, buffer, launch);
      if (failed(pointer))
        return failure();
      auto ptr = LLVM::LLVMPointerType::get(b.getContext());
      Type i64 = b.getI64Type();
      FailureOr<LLVM::LLVMFuncOp> encode = declare(
          launch->getParentOfType<ModuleOp>(), kTensorMapFunction,
          LLVM::LLVMFunctionType::get(ptr, {ptr, ptr, i64, i64, i32, i32}),
          launch);
      if (failed(encode))
        return failure();
      auto constant = [&](Type type, int64_t value) -> Value {
        return LLVM::ConstantOp::create(b, loc, type, value);
      };
      Value address = *pointer;
      if (address.getType() != ptr)
        address = LLVM::AddrSpaceCastOp::create(b, loc, ptr, address);
      Value bytes =
          LLVM::CallOp::create(
              b, loc, *encode,
              ValueRange{streamSource ? streamSource : firstMailbox, address,
                         constant(i64, type.getDimSize(0)),
                         constant(i64, type.getDimSize(1)),
                         constant(i32, boxInner), constant(i32, boxOuter)})
              .getResult();
      operands.push_back(LLVM::LoadOp::create(
          b, loc, LLVM::LLVMArrayType::get(i64, 16), bytes, /*alignment=*/8));
      continue;
    }
    auto mailbox = mailboxes.find(operand);
    if (mailbox != mailboxes.end()) {
      MailboxType type = mailbox->second;
      auto constant = [&](int64_t value) -> Value {
        return LLVM::ConstantOp::create(b, loc, i32, value);
      };
      Value bytes =
          LLVM::CallOp::create(b, loc, functions.descriptor,
                               ValueRange{operand, constant(type.getTp()),
                                          constant(type.getCapacity()),
                                          constant(type.getWidth())})
              .getResult();
      operands.push_back(LLVM::LoadOp::create(
          b, loc, getMailboxDescriptorType(type), bytes, /*alignment=*/8));
      continue;
    }
    if (isa<MemRefType>(operand.getType())) {
      FailureOr<Value> pointer = barePointer(b, loc, operand, launch);
      if (failed(pointer))
        return failure();
      operands.push_back(*pointer);
      continue;
    }
    operands.push_back(operand);
  }
  // A launch without a mailbox runs on the rank of the function's first.
  Value stream = LLVM::CallOp::create(
                     b, loc, functions.stream,
                     ValueRange{streamSource ? streamSource : firstMailbox})
                     .getResult();
  // Dimensions as i64 leave the launch legal for gpu-to-llvm, which then
  // keeps it, and its stream, for the translation to mgpuLaunchKernel; a
  // launch with index operands it rebuilds without the stream.
  auto toI64 = [&](Value value) -> Value {
    if (!value || !value.getType().isIndex())
      return value;
    return arith::IndexCastOp::create(b, loc, b.getI64Type(), value);
  };
  auto dimensions = [&](gpu::KernelDim3 d) {
    return gpu::KernelDim3{toI64(d.x), toI64(d.y), toI64(d.z)};
  };
  gpu::KernelDim3 grid = dimensions(launch.getGridSizeOperandValues());
  gpu::KernelDim3 block = dimensions(launch.getBlockSizeOperandValues());
  std::optional<gpu::KernelDim3> cluster;
  if (launch.hasClusterSize())
    cluster = dimensions(launch.getClusterSizeOperandValues());
  gpu::LaunchFuncOp::create(b, loc, launch.getKernelAttr(), grid, block,
                            launch.getDynamicSharedMemorySize(), operands,
                            stream, cluster);
  launch.erase();
  return success();
}

/// Every mailbox value of `func` must be an entry argument, taken only by
/// launches and calls.
LogicalResult checkMailboxUses(func::FuncOp func) {
  Block &entry = func.front();
  WalkResult result =
      func.walk([&](Operation *op) {
        auto isMailbox = [](Value v) { return isa<MailboxType>(v.getType()); };
        if (llvm::any_of(op->getResults(), isMailbox)) {
          op->emitOpError() << "makes a mailbox on the host; a program takes "
                               "its mailboxes as arguments";
          return WalkResult::interrupt();
        }
        for (Region &region : op->getRegions())
          for (Block &block : region)
            if (&block != &entry &&
                llvm::any_of(block.getArguments(), isMailbox)) {
              op->emitOpError() << "has a block argument that is a mailbox; a "
                                   "program takes its mailboxes as arguments";
              return WalkResult::interrupt();
            }
        if (!llvm::any_of(op->getOperands(), isMailbox))
          return WalkResult::advance();
        if (!isa<gpu::LaunchFuncOp, func::CallOp>(op)) {
          op->emitOpError()
              << "takes a mailbox on the host, where only kernel launches and "
                 "calls may (lamport-generate-kernels turns program-level ops "
                 "into launches first)";
          return WalkResult::interrupt();
        }
        return WalkResult::advance();
      });
  return failure(result.wasInterrupted());
}

/// `type` with every mailbox replaced by `ptr`.
SmallVector<Type> withHandles(TypeRange types, Type ptr) {
  SmallVector<Type> converted;
  for (Type type : types)
    converted.push_back(isa<MailboxType>(type) ? ptr : type);
  return converted;
}

} // namespace

LogicalResult mlir::lamport::lowerLamportHostFunction(func::FuncOp func,
                                                      bool emitCInterface) {
  FunctionType type = func.getFunctionType();
  if (!llvm::any_of(type.getInputs(), llvm::IsaPred<MailboxType>))
    return success();
  if (llvm::any_of(type.getResults(), llvm::IsaPred<MailboxType>))
    return func.emitOpError() << "returns a mailbox; a program takes its "
                                 "mailboxes as arguments";
  auto ptr = LLVM::LLVMPointerType::get(func.getContext());
  auto handles = FunctionType::get(
      func.getContext(), withHandles(type.getInputs(), ptr), type.getResults());
  if (func.isExternal()) {
    func.setType(handles);
    return success();
  }
  if (failed(checkMailboxUses(func)))
    return failure();
  SmallVector<gpu::LaunchFuncOp> launches;
  func.walk([&](gpu::LaunchFuncOp launch) { launches.push_back(launch); });
  FailureOr<RuntimeFunctions> functions = RuntimeFunctions{};
  if (!launches.empty())
    functions = declareRuntimeFunctions(func);
  if (failed(functions))
    return failure();

  DenseMap<Value, MailboxType> mailboxes;
  Value firstMailbox;
  for (BlockArgument argument : func.getArguments())
    if (auto mailbox = dyn_cast<MailboxType>(argument.getType())) {
      mailboxes[argument] = mailbox;
      if (!firstMailbox)
        firstMailbox = argument;
      argument.setType(ptr);
    }
  func.setType(handles);
  for (gpu::LaunchFuncOp launch : launches)
    if (failed(lowerLaunch(launch, mailboxes, firstMailbox, *functions)))
      return failure();
  if (emitCInterface)
    func->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                  UnitAttr::get(func.getContext()));
  return success();
}

namespace {

struct LowerLamportHostPass
    : public lamport::impl::LowerLamportHostPassBase<LowerLamportHostPass> {
  using LowerLamportHostPassBase::LowerLamportHostPassBase;

  void runOnOperation() override {
    for (auto func :
         llvm::make_early_inc_range(getOperation().getOps<func::FuncOp>()))
      if (failed(lowerLamportHostFunction(func, emitCInterface)))
        return signalPassFailure();
  }
};

} // namespace
