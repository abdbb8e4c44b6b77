//===- GemmPublishGeneration.cpp - gemm_publish's kernels and launches ----===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// The kernels of one lamport.gemm_publish and the launches that replace it.
// With M dynamic the op becomes one kernel per distinct token tile its
// tactic asks for over 1..max M, and the program chooses by M at launch: an
// scf.if on M <= the last M of each run of equal tiles (docs/bundle.md), so
// small M does not pay for the 16-token tile. Each kernel is the one its
// tile alone would give.
//
//===----------------------------------------------------------------------===//

#include "GemmPublishKernel.h"
#include "KernelGeneration.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

using namespace mlir;
using namespace mlir::lamport;

namespace {
/// Consecutive M, up to `last`, that one kernel serves: one tactic's launch
/// at one token tile.
struct TileRun {
  /// Index of the kernel (distinct tactic and tile) that serves the run.
  unsigned kernel;
  int64_t last;
};

/// One kernel of the op: a tactic at one token tile.
struct TacticKernel {
  TacticAttr tactic;
  GemmLaunchShape shape;
};

/// The op's kernels and which serves which M.
struct GemmKernelPlan {
  SmallVector<TacticKernel, 4> kernels;
  SmallVector<TileRun> runs;
};

/// One generated kernel and the signature its launch binds.
struct GeneratedKernel {
  KernelSignature signature;
  gpu::GPUFuncOp func;
};
} // namespace

/// Which kernel serves which M: the tactic that serves M at its token tile.
/// x's static M runs one kernel: its tactic at the largest tile any M up to
/// it asks of that tactic. A dynamic M runs one kernel per distinct
/// (tactic, tile) over 1..maxTokens, chosen by M at launch: each run of
/// consecutive M with one of them is one alternative.
static GemmKernelPlan planKernels(GemmPublishOp op, int64_t maxTokens,
                                  BulkCopies bulkCopies) {
  MemRefType weightType = op.getWeight().getType();
  int64_t n = weightType.getDimSize(0), k = weightType.getDimSize(1);
  GemmKernelPlan plan;
  auto kernelFor = [&](TacticAttr tactic, int64_t tile) -> unsigned {
    for (auto [i, kernel] : llvm::enumerate(plan.kernels))
      if (kernel.tactic == tactic && kernel.shape.tokenTile == tile)
        return i;
    GemmLaunchShape shape = GemmLaunchShape::of(tactic, n, k, tile);
    shape.bulkCopies = bulkCopies;
    plan.kernels.push_back({tactic, shape});
    return plan.kernels.size() - 1;
  };
  if (!op.getX().getType().isDynamicDim(0)) {
    TacticAttr tactic = op.getTacticFor(maxTokens);
    ArrayRef<int64_t> tiles = tactic.getTokenTiles();
    plan.runs.push_back(
        {kernelFor(tactic,
                   *std::max_element(tiles.begin(), tiles.begin() + maxTokens)),
         maxTokens});
    return plan;
  }
  for (int64_t m = 1; m <= maxTokens; ++m) {
    TacticAttr tactic = op.getTacticFor(m);
    unsigned kernel = kernelFor(tactic, tactic.getTokenTiles()[m - 1]);
    if (plan.runs.empty() || plan.runs.back().kernel != kernel)
      plan.runs.push_back({kernel, m});
    else
      plan.runs.back().last = m;
  }
  return plan;
}

/// The body builder of the kernel for `shape`: binds the kernel's parameters
/// and builds the GEMM (GemmPublishKernel.cpp).
static KernelBodyBuilder bodyBuilder(GemmPublishOp op,
                                     const GemmLaunchShape &shape,
                                     int64_t maxTokens, TransportAttr transport,
                                     bool pdl) {
  bool hasTicket = bool(op.getTicket());
  return [=](OpBuilder &builder, Location loc, KernelBody &kernel) {
    ImplicitLocOpBuilder b(loc, builder);
    GemmKernelValues values;
    values.mailbox = kernel.getMailbox();
    values.weight = kernel.getBuffer(0);
    if (shape.tensorStage())
      values.weightMap = kernel.getTensorMap(0);
    values.x = kernel.getBuffer(1);
    values.y = kernel.getBuffer(2);
    if (hasTicket)
      values.ticket = kernel.getBuffer(3);
    // M past the largest the buffers were sized for is clamped, as the
    // other kernels clamp it to the mailbox capacity.
    values.launchTokens = kernel.getLaunchTokens();
    values.tokens = arith::MinUIOp::create(
        b, values.launchTokens,
        arith::ConstantIntOp::create(b, b.getI32Type(), maxTokens));
    values.transport = transport;
    values.pdl = pdl;
    auto module = kernel.getFunc()->getParentOfType<gpu::GPUModuleOp>();
    buildGemmPublishBody(b, module, shape, values);
    builder.setInsertionPoint(b.getInsertionBlock(), b.getInsertionPoint());
  };
}

