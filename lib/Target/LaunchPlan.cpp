//===- LaunchPlan.cpp - Read the launch plan off a program ----------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// After lamport-generate-kernels a program is a sequence of gpu.launch_func
// ops of generated kernels, plus the casts and dims that bind their
// parameters to the program's arguments. This file reads that into a
// LaunchPlan: which argument each parameter takes, the launch shapes, and
// what each kernel does to each buffer.
//
//===----------------------------------------------------------------------===//

#include "lamport/Target/LaunchPlan.h"

#include "lamport/Dialect/Lamport/IR/Lamport.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/CheckedArithmetic.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::lamport;

/// Bytes of the mailbox descriptor's fixed fields before the peers table
/// (docs/bundle.md).
static constexpr unsigned kDescriptorHeaderBytes = 40;

/// Whether `op` is a program-level lamport op: one that works on whole
/// buffers of a decode step and becomes a kernel.
static bool isProgramLevelOp(Operation *op) {
  return isa<ProgramOpInterface>(op);
}

SmallVector<func::FuncOp> mlir::lamport::getPrograms(Operation *module) {
  SmallVector<func::FuncOp> programs;
  module->walk([&](func::FuncOp func) {
    bool isProgram = false;
    func.walk([&](Operation *op) {
      if (isProgramLevelOp(op) || isa<gpu::LaunchFuncOp>(op)) {
        isProgram = true;
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (isProgram)
      programs.push_back(func);
  });
  return programs;
}

/// The element type name of a bundle buffer, or an empty string.
static StringRef getDtype(Type type) {
  if (type.isBF16())
    return "bf16";
  if (type.isF32())
    return "f32";
  if (type.isSignlessInteger(32))
    return "i32";
  return "";
}

/// An attribute of a program-level op as JSON: enums by their keyword,
/// numbers as numbers.
static llvm::json::Value toJson(Attribute attr) {
  if (auto transport = dyn_cast<TransportAttr>(attr))
    return stringifyTransport(transport.getValue()).str();
  if (auto order = dyn_cast<SumOrderAttr>(attr))
    return stringifySumOrder(order.getValue()).str();
  if (auto integer = dyn_cast<IntegerAttr>(attr))
    return integer.getValue().getSExtValue();
  if (auto real = dyn_cast<FloatAttr>(attr))
    return real.getValueAsDouble();
  if (auto boolean = dyn_cast<BoolAttr>(attr))
    return boolean.getValue();
  if (isa<UnitAttr>(attr))
    return true;
  if (auto string = dyn_cast<StringAttr>(attr))
    return string.getValue().str();
  std::string printed;
  llvm::raw_string_ostream os(printed);
  attr.print(os);
  return printed;
}

/// The program argument a launch operand is, looking through the views
/// lamport-generate-kernels puts between them; null where it is none.
static BlockArgument getProgramArgument(Value value, func::FuncOp program) {
  while (Operation *def = value.getDefiningOp()) {
    if (auto cast = dyn_cast<memref::MemorySpaceCastOp>(def))
      value = cast.getSource();
    else if (auto cast = dyn_cast<memref::ReinterpretCastOp>(def))
      value = cast.getSource();
    else if (auto cast = dyn_cast<memref::CastOp>(def))
      value = cast.getSource();
    else
      return nullptr;
  }
  auto argument = dyn_cast<BlockArgument>(value);
  if (!argument || argument.getOwner() != &program.getBody().front())
    return nullptr;
  return argument;
}

/// The constant sizes of a launch dimension triple, or a diagnostic.
static FailureOr<std::array<int64_t, 3>>
getConstantDims(gpu::LaunchFuncOp launch, StringRef what, Value x, Value y,
                Value z) {
  std::array<int64_t, 3> dims;
  std::array<Value, 3> values = {x, y, z};
  for (auto [i, value] : llvm::enumerate(values)) {
    std::optional<int64_t> size = getConstantIntValue(value);
    if (!size)
      return launch.emitOpError()
             << "has a " << what
             << " size that is not a constant: a bundle's launch shapes are "
                "fixed at compile time";
    dims[i] = *size;
  }
  return dims;
}

/// The launch limits of every chip lamport-compile targets (sm_90 and
/// sm_100a share them), as docs/bundle.schema.json bounds the manifest; the
/// runtime checks the launch again against the device it loads on.
static constexpr std::array<int64_t, 3> kMaxGrid = {INT32_MAX, 65535, 65535};
static constexpr std::array<int64_t, 3> kMaxBlock = {1024, 1024, 64};
static constexpr int64_t kMaxBlockThreads = 1024;
/// Clusters beyond 8 CTAs are not portable (they need an opt-in per kernel).
static constexpr int64_t kMaxClusterCtas = 8;
/// The most dynamic shared memory a CTA of sm_90 or sm_100a opts into.
static constexpr int64_t kMaxDynamicSharedBytes = 227 * 1024;

/// "[1, 2, 3]".
static std::string dimsText(const std::array<int64_t, 3> &dims) {
  return "[" + std::to_string(dims[0]) + ", " + std::to_string(dims[1]) + ", " +
         std::to_string(dims[2]) + "]";
}

/// Checks `plan`'s grid, block, cluster and shared memory against the
/// chips' limits, with an error at `launch`.
static LogicalResult checkLaunchShape(gpu::LaunchFuncOp launch,
                                      const PlanKernel &plan) {
  static const char *const axes[] = {"x", "y", "z"};
  const char *limits = " (the launch limits of sm_90 and sm_100a)";
  for (int i = 0; i < 3; ++i)
    if (plan.grid[i] < 1 || plan.grid[i] > kMaxGrid[i])
      return launch.emitOpError()
             << "has a grid of " << dimsText(plan.grid) << ": grid " << axes[i]
             << " must be in 1.." << kMaxGrid[i] << limits;
  for (int i = 0; i < 3; ++i)
    if (plan.block[i] < 1 || plan.block[i] > kMaxBlock[i])
      return launch.emitOpError()
             << "has a block of " << dimsText(plan.block) << ": block "
             << axes[i] << " must be in 1.." << kMaxBlock[i] << limits;
  int64_t threads = plan.block[0] * plan.block[1] * plan.block[2];
  if (threads > kMaxBlockThreads)
    return launch.emitOpError()
           << "has a block of " << dimsText(plan.block) << ": " << threads
           << " threads, more than the " << kMaxBlockThreads << " a CTA holds";
  for (int i = 0; i < 3; ++i) {
    if (plan.cluster[i] < 1 || plan.cluster[i] > kMaxClusterCtas)
      return launch.emitOpError()
             << "has a cluster of " << dimsText(plan.cluster) << ": cluster "
             << axes[i] << " must be in 1.." << kMaxClusterCtas;
    if (plan.grid[i] % plan.cluster[i])
      return launch.emitOpError()
             << "has a cluster of " << dimsText(plan.cluster)
             << " that does not divide its grid of " << dimsText(plan.grid);
  }
  int64_t ctas = plan.cluster[0] * plan.cluster[1] * plan.cluster[2];
  if (ctas > kMaxClusterCtas)
    return launch.emitOpError()
           << "has a cluster of " << dimsText(plan.cluster) << ": " << ctas
           << " CTAs, more than the portable " << kMaxClusterCtas;
  if (plan.sharedBytes < 0 || plan.sharedBytes > kMaxDynamicSharedBytes)
    return launch.emitOpError()
           << "requests " << plan.sharedBytes
           << " bytes of dynamic shared memory: it must be in 0.."
           << kMaxDynamicSharedBytes
           << " (227 KiB, the most a CTA of sm_90 or sm_100a opts into)";
  return success();
}

/// Merges how one kernel uses a buffer into how the step uses it.
static void mergeIo(std::string &io, StringRef use) {
  if (io.empty() || io == use)
    io = use.str();
  else
    io = "inout";
}

/// What `kernel` does to its mailbox, from the kernel-level mailbox ops in
/// its body: `publish`, `poll`, `publish_and_poll`, or empty where it has
/// none (docs/bundle.md `mailbox_use`).
static StringRef getMailboxUse(gpu::GPUFuncOp kernel) {
  bool publishes = false, polls = false;
  kernel.walk([&](Operation *op) {
    publishes |= isa<MailboxPublishOp>(op);
    polls |= isa<MailboxPollOp, MailboxPollAtOp, MailboxPollOwnedOp>(op);
  });
  if (publishes && polls)
    return "publish_and_poll";
  return publishes ? "publish" : polls ? "poll" : "";
}

/// Reads the kernel of `launch` and how it binds the program's arguments;
/// records buffer use in `arguments`.
static FailureOr<PlanKernel>
readKernel(gpu::LaunchFuncOp launch, func::FuncOp program,
           MutableArrayRef<PlanArgument> arguments) {
  auto kernel = SymbolTable::lookupNearestSymbolFrom<gpu::GPUFuncOp>(
      launch, launch.getKernel());
  if (!kernel)
    return launch.emitOpError() << "launches " << launch.getKernel()
                                << ", which is not a gpu.func of this module";

  // A bundle names a kernel's files and its PTX entry alike.
  if (launch.getKernelName() != launch.getKernelModuleName())
    return launch.emitOpError()
           << "launches kernel '" << launch.getKernelName().getValue()
           << "' of gpu.module '" << launch.getKernelModuleName().getValue()
           << "': a bundle kernel's gpu.module and gpu.func share one name";

  PlanKernel plan;
  plan.name = launch.getKernelModuleName().str();
  if (auto op = kernel->getAttrOfType<StringAttr>("lamport.op"))
    plan.op = op.getValue().str();
  else
    plan.op = kernel.getName().str();
  if (auto attributes =
          kernel->getAttrOfType<DictionaryAttr>("lamport.attributes"))
    for (NamedAttribute attr : attributes)
      plan.attributes[attr.getName().getValue()] = toJson(attr.getValue());
  plan.pdl = kernel->hasAttr("lamport.pdl");
  plan.mailboxUse = getMailboxUse(kernel).str();

  gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
  gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
  FailureOr<std::array<int64_t, 3>> gridDims =
      getConstantDims(launch, "grid", grid.x, grid.y, grid.z);
  FailureOr<std::array<int64_t, 3>> blockDims =
      getConstantDims(launch, "block", block.x, block.y, block.z);
  if (failed(gridDims) || failed(blockDims))
    return failure();
  plan.grid = *gridDims;
  plan.block = *blockDims;
  if (launch.hasClusterSize()) {
    gpu::KernelDim3 cluster = launch.getClusterSizeOperandValues();
    FailureOr<std::array<int64_t, 3>> clusterDims =
        getConstantDims(launch, "cluster", cluster.x, cluster.y, cluster.z);
    if (failed(clusterDims))
      return failure();
    plan.cluster = *clusterDims;
  }
  if (Value shared = launch.getDynamicSharedMemorySize()) {
    std::optional<int64_t> bytes = getConstantIntValue(shared);
    if (!bytes)
      return launch.emitOpError()
             << "requests dynamic shared memory that is not a constant";
    plan.sharedBytes = *bytes;
  }
  if (failed(checkLaunchShape(launch, plan)))
    return failure();

  for (auto [i, operand] : llvm::enumerate(launch.getKernelOperands())) {
    Type type = operand.getType();
    PlanParam param;
    // Generated kernels name their parameters; otherwise the type says.
    StringRef kind;
    if (auto attr = kernel.getArgAttrOfType<StringAttr>(i, "lamport.param"))
      kind = attr.getValue();
    else if (isa<MailboxType>(type))
      kind = "mailbox";
    else if (isa<MemRefType>(type))
      kind = "buffer";
    else if (type.isSignlessInteger(32))
      kind = "tokens";

    if (kind == "tensor_map") {
      // The runtime encodes it from the buffer the kernel names.
      auto of = kernel.getArgAttrOfType<IntegerAttr>(
          i, LamportDialect::TensorOfAttrHelper::getNameStr());
      auto box = kernel.getArgAttrOfType<DenseI64ArrayAttr>(
          i, LamportDialect::BoxAttrHelper::getNameStr());
      BlockArgument buffer =
          of ? getProgramArgument(launch.getKernelOperands()[of.getInt()],
                                  program)
             : BlockArgument();
      if (!buffer || !box)
        return launch.emitOpError()
               << "passes tensor map operand " << i
               << " without the program buffer and box it describes";
      param.kind = PlanParam::Kind::TensorMap;
      param.argument = buffer.getArgNumber();
      param.size = 128;
      param.align = 64;
      param.box.assign(box.asArrayRef().begin(), box.asArrayRef().end());
      plan.params.push_back(std::move(param));
      continue;
    }
    if (kind == "tokens") {
      param.kind = PlanParam::Kind::Tokens;
      param.size = param.align = 4;
      plan.params.push_back(std::move(param));
      continue;
    }
    BlockArgument argument = getProgramArgument(operand, program);
    if (kind.empty() || !argument)
      return launch.emitOpError()
             << "passes kernel operand " << i << " of type " << type
             << ", which is not a program argument, a view of one or the "
                "token count: a runtime could not bind it";
    param.argument = argument.getArgNumber();
    if (auto mailbox = dyn_cast<MailboxType>(type)) {
      param.kind = PlanParam::Kind::Mailbox;
      param.size = kDescriptorHeaderBytes + 8 * mailbox.getTp();
      param.align = 8;
    } else {
      param.kind = PlanParam::Kind::Buffer;
      param.size = param.align = 8;
      auto io = kernel.getArgAttrOfType<StringAttr>(i, "lamport.io");
      param.io = io ? io.getValue().str() : "inout";
      if (auto role = kernel.getArgAttrOfType<StringAttr>(i, "lamport.role"))
        param.role = role.getValue().str();
      mergeIo(arguments[argument.getArgNumber()].io, param.io);
    }
    plan.params.push_back(std::move(param));
  }
  return plan;
}

/// Records the kernel of `launch` in `plan`, with the token range it runs
/// for (none: every M).
static LogicalResult
addLaunch(gpu::LaunchFuncOp launch, func::FuncOp program, LaunchPlan &plan,
          std::optional<std::pair<int64_t, int64_t>> tokens) {
  FailureOr<PlanKernel> kernel = readKernel(launch, program, plan.arguments);
  if (failed(kernel))
    return failure();
  plan.launches.push_back({kernel->name, tokens});
  // A kernel launched again is listed once: its manifest entry binds its
  // parameters, so every launch must bind them alike.
  auto listed = llvm::find_if(plan.kernels, [&](const PlanKernel &k) {
    return k.name == kernel->name;
  });
  if (listed == plan.kernels.end()) {
    plan.kernels.push_back(std::move(*kernel));
    return success();
  }
  bool same = listed->grid == kernel->grid && listed->block == kernel->block &&
              llvm::equal(listed->params, kernel->params,
                          [](const PlanParam &a, const PlanParam &b) {
                            return a.kind == b.kind && a.argument == b.argument;
                          });
  if (!same)
    return launch.emitOpError()
           << "launches '" << kernel->name
           << "' again with other arguments or another launch shape: a "
              "bundle kernel has one binding";
  return success();
}

/// Whether `value` is the token count M: memref.dim of a program argument
/// along a dynamic dimension.
static bool isTokenCount(Value value, func::FuncOp program) {
  auto dim = value.getDefiningOp<memref::DimOp>();
  if (!dim)
    return false;
  std::optional<int64_t> index = dim.getConstantIndex();
  BlockArgument argument = getProgramArgument(dim.getSource(), program);
  return index && argument &&
         cast<MemRefType>(argument.getType()).isDynamicDim(*index);
}

/// Reads the launches of `block` into `plan`, in stream order. At the top
/// of the program (`tokens` none) a block is a sequence of launches and the
/// ops that bind their parameters. An scf.if on `M <= c` (arith.cmpi ule or
/// ult of the token count against a constant) chooses between alternatives
/// of one op: each branch holds exactly one launch or, in the else branch,
/// another such scf.if; each launch records the range of M, within
/// `tokens` (1..maxTokens at the top), for which it runs.
static LogicalResult
readLaunches(Block &block, func::FuncOp program, LaunchPlan &plan,
             std::optional<std::pair<int64_t, int64_t>> tokens,
             int64_t maxTokens) {
  unsigned alternatives = 0;
  for (Operation &op : block) {
    if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op)) {
      ++alternatives;
      if (failed(addLaunch(launch, program, plan, tokens)))
        return failure();
      continue;
    }
    if (auto dispatch = dyn_cast<scf::IfOp>(op)) {
      ++alternatives;
      auto compare = dispatch.getCondition().getDefiningOp<arith::CmpIOp>();
      std::optional<int64_t> bound =
          compare ? getConstantIntValue(compare.getRhs()) : std::nullopt;
      bool inclusive =
          compare && compare.getPredicate() == arith::CmpIPredicate::ule;
      if (!compare || !bound || !isTokenCount(compare.getLhs(), program) ||
          (!inclusive && compare.getPredicate() != arith::CmpIPredicate::ult) ||
          dispatch.getNumResults() || dispatch.getElseRegion().empty())
        return dispatch.emitOpError()
               << "is host code in program '" << plan.program
               << "': a bundle chooses a launch only by an scf.if, with an "
                  "else branch and no results, on the token count compared "
                  "(arith.cmpi ule or ult) against a constant";
      std::pair<int64_t, int64_t> range =
          tokens.value_or(std::pair<int64_t, int64_t>(1, maxTokens));
      // A bound far outside 1..maxTokens leaves a branch no M (and would
      // overflow the arithmetic below).
      int64_t clamped = std::clamp<int64_t>(*bound, -1, maxTokens + 1);
      int64_t lastThen = inclusive ? clamped : clamped - 1;
      std::pair<int64_t, int64_t> thenRange = {range.first, lastThen};
      std::pair<int64_t, int64_t> elseRange = {lastThen + 1, range.second};
      if (thenRange.first > thenRange.second ||
          elseRange.first > elseRange.second)
        return dispatch.emitOpError()
               << "chooses a launch by M against " << *bound
               << ", which leaves one branch no M in " << range.first << ".."
               << range.second << ": each alternative must run for some M";
      if (failed(readLaunches(dispatch.getThenRegion().front(), program, plan,
                              thenRange, maxTokens)) ||
          failed(readLaunches(dispatch.getElseRegion().front(), program, plan,
                              elseRange, maxTokens)))
        return failure();
      continue;
    }
    // What binds the kernels' parameters; nothing else runs on the host.
    if (isa<func::ReturnOp, scf::YieldOp, arith::ConstantOp, arith::CmpIOp,
            arith::IndexCastOp, arith::IndexCastUIOp, memref::DimOp,
            memref::CastOp, memref::ReinterpretCastOp,
            memref::MemorySpaceCastOp, LLVM::ZeroOp>(op))
      continue;
    return op.emitOpError() << "is host code in program '" << plan.program
                            << "': a bundle runs only kernel launches";
  }
  if (tokens && alternatives != 1)
    return block.getParentOp()->emitOpError()
           << "has a branch with " << alternatives
           << " launches: each branch of a choice by M runs exactly one "
              "launch (or, in the else branch, another choice)";
  return success();
}

/// Checks that a buffer argument's shape is one a manifest holds: every
/// static dimension positive and an int32, and its bytes (at the most tokens
/// a step carries, 2^16) within int64.
static LogicalResult checkBufferShape(func::FuncOp program,
                                      const PlanArgument &argument,
                                      MemRefType type) {
  auto fail = [&]() {
    return program.emitOpError()
           << "argument " << argument.index << " ('" << argument.name
           << "') has type " << type << ": ";
  };
  int64_t bytes = type.getElementTypeBitWidth() / 8;
  for (int64_t size : type.getShape()) {
    if (!ShapedType::isDynamic(size) && (size < 1 || size > INT32_MAX))
      return fail() << "a bundle's dimensions are in 1.." << INT32_MAX
                    << " (docs/bundle.md)";
    std::optional<int64_t> next = llvm::checkedMul(
        bytes, ShapedType::isDynamic(size) ? int64_t(1) << 16 : size);
    if (!next)
      return fail() << "its bytes at " << (1 << 16)
                    << " tokens are more than 2^63 - 1";
    bytes = *next;
  }
  return success();
}

/// Where `argument` is first used in `program`, else where it is declared.
static Location getFirstUse(func::FuncOp program, BlockArgument argument) {
  Operation *first = nullptr;
  program.walk([&](Operation *op) {
    if (llvm::is_contained(op->getOperands(), argument)) {
      first = op;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return first ? first->getLoc() : argument.getLoc();
}

/// Checks that the mailboxes of `plan` share one tp: a bundle runs on one
/// TP group, and the runtime refuses a manifest of two. Without the protocol
/// check (which has the same rule), this is where the compiler catches it.
static LogicalResult checkOneTpGroup(func::FuncOp program,
                                     const LaunchPlan &plan) {
  const PlanArgument *first = nullptr;
  for (const PlanArgument &argument : plan.arguments) {
    if (argument.kind != PlanArgument::Kind::Mailbox)
      continue;
    if (!first) {
      first = &argument;
      continue;
    }
    unsigned tp = plan.mailboxes[argument.mailbox].tp;
    unsigned firstTp = plan.mailboxes[first->mailbox].tp;
    if (tp == firstTp)
      continue;
    InFlightDiagnostic diag =
        emitError(getFirstUse(program, program.getArgument(argument.index)))
        << "mailbox argument " << argument.index << " ('" << argument.name
        << "') has tp = " << tp << ", but mailbox argument " << first->index
        << " ('" << first->name << "') has tp = " << firstTp
        << ": a bundle runs on one TP group, so all its mailboxes share one "
           "tp";
    diag.attachNote(getFirstUse(program, program.getArgument(first->index)))
        << "mailbox argument " << first->index << " (tp = " << firstTp
        << ") is used here";
    return diag;
  }
  return success();
}

FailureOr<LaunchPlan>
mlir::lamport::readLaunchPlan(func::FuncOp program,
                              ArrayRef<std::string> argumentNames) {
  LaunchPlan plan;
  plan.program = program.getSymName().str();
  if (program.isExternal())
    return program.emitOpError() << "is a program with no body";

  for (BlockArgument argument : program.getArguments()) {
    PlanArgument planArgument;
    unsigned index = argument.getArgNumber();
    planArgument.index = index;
    planArgument.name =
        index < argumentNames.size() && !argumentNames[index].empty()
            ? argumentNames[index]
            : "arg" + std::to_string(index);
    Type type = argument.getType();
    if (auto mailbox = dyn_cast<MailboxType>(type)) {
      planArgument.kind = PlanArgument::Kind::Mailbox;
      planArgument.mailbox = plan.mailboxes.size();
      plan.mailboxes.push_back({unsigned(plan.mailboxes.size()),
                                planArgument.name, mailbox.getTp(),
                                mailbox.getCapacity(), mailbox.getWidth()});
    } else if (auto memref = dyn_cast<MemRefType>(type);
               memref && !getDtype(memref.getElementType()).empty()) {
      planArgument.kind = PlanArgument::Kind::Buffer;
      planArgument.dtype = getDtype(memref.getElementType()).str();
      if (failed(checkBufferShape(program, planArgument, memref)))
        return failure();
      for (int64_t size : memref.getShape())
        planArgument.shape.push_back(ShapedType::isDynamic(size) ? -1 : size);
    } else {
      return program.emitOpError()
             << "argument " << index << " ('" << planArgument.name
             << "') has type " << type
             << ": a program takes mailboxes and bf16, f32 or i32 buffers";
    }
    plan.arguments.push_back(std::move(planArgument));
  }

  if (failed(checkOneTpGroup(program, plan)))
    return failure();

  // Every family replaces its op or fails, so a program-level op left here
  // means the caller skipped lamport-generate-kernels (lamport-compile never
  // does). Every such op is reported, not only the first.
  bool missingKernels = false;
  for (Operation &op : program.getBody().front()) {
    if (!isProgramLevelOp(&op))
      continue;
    op.emitOpError() << "has no kernel: run lamport-generate-kernels on the "
                        "program before reading its launch plan";
    missingKernels = true;
  }
  if (missingKernels)
    return failure();

  // The most tokens a step can carry: what a dispatch's last range ends at.
  int64_t maxTokens = 0;
  for (const PlanMailbox &mailbox : plan.mailboxes)
    maxTokens = std::max<int64_t>(maxTokens, mailbox.capacity);
  if (maxTokens == 0)
    maxTokens = LamportDialect::kMaxTokens;
  if (failed(readLaunches(program.getBody().front(), program, plan,
                          std::nullopt, maxTokens)))
    return failure();
  if (plan.launches.empty())
    return program.emitOpError() << "launches no kernel";

  // A buffer no kernel touches is still allocated by the runtime; it is
  // only read as far as the program is concerned.
  for (PlanArgument &argument : plan.arguments)
    if (argument.kind == PlanArgument::Kind::Buffer && argument.io.empty())
      argument.io = "in";
  return plan;
}