/// Creates the kernel of `kernel` from the op's common `signature`: its
/// fixed launch, the attributes its readers need and the register hint.
static GeneratedKernel
createTacticKernel(GemmPublishOp op, const KernelSignature &signature,
                   const TacticKernel &kernel, int64_t maxTokens,
                   TransportAttr transport,
                   const KernelGenerationOptions &options) {
  MLIRContext *ctx = op.getContext();
  const GemmLaunchShape &shape = kernel.shape;
  GeneratedKernel generated{signature, nullptr};
  KernelSignature &kernelSignature = generated.signature;
  if (shape.tensorStage())
    kernelSignature.tensorMaps.push_back(
        {/*buffer=*/0, shape.boxK(), shape.featuresPerCta()});
  kernelSignature.launch =
      FixedLaunch{shape.gridX(), shape.splits, shape.threads(), shape.splits,
                  shape.dynamicSharedBytes()};
  auto i64Attr = [&](int64_t value) {
    return IntegerAttr::get(IntegerType::get(ctx, 64), value);
  };
  kernelSignature.attributes.push_back(NamedAttribute(
      StringAttr::get(ctx, "token_tile"), i64Attr(shape.tokenTile)));
  // Consumers that read the tactic back from the launch shape (the
  // benchmark) need the passes: the grid alone cannot tell them from tiles.
  if (shape.passes > 1)
    kernelSignature.attributes.push_back(
        NamedAttribute(StringAttr::get(ctx, "passes"), i64Attr(shape.passes)));
  // The bulk pipeline's K per stage sets which K each warp sums, so the
  // order of the FP32 sums: its readers must tell it from the registers'.
  if (shape.bulk)
    kernelSignature.attributes.push_back(NamedAttribute(
        StringAttr::get(ctx, "stage_k"), i64Attr(shape.stageK())));
  generated.func =
      createKernel(op, kernelSignature, options,
                   bodyBuilder(op, shape, maxTokens, transport, signature.pdl));
  // The register budget hint: the NVVM lowering turns nvvm.minctasm into
  // PTX .minnctapersm.
  if (unsigned minCtas = kernel.tactic.getMinCtasPerSm())
    generated.func->setAttr(
        NVVM::NVVMDialect::getMinctasmAttrName(),
        IntegerAttr::get(IntegerType::get(ctx, 32), minCtas));
  return generated;
}

/// The launches, where the op was: one, or a chain of scf.if on M <= last M
/// of a run, each branch launching that run's kernel (the form
/// lamport-compile's launch plan reads, docs/bundle.md `tokens`).
static void createLaunches(GemmPublishOp op, ArrayRef<TileRun> runs,
                           ArrayRef<GeneratedKernel> kernels) {
  Location loc = op.getLoc();
  OpBuilder b(op);
  auto launchRun = [&](OpBuilder &builder, Location loc, const TileRun &run) {
    const GeneratedKernel &kernel = kernels[run.kernel];
    createLaunch(builder, loc, kernel.signature, kernel.func);
  };
  if (runs.size() == 1) {
    launchRun(b, loc, runs.front());
    return;
  }
  Value m = memref::DimOp::create(b, loc, op.getX(), 0);
  std::function<void(OpBuilder &, Location, ArrayRef<TileRun>)> dispatch =
      [&](OpBuilder &builder, Location loc, ArrayRef<TileRun> rest) {
        if (rest.size() == 1) {
          launchRun(builder, loc, rest.front());
          return;
        }
        Value last =
            arith::ConstantIndexOp::create(builder, loc, rest.front().last);
        Value takesFirst = arith::CmpIOp::create(
            builder, loc, arith::CmpIPredicate::ule, m, last);
        scf::IfOp::create(
            builder, loc, takesFirst,
            [&](OpBuilder &nested, Location nestedLoc) {
              launchRun(nested, nestedLoc, rest.front());
              scf::YieldOp::create(nested, nestedLoc);
            },
            [&](OpBuilder &nested, Location nestedLoc) {
              dispatch(nested, nestedLoc, rest.drop_front());
              scf::YieldOp::create(nested, nestedLoc);
            });
      };
  dispatch(b, loc, runs);
}

LogicalResult mlir::lamport::generateGemmPublishKernel(
    GemmPublishOp op, const KernelGenerationOptions &options) {
  if (op.getTacticList().empty())
    return op.emitOpError()
           << "has no tactics: lamport-select-tactics chooses them (every "
              "lamport-compile run and lowering pipeline runs it before "
              "lamport-generate-kernels), or write tactic(...) on the op";
  // The most tokens a launch can carry: x's static M where it has one, else
  // the op's bound (16, or the mailbox capacity).
  MemRefType xType = op.getX().getType();
  int64_t maxTokens =
      xType.isDynamicDim(0) ? op.getMaxTokens() : xType.getDimSize(0);
  GemmKernelPlan plan = planKernels(op, maxTokens, options.bulkCopies);
  for (const TacticKernel &kernel : plan.kernels) {
    std::string reason = kernel.shape.unsupported();
    if (!reason.empty())
      return op.emitOpError() << "has no kernel: " << reason;
  }

  KernelSignature signature;
  signature.family = op.getKernelFamily();
  signature.mailbox = op.getMailbox();
  if (failed(addProgramBuffers(op, maxTokens, signature)))
    return failure();
  signature.tokensBuffer = op.getX();
  signature.tokensDim = 0;
  signature.pdl = op.getPdl();
  MLIRContext *ctx = op.getContext();
  TransportAttr transport;
  if (op.getMailbox()) {
    transport = TransportAttr::get(ctx, op.getTransport() ? *op.getTransport()
                                                          : options.transport);
    signature.attributes.push_back(
        NamedAttribute(StringAttr::get(ctx, "transport"), transport));
  }
  // One kernel per distinct (tactic, tile).
  SmallVector<GeneratedKernel, 1> kernels;
  for (const TacticKernel &kernel : plan.kernels)
    kernels.push_back(createTacticKernel(op, signature, kernel, maxTokens,
                                         transport, options));
  createLaunches(op, plan.runs, kernels);
  op.erase();
  return success();
}
