//===- DualNormKernel.cpp - The fused boundary consumer and the dual norm -===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// lamport.all_reduce_dual_norm and lamport.dual_norm as kernels, built by one
// body builder that differs only in how a thread obtains the FP32 r of its
// fragments: the tp partials polled from the ACTIVE stage, summed in the
// op's sum order (sumPartials, as lamport.all_reduce sums them) and
// re-armed; or the BF16 `reduced` row widened. Everything after r is the same
// ops in the same order, so where r is a BF16 value (the fused sum rounds to
// itself) both kernels write the same out and stream bits.
//
// all_reduce_dual_norm with `publishing(%partial)` is the whole boundary in
// one kernel: each thread stores its fragments of this rank's partial into
// slot [NEXT, rank] of every copy before it polls them, so its stage is NEXT
// (not ACTIVE, which no publisher set for it), and since a CTA that starts
// late must still read that NEXT, every CTA counts itself out on ARRIVALS
// (lamport.stage.arrive) once its threads have read NEXT, before it
// publishes, and the last to arrive sets ACTIVE and advances NEXT when it is
// done (its fence then waits for no store of the exchange).
//
// Launch: one cluster of C CTAs per token, grid (rows, C), cluster (1, C), T
// threads a CTA. A row of H BF16 is F = H / 8 fragments; T = min(128, F)
// (256 where H > 32768), C = min(8, ceil(F / T)) (8: the portable cluster
// size) and each thread takes K = ceil(F / (C * T)) fragments,
// f = (k * C + cta) * T + thread, keeping their r and stream values in
// registers between the two norms.
// Clusters of tokens past M skip the row together, so no cluster barrier
// waits for a CTA that left.
//
// Order of a thread: the weights and scalar gates (they do not depend on
// the previous kernel, so with `pdl` they load before griddepcontrol.wait),
// the wait, ACTIVE (when publishing: the partial's fragments, then NEXT and
// the arrival, then the fragments published), the old stream and
// per-channel gates, whose loads fly while the thread polls for r, then r.
//
// Row sums, in one fixed order so that every rank and every CTA computes the
// same bits: each thread adds its squares in fragment then lane order; a
// warp adds its lanes with a butterfly shuffle (offsets 16, 8, 4, 2, 1; every
// lane ends with the same bits since a + b == b + a); lane 0 stores the warp
// sum in shared memory; thread 0 adds the warps in warp order. With a
// cluster, threads 0..C-1 each add the warps and send the CTA's sum into
// its slot in CTA `thread` of the cluster with st.async, whose bytes
// complete that CTA's mbarrier for the sum, and every thread waits on its
// own CTA's mbarrier and adds the C slots in cluster rank order 0..C-1. The two
// sums have their own slots and mbarriers, set up before griddepcontrol.wait
// and published by the kernel's one cluster barrier; no CTA reads another's
// shared memory, so none has to wait for its peers before it exits. (Cluster
// barriers around distributed shared memory reads cost about 1.1 us of a 2.6 us
// step of the dual norm alone on an H200.)
//
// inv = 1 / sqrt(sum / H + eps) is correctly rounded at each step (sqrt.rn,
// div.rn or the equal rcp.rn), never an approximate rsqrt: the same bits on
// every GPU and in a host model.
//
//===----------------------------------------------------------------------===//

#include "KernelGeneration.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

#include "llvm/ADT/SmallVectorExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::lamport;

/// Threads of one CTA where the row fits: 4 warps, so a row spreads over
/// as many CTAs (SMs) as a cluster allows. Measured across two H200s (the
/// boundary alone, tp 2): 128 x 8 CTAs beat 256 x 4 by 3-24%, and fewer,
/// larger CTAs (no cluster, 1024 threads) lost 10-25% however few cluster
/// barriers they need.
static constexpr int64_t kPreferredThreadsPerCta = 128;
/// Most threads of one CTA, for rows too long for the preferred CTA: 8
/// warps keep the per-warp slots and the CTA's serial warp sum short.
static constexpr int64_t kMaxThreadsPerCta = 256;
/// Most CTAs of one cluster that every cluster-capable GPU accepts.
static constexpr int64_t kMaxClusterCtas = 8;
/// Most fragments one thread keeps in registers between the two norms.
static constexpr int64_t kMaxFragmentsPerThread = 4;
static constexpr int64_t kWarpSize = 32;
namespace {
/// The launch shape of a dual norm over rows of `hidden` channels.
struct DualNormShape {
  int64_t hidden = 0;
  /// 16-byte fragments of one row: H / 8.
  int64_t fragments = 0;
  int64_t threads = 0, ctas = 1, fragmentsPerThread = 1;

  static DualNormShape get(int64_t hidden) {
    DualNormShape shape;
    shape.hidden = hidden;
    shape.fragments = hidden / int64_t(LamportDialect::kFragmentLanes);
    if (!shape.unsupportedHidden().empty())
      return shape;
    bool fitsPreferred =
        shape.fragments <=
        kMaxFragmentsPerThread * kMaxClusterCtas * kPreferredThreadsPerCta;
    shape.threads =
        std::min(fitsPreferred ? kPreferredThreadsPerCta : kMaxThreadsPerCta,
                 shape.fragments);
    shape.ctas = std::min<int64_t>(
        kMaxClusterCtas, llvm::divideCeil(shape.fragments, shape.threads));
    shape.fragmentsPerThread =
        int64_t(llvm::divideCeil(shape.fragments, shape.ctas * shape.threads));
    return shape;
  }
  int64_t warps() const { return threads / kWarpSize; }
  /// Whether some thread's last fragment index runs past the row.
  bool needsGuard() const {
    return fragmentsPerThread * ctas * threads != fragments;
  }
  /// Why the kernel cannot take rows of `hidden` channels at all, or an
  /// empty string; the other fields are set only where this is empty.
  std::string unsupportedHidden() const {
    if (hidden % (LamportDialect::kFragmentLanes * kWarpSize))
      return llvm::formatv(
          "hidden size H = {0} must be a multiple of 256: each thread "
          "takes 16-byte fragments of 8 channels and a row's sums reduce "
          "over whole warps, so H / 8 must be a multiple of 32",
          hidden);
    return "";
  }
  /// Why the kernel cannot take this shape, or an empty string.
  std::string unsupported() const {
    std::string reason = unsupportedHidden();
    if (!reason.empty())
      return reason;
    if (fragmentsPerThread > kMaxFragmentsPerThread)
      return llvm::formatv(
          "hidden size H = {0} needs {1} fragments per thread; a thread "
          "keeps its fragments in registers between the two norms and takes "
          "at most {2} (H <= {3})",
          hidden, fragmentsPerThread, kMaxFragmentsPerThread,
          kMaxFragmentsPerThread * kMaxClusterCtas * kMaxThreadsPerCta *
              LamportDialect::kFragmentLanes);
    return "";
  }
};

/// The kernel's parameters and the op's constants, inside its gpu.func.
struct DualNormValues {
  /// memref<rows x H x f32, 1>, memref<1 or H x f32, 1> (x2),
  /// memref<H x bf16, 1> (x2; post_weight may be null), memref<rows x H x
  /// bf16, 1>.
  Value stream, alpha, beta, postWeight, nextWeight, out;
  /// memref<rows x H x bf16, 1>: the partial the fused kernel publishes
  /// first, or null.
  Value partial;
  /// CTAs of the grid: rows x cluster size.
  int64_t gridCtas = 0;
  /// The token count M as an index, clamped to the rows of the grid.
  Value tokens;
  /// The launch's i32 token count as passed: guards the store that keeps
  /// the parameter loads before the PDL wait (lamport.pdl.wait).
  Value launchTokens;
  float eps = 0;
  bool pdl = false;
};

/// How a kernel obtains r, the FP32 reduced row: the only part in which the
/// fused and the standalone kernels differ.
class ReducedSource {
public:
  virtual ~ReducedSource() = default;
  /// Whether the kernel publishes a fragment of its own (loadPublished,
  /// publish) before it reads r.
  virtual bool publishes() const { return false; }
  /// The fragment at [row, col] of what the kernel publishes (vector<8xbf16>),
  /// loaded right after griddepcontrol.wait, before prepare(): it is the
  /// previous kernel's output and needs no stage, so its latency overlaps
  /// the stage read instead of following it. Only where publishes().
  virtual Value loadPublished(ImplicitLocOpBuilder &b, Value row, Value col) {
    return Value();
  }
  /// An i64 for the store that keeps the loads before griddepcontrol.wait
  /// to write, or null: where publishes(), the digest of the publish's
  /// addresses, so that they are read before the wait rather than on the
  /// exchange's critical path.
  virtual Value guardValue(ImplicitLocOpBuilder &b) { return Value(); }
  /// Runs on every thread after griddepcontrol.wait, before any read.
  virtual void prepare(ImplicitLocOpBuilder &b) {}
  /// Runs for every fragment a thread reads, before the first read: where
  /// the kernel publishes, `published` (loadPublished's) goes out.
  virtual void publish(ImplicitLocOpBuilder &b, Value row, Value col,
                       Value published) {}
  /// The FP32 r of the fragment at [row, col] (vector<8xf32>); runs only
  /// for fragments inside the row and tokens below M.
  virtual Value read(ImplicitLocOpBuilder &b, Value row, Value col) = 0;
  /// Runs on every thread once its row work is done.
  virtual void finish(ImplicitLocOpBuilder &b) {}
};

/// The fused kernel: the tp partials of the ACTIVE stage, summed in the op's
/// order and re-armed as soon as they are in registers; NEXT advanced once
/// per grid. With a `partial` buffer the kernel is also the publisher: the
/// stage is NEXT, each thread publishes its fragments before it polls them,
/// and the last CTA to arrive sets ACTIVE and advances NEXT (no CTA of the
/// grid may read NEXT after it moved).
class MailboxSource : public ReducedSource {
public:
  MailboxSource(KernelBody &kernel, SumOrder order,
                std::optional<uint64_t> timeoutNs, Value partial,
                TransportAttr transport, int64_t gridCtas)
      : kernel(kernel), mailbox(kernel.getMailbox()), order(order),
        timeoutNs(timeoutNs), partial(partial), transport(transport),
        gridCtas(gridCtas) {}

  void prepare(ImplicitLocOpBuilder &b) override {
    if (!partial) {
      stage = StageActiveOp::create(b, b.getI32Type(), mailbox);
      return;
    }
    stage = StageNextOp::create(b, b.getI32Type(), mailbox);
    // Count the CTA out as soon as every one of its threads has read NEXT,
    // before anything it publishes: the arrival's fence then waits for no
    // store, and the count is tested only in finish(), so the atomic's round
    // trip overlaps the exchange instead of ending the grid (an in-order
    // warp stalls at the first use of the count, not at the atomic).
    gpu::BarrierOp::create(b);
    arrivalsBefore = StageArriveOp::create(b, mailbox, gridCtas);
  }

  bool publishes() const override { return bool(partial); }

  Value guardValue(ImplicitLocOpBuilder &b) override {
    if (!partial)
      return Value();
    return MailboxAddressDigestOp::create(b, b.getI64Type(), mailbox);
  }

  Value loadPublished(ImplicitLocOpBuilder &b, Value row, Value col) override {
    auto narrowType = VectorType::get({int64_t(LamportDialect::kFragmentLanes)},
                                      b.getBF16Type());
    return vector::LoadOp::create(b, narrowType, partial, ValueRange{row, col},
                                  /*nontemporal=*/false, llvm::MaybeAlign(16));
  }

  void publish(ImplicitLocOpBuilder &b, Value row, Value col,
               Value published) override {
    if (!partial)
      return;
    MailboxPublishOp::create(b, published, mailbox, stage, row, col,
                             /*target=*/Value(), transport,
                             /*releaseBefore=*/false);
  }

  Value read(ImplicitLocOpBuilder &b, Value row, Value col) override {
    auto wideType = VectorType::get({int64_t(LamportDialect::kFragmentLanes)},
                                    b.getF32Type());
    SmallVector<Value> partials;
    for (Value fragment :
         pollEverySlot(b, b.getLoc(), mailbox, stage, row, col, timeoutNs))
      partials.push_back(arith::ExtFOp::create(b, wideType, fragment));
    Value sum = sumPartials(b, b.getLoc(), partials, order);
    // The partials are in registers: the slots can take the sentinel now,
    // off the critical path of the norms.
    rearmEverySlot(b, b.getLoc(), mailbox, stage, row, col);
    return sum;
  }

  void finish(ImplicitLocOpBuilder &b) override {
    if (!partial) {
      kernel.onLeadThread(b, b.getLoc(), /*wholeGrid=*/true,
                          [&](OpBuilder &nested, Location loc) {
                            StageAdvanceOp::create(nested, loc, mailbox, stage);
                          });
      return;
    }
    // The last arrival acquires every other one (stage.arrive leaves that
    // to its user) before it moves the words no CTA of the grid reads again.
    Value last = arith::CmpIOp::create(
        b, arith::CmpIPredicate::eq, arrivalsBefore,
        arith::ConstantIntOp::create(b, gridCtas - 1, 32));
    scf::IfOp::create(b, last, [&](OpBuilder &nested, Location loc) {
      LLVM::FenceOp::create(nested, loc, LLVM::AtomicOrdering::acq_rel,
                            "device");
      StageSetActiveOp::create(nested, loc, mailbox, stage,
                               /*readAfterGrid=*/true);
      StageAdvanceOp::create(nested, loc, mailbox, stage);
      scf::YieldOp::create(nested, loc);
    });
  }

private:
  KernelBody &kernel;
  Value mailbox;
  SumOrder order;
  std::optional<uint64_t> timeoutNs;
  /// The publishing form's partial (memref<rows x H x bf16, 1>) and
  /// transport; null otherwise.
  Value partial;
  TransportAttr transport;
  /// CTAs of the grid: rows x cluster size.
  int64_t gridCtas;
  Value stage;
  /// i32, publishing form only: the CTAs that arrived before this one, on
  /// its thread 0; `gridCtas` on every other thread.
  Value arrivalsBefore;
};

/// The standalone kernel: r is the BF16 `reduced` row, widened exactly.
class BufferSource : public ReducedSource {
public:
  explicit BufferSource(Value reduced) : reduced(reduced) {}

  Value read(ImplicitLocOpBuilder &b, Value row, Value col) override {
    auto narrowType = VectorType::get({int64_t(LamportDialect::kFragmentLanes)},
                                      b.getBF16Type());
    auto wideType = VectorType::get({int64_t(LamportDialect::kFragmentLanes)},
                                    b.getF32Type());
    Value fragment =
        vector::LoadOp::create(b, narrowType, reduced, ValueRange{row, col},
                               /*nontemporal=*/false, llvm::MaybeAlign(16));
    return arith::ExtFOp::create(b, wideType, fragment);
  }

private:
  Value reduced;
};

/// Builds the body both kernels share: one instance per gpu.func.
class DualNormBodyBuilder {
public:
  DualNormBodyBuilder(ImplicitLocOpBuilder &b, const DualNormShape &shape,
                      const DualNormValues &values, ReducedSource &source)
      : b(b), shape(shape), values(values), source(source), f32(b.getF32Type()),
        i32(b.getI32Type()),
        wideType(
            VectorType::get({int64_t(LamportDialect::kFragmentLanes)}, f32)),
        narrowType(VectorType::get({int64_t(LamportDialect::kFragmentLanes)},
                                   b.getBF16Type())),
        sharedPtr(LLVM::LLVMPointerType::get(b.getContext(), 3)) {}

  void build(gpu::GPUModuleOp module);

private:
  /// One of a thread's fragments and what it holds.
  struct Fragment {
    /// i1: the fragment lies inside the row (null where every one does).
    Value inRow;
    /// First channel of the fragment.
    Value col;
    /// The fragment's channels of the weights (BF16) and gates (FP32, the
    /// scalar ones broadcast); postWeight is null without a post_weight.
    Value postWeight, nextWeight, alpha, beta;
    Value reduced, stream;
    /// The fragment the kernel publishes (BF16), where it publishes.
    Value published;
  };

  /// The kernel's phases, in the order build() emits them.
  void computeCoordinates();
  /// The loads that do not depend on the previous kernel and are worth their
  /// registers while the thread waits: the weights, the scalar gates.
  void loadParameters();
  /// Right after griddepcontrol.wait, where the kernel publishes: each
  /// fragment's share of what it publishes (ReducedSource::loadPublished).
  void loadPublished();
  /// Everything between the first read of r and the stores of one row.
  void normalizeRow();

  /// With a cluster (C > 1): thread 0 initializes one mbarrier per row sum,
  /// each expecting the C CTA sums' bytes, and every thread arrives on the
  /// cluster barrier that makes the barriers visible to the peers (its wait
  /// is waitForSumBarriers()). Before griddepcontrol.wait: off the critical
  /// path of a PDL chain.
  void initSumBarriers();
  void waitForSumBarriers();
  /// The row's sum of `threadSum` over every thread of the cluster, the
  /// same bits on all of them; `reduction` picks the shared slots.
  Value sumRow(Value threadSum, int64_t reduction);
  /// The thread's sum of the squares of `vectors`, in fragment then lane
  /// order; fragments outside the row add nothing.
  Value sumSquares(ArrayRef<Value> vectors);
  /// 1 / sqrt(sum / H + eps), correctly rounded at each step.
  Value inverseRms(Value sum);
  /// The values `then` yields where `condition` holds (always where it is
  /// null), else zeros of the same types.
  SmallVector<Value> guarded(Value condition, TypeRange types,
                             function_ref<SmallVector<Value>()> then);
  /// Runs `then` where `condition` holds (always where it is null).
  void guarded(Value condition, function_ref<void()> then);
  /// i1: the fragment lies inside the row of a token below M.
  Value isLive(const Fragment &fragment) {
    return fragment.inRow
               ? Value(arith::AndIOp::create(b, active, fragment.inRow))
               : active;
  }

  Value indexConstant(int64_t value) {
    return arith::ConstantIndexOp::create(b, value);
  }
  Value i32Constant(int64_t value) {
    return arith::ConstantIntOp::create(b, i32, value);
  }
  Value f32Constant(float value) {
    return arith::ConstantOp::create(b, b.getF32FloatAttr(value));
  }
  /// BF16 to FP32, exact.
  Value widen(Value narrow) {
    return arith::ExtFOp::create(b, wideType, narrow);
  }
  Value splat(Value scalar) {
    return vector::BroadcastOp::create(b, wideType, scalar);
  }
  Value vectorLoad(VectorType type, Value memref, ValueRange indices) {
    return vector::LoadOp::create(b, type, memref, indices,
                                  /*nontemporal=*/false, llvm::MaybeAlign(16));
  }
  LLVM::GlobalOp sharedArray(gpu::GPUModuleOp module, StringRef name,
                             int64_t elements, Type elementType = Type()) {
    return createSharedArray(b, b.getLoc(), module, name,
                             elementType ? elementType : f32, elements);
  }
  Value sharedElement(LLVM::GlobalOp array, Value index, Type type = Type()) {
    Value base = LLVM::AddressOfOp::create(b, array);
    return LLVM::GEPOp::create(b, sharedPtr, type ? type : f32, base,
                               ValueRange{index},
                               LLVM::GEPNoWrapFlags::inbounds);
  }

  ImplicitLocOpBuilder &b;
  const DualNormShape &shape;
  const DualNormValues &values;
  ReducedSource &source;
  Type f32, i32;
  VectorType wideType, narrowType;
  Type sharedPtr;
  /// Per reduction, the warps' sums; with a cluster, the C CTA sums each
  /// CTA receives (slot reduction * C + sender) and an mbarrier (i64)
  /// completed by their bytes.
  LLVM::GlobalOp warpSums, ctaSums, sumBarriers;
  /// The token (CTA x), the CTA's rank in its cluster (CTA y, i32), the
  /// thread as an index and as i32, its lane and warp (i32), and whether the
  /// token is below M.
  Value token, ctaRank, thread, thread32, lane, warp, active;
  SmallVector<Fragment> fragments;
};
} // namespace

SmallVector<Value>
DualNormBodyBuilder::guarded(Value condition, TypeRange types,
                             function_ref<SmallVector<Value>()> then) {
  if (!condition)
    return then();
  auto ifOp = scf::IfOp::create(b, types, condition, /*addThenBlock=*/true,
                                /*addElseBlock=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  scf::YieldOp::create(b, then());
  b.setInsertionPointToStart(&ifOp.getElseRegion().front());
  SmallVector<Value> zeros;
  for (Type type : types)
    zeros.push_back(arith::ConstantOp::create(b, b.getZeroAttr(type)));
  scf::YieldOp::create(b, zeros);
  return SmallVector<Value>(ifOp.getResults());
}

void DualNormBodyBuilder::guarded(Value condition, function_ref<void()> then) {
  if (!condition)
    return then();
  auto ifOp = scf::IfOp::create(b, condition, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  then();
}

void DualNormBodyBuilder::build(gpu::GPUModuleOp module) {
  warpSums = sharedArray(module, "warp_sums", 2 * shape.warps());
  if (shape.ctas > 1) {
    ctaSums = sharedArray(module, "cta_sums", 2 * shape.ctas);
    sumBarriers = sharedArray(module, "sum_barriers", 2, b.getI64Type());
  }
  computeCoordinates();
  if (shape.ctas > 1)
    initSumBarriers();
  loadParameters();
  // Guarded: else ptxas hoists the wait above the parameter loads, and they
  // wait for the previous kernel instead of overlapping it.
  if (values.pdl) {
    Value guardValue = source.guardValue(b);
    PdlWaitOp::create(b, values.launchTokens, values.out, guardValue);
  }
  loadPublished();
  source.prepare(b);
  if (shape.ctas > 1)
    waitForSumBarriers();
  // Every CTA of a cluster has the same token, so a cluster past M skips
  // the row as a whole: no CTA waits for a sum a skipping one never sends.
  guarded(active, [&] { normalizeRow(); });
  source.finish(b);
}

void DualNormBodyBuilder::initSumBarriers() {
  Value isThreadZero = arith::CmpIOp::create(b, arith::CmpIPredicate::eq,
                                             thread32, i32Constant(0));
  // Released by the kernel's one cluster barrier (waitForSumBarriers),
  // which every CTA passes before it sends.
  SmallVector<Value> barriers;
  for (int64_t reduction = 0; reduction < 2; ++reduction)
    barriers.push_back(
        sharedElement(sumBarriers, i32Constant(reduction), b.getI64Type()));
  expectClusterBytes(b, b.getLoc(), isThreadZero, barriers, shape.ctas * 4);
}

void DualNormBodyBuilder::waitForSumBarriers() {
  NVVM::ClusterWaitOp::create(b, UnitAttr());
}

void DualNormBodyBuilder::computeCoordinates() {
  token = gpu::BlockIdOp::create(b, gpu::Dimension::x);
  Value cta = gpu::BlockIdOp::create(b, gpu::Dimension::y);
  // The cluster is (1, C) over a grid (rows, C): the rank in the cluster is
  // the CTA's y.
  ctaRank = arith::IndexCastUIOp::create(b, i32, cta);
  thread = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  thread32 = arith::IndexCastUIOp::create(b, i32, thread);
  lane = arith::AndIOp::create(b, thread32, i32Constant(kWarpSize - 1));
  warp = arith::ShRUIOp::create(b, thread32, i32Constant(5));
  active =
      arith::CmpIOp::create(b, arith::CmpIPredicate::ult, token, values.tokens);
  Value lanes = indexConstant(LamportDialect::kFragmentLanes);
  Value fragmentCount = indexConstant(shape.fragments);
  // Fragment k of a thread: f = (k * C + cta) * T + thread, so the threads
  // of a warp take consecutive fragments.
  Value first = arith::AddIOp::create(
      b, arith::MulIOp::create(b, cta, indexConstant(shape.threads)), thread);
  for (int64_t k = 0; k < shape.fragmentsPerThread; ++k) {
    Fragment fragment;
    Value index = arith::AddIOp::create(
        b, first, indexConstant(k * shape.ctas * shape.threads));
    // Only the last fragment of a thread can lie past the row.
    if (shape.needsGuard() && k == shape.fragmentsPerThread - 1)
      fragment.inRow = arith::CmpIOp::create(b, arith::CmpIPredicate::ult,
                                             index, fragmentCount);
    fragment.col = arith::MulIOp::create(b, index, lanes);
    fragments.push_back(fragment);
  }
}

void DualNormBodyBuilder::loadParameters() {
  // Scalar gates: one load each, broadcast; per-channel ones are loaded with
  // the stream.
  Value zero = indexConstant(0);
  auto scalarGate = [&](Value gate) -> Value {
    if (cast<MemRefType>(gate.getType()).getDimSize(0) != 1)
      return Value();
    return splat(memref::LoadOp::create(b, gate, ValueRange{zero}));
  };
  Value alpha = scalarGate(values.alpha), beta = scalarGate(values.beta);

  // The weights stay BF16 until used: 4 registers per fragment each while
  // the thread waits for the previous kernel and for r.
  for (Fragment &fragment : fragments) {
    fragment.alpha = alpha;
    fragment.beta = beta;
    Value condition = isLive(fragment);
    SmallVector<Type> types(1 + bool(values.postWeight), narrowType);
    SmallVector<Value> loaded = guarded(condition, types, [&] {
      SmallVector<Value> result = {
          vectorLoad(narrowType, values.nextWeight, fragment.col)};
      if (values.postWeight)
        result.push_back(
            vectorLoad(narrowType, values.postWeight, fragment.col));
      return result;
    });
    fragment.nextWeight = loaded[0];
    if (values.postWeight)
      fragment.postWeight = loaded[1];
  }
}

void DualNormBodyBuilder::loadPublished() {
  if (!source.publishes())
    return;
  // Loaded in publish() instead, the SASS had it after the stage read, the
  // barrier, the arrival's fence and the cluster wait: a second global
  // round trip on the way to the exchange (0.02-0.03 us of a 3.3-4.3 us tp 2
  // boundary when measured).
  for (Fragment &fragment : fragments) {
    Value condition = isLive(fragment);
    fragment.published = guarded(condition, narrowType, [&] {
      return SmallVector<Value>{source.loadPublished(b, token, fragment.col)};
    })[0];
  }
}

Value DualNormBodyBuilder::sumSquares(ArrayRef<Value> vectors) {
  Value sum = f32Constant(0.0f);
  for (auto [fragment, vector] : llvm::zip_equal(fragments, vectors)) {
    Value squares = arith::MulFOp::create(b, vector, vector);
    // Where a fragment may lie past the row, its squares are zeroed
    // explicitly: gates that are not finite must not leak into the sum.
    if (fragment.inRow)
      squares = arith::SelectOp::create(
          b, fragment.inRow, squares,
          arith::ConstantOp::create(b, b.getZeroAttr(wideType)));
    for (int64_t i = 0; i < LamportDialect::kFragmentLanes; ++i)
      sum = arith::AddFOp::create(b, sum,
                                  vector::ExtractOp::create(b, squares, i));
  }
  return sum;
}

Value DualNormBodyBuilder::sumRow(Value threadSum, int64_t reduction) {
  // The warp: a butterfly over the lanes, in a fixed order of offsets.
  Value sum = threadSum;
  Value allLanes = i32Constant(-1);
  Value clamp = i32Constant(kWarpSize - 1);
  for (int64_t offset = kWarpSize / 2; offset >= 1; offset /= 2) {
    Value other =
        NVVM::ShflOp::create(b, f32, allLanes, sum, i32Constant(offset), clamp,
                             NVVM::ShflKind::bfly, UnitAttr());
    sum = arith::AddFOp::create(b, sum, other);
  }
  Value warpBase = i32Constant(reduction * shape.warps());
  Value isLaneZero =
      arith::CmpIOp::create(b, arith::CmpIPredicate::eq, lane, i32Constant(0));
  guarded(isLaneZero, [&] {
    LLVM::StoreOp::create(
        b, sum,
        sharedElement(warpSums, arith::AddIOp::create(b, warpBase, warp)));
  });
  NVVM::Barrier0Op::create(b);

  // The CTA: its warps in warp order.
  auto sumWarps = [&]() -> Value {
    Value total;
    for (int64_t w = 0; w < shape.warps(); ++w) {
      Value value = LLVM::LoadOp::create(
          b, f32,
          sharedElement(warpSums, i32Constant(reduction * shape.warps() + w)));
      total = total ? Value(arith::AddFOp::create(b, total, value)) : value;
    }
    return total;
  };
  if (shape.ctas == 1)
    return sumWarps();

  // The cluster: threads 0..C-1 (lanes of warp 0) each add the warps and
  // send the CTA's sum into slot [reduction, this CTA] of CTA `thread`, so
  // the C sends leave together (lamport.cluster.send), whose bytes complete
  // that CTA's mbarrier of this reduction; every thread waits for its own CTA's
  // barrier (all C sums arrived) and adds the C slots in cluster rank
  // order, which is CTA y order. No cluster barrier: a CTA leaves only
  // after every sum meant for it arrived, and no CTA reads another's shared
  // memory.
  Value isSender = arith::CmpIOp::create(b, arith::CmpIPredicate::ult, thread32,
                                         i32Constant(shape.ctas));
  Value firstSlot = i32Constant(reduction * shape.ctas);
  Value barrier =
      sharedElement(sumBarriers, i32Constant(reduction), b.getI64Type());
  guarded(isSender, [&] {
    Value ownSlot =
        sharedElement(ctaSums, arith::AddIOp::create(b, firstSlot, ctaRank));
    ClusterSendOp::create(b, sumWarps(), ownSlot, barrier, thread32);
  });
  // Phase 0 of the barrier: each is used once per launch.
  ClusterWaitOp::create(b, barrier);
  Value total;
  for (int64_t rank = 0; rank < shape.ctas; ++rank) {
    Value value = LLVM::LoadOp::create(
        b, f32,
        sharedElement(ctaSums, i32Constant(reduction * shape.ctas + rank)));
    total = total ? Value(arith::AddFOp::create(b, total, value)) : value;
  }
  return total;
}

Value DualNormBodyBuilder::inverseRms(Value sum) {
  Value mean = arith::DivFOp::create(b, sum, f32Constant(float(shape.hidden)));
  Value shifted = arith::AddFOp::create(b, mean, f32Constant(values.eps));
  // sqrt.rn.f32 and div.rn.f32 (arith.divf): correctly rounded, so the same
  // bits on every GPU, unlike rsqrt.approx. llvm.nvvm.sqrt.rn.f rather than
  // llvm.intr.sqrt, which the GPU to NVVM conversion would send to libdevice.
  Value root = LLVM::CallIntrinsicOp::create(
                   b, f32, b.getStringAttr("llvm.nvvm.sqrt.rn.f"), shifted)
                   .getResult(0);
  return arith::DivFOp::create(b, f32Constant(1.0f), root);
}

void DualNormBodyBuilder::normalizeRow() {
  // Every fragment goes out before the first poll, so a thread never waits
  // for a peer's fragment while holding back one of its own.
  for (Fragment &fragment : fragments)
    guarded(fragment.inRow, [&] {
      source.publish(b, token, fragment.col, fragment.published);
    });
  // The old stream and the per-channel gates do not depend on r: loaded
  // before it, they are in flight while the thread waits for the partials
  // (the poll) instead of after it, on the way to the first norm.
  for (Fragment &fragment : fragments) {
    SmallVector<Type> types(1 + !fragment.alpha + !fragment.beta, wideType);
    SmallVector<Value> loaded = guarded(fragment.inRow, types, [&] {
      SmallVector<Value> result = {
          vectorLoad(wideType, values.stream, ValueRange{token, fragment.col})};
      if (!fragment.alpha)
        result.push_back(vectorLoad(wideType, values.alpha, fragment.col));
      if (!fragment.beta)
        result.push_back(vectorLoad(wideType, values.beta, fragment.col));
      return result;
    });
    unsigned next = 0;
    fragment.stream = loaded[next++];
    if (!fragment.alpha)
      fragment.alpha = loaded[next++];
    if (!fragment.beta)
      fragment.beta = loaded[next++];
  }
  for (Fragment &fragment : fragments)
    fragment.reduced =
        guarded(fragment.inRow, wideType, [&] {
          return SmallVector<Value>{source.read(b, token, fragment.col)};
        }).front();
  // r is in registers: the next kernel may start its prologue (its weight
  // loads) during the norms; its griddepcontrol.wait still waits for this
  // grid to complete. CTAs of tokens past M signal by exiting.
  if (values.pdl)
    NVVM::GriddepcontrolOp::create(b,
                                   NVVM::GridDepActionKind::launch_dependents);
  // h = r * inv1 [* post_weight]; stream = alpha * stream + beta * h.
  SmallVector<Value> reduced = llvm::map_to_vector(
      fragments, [](const Fragment &fragment) { return fragment.reduced; });
  Value firstInverse = splat(inverseRms(sumRow(sumSquares(reduced), 0)));
  for (Fragment &fragment : fragments) {
    Value h = arith::MulFOp::create(b, fragment.reduced, firstInverse);
    if (fragment.postWeight)
      h = arith::MulFOp::create(b, h, widen(fragment.postWeight));
    Value kept = arith::MulFOp::create(b, fragment.alpha, fragment.stream);
    Value added = arith::MulFOp::create(b, fragment.beta, h);
    fragment.stream = arith::AddFOp::create(b, kept, added);
  }

  // out = bf16((stream * inv2) * next_weight), round to nearest even.
  SmallVector<Value> streams = llvm::map_to_vector(
      fragments, [](const Fragment &fragment) { return fragment.stream; });
  Value secondSum = sumRow(sumSquares(streams), 1);
  Value secondInverse = splat(inverseRms(secondSum));
  for (Fragment &fragment : fragments) {
    guarded(fragment.inRow, [&] {
      SmallVector<Value> indices = {token, fragment.col};
      vector::StoreOp::create(b, fragment.stream, values.stream, indices,
                              /*nontemporal=*/false, llvm::MaybeAlign(16));
      Value scaled = arith::MulFOp::create(b, fragment.stream, secondInverse);
      Value normalized =
          arith::MulFOp::create(b, scaled, widen(fragment.nextWeight));
      // arith.truncf without a rounding mode is LLVM's fptrunc: round to
      // nearest even (cvt.rn.bf16x2.f32).
      Value rounded = arith::TruncFOp::create(b, narrowType, normalized);
      vector::StoreOp::create(b, rounded, values.out, indices,
                              /*nontemporal=*/false, llvm::MaybeAlign(16));
    });
  }
}

//===----------------------------------------------------------------------===//
// The two ops
//===----------------------------------------------------------------------===//

namespace {
/// What the two ops share, read off either.
struct DualNormOperands {
  Value stream, alpha, beta, postWeight, nextWeight, out;
  FloatAttr eps;
  bool pdl = false;
  /// all_reduce_dual_norm's `publishing` partial, or null.
  Value partial = {};
};
} // namespace

/// The most tokens one launch carries: the static M of the first token
/// operand that has one, else `maxTokens`; and the operand whose M the
/// launch passes (a static one where there is one).
static std::pair<int64_t, Value> getRows(ArrayRef<Value> tokenOperands,
                                         int64_t maxTokens) {
  for (Value operand : tokenOperands) {
    auto type = cast<MemRefType>(operand.getType());
    if (!type.isDynamicDim(0))
      return {type.getDimSize(0), operand};
  }
  return {maxTokens, tokenOperands.front()};
}

/// Generates the kernel of either op: `reduced` is null for the fused one,
/// whose `mailbox` is then set; `makeSource` builds its ReducedSource.
static LogicalResult generateDualNorm(
    ProgramOpInterface op, Value mailbox, Value reduced,
    const DualNormOperands &operands, int64_t hidden, int64_t maxTokens,
    ArrayRef<NamedAttribute> extraAttributes,
    const KernelGenerationOptions &options,
    function_ref<std::unique_ptr<ReducedSource>(KernelBody &,
                                                const DualNormValues &)>
        makeSource) {
  DualNormShape shape = DualNormShape::get(hidden);
  std::string reason = shape.unsupported();
  if (!reason.empty())
    return op->emitOpError() << "has no kernel: " << reason;

  SmallVector<Value> tokenOperands;
  if (reduced)
    tokenOperands.push_back(reduced);
  if (operands.partial)
    tokenOperands.push_back(operands.partial);
  tokenOperands.append({operands.stream, operands.out});
  int64_t rows;
  Value tokensBuffer;
  std::tie(rows, tokensBuffer) = getRows(tokenOperands, maxTokens);

  KernelSignature signature;
  signature.family = op.getKernelFamily();
  signature.mailbox = mailbox;
  if (failed(addProgramBuffers(op, rows, signature)))
    return failure();
  signature.tokensBuffer = tokensBuffer;
  signature.tokensDim = 0;
  signature.pdl = operands.pdl;
  signature.launch = FixedLaunch{rows, shape.ctas, shape.threads, shape.ctas};
  MLIRContext *ctx = op->getContext();
  signature.attributes.push_back(
      NamedAttribute(StringAttr::get(ctx, "eps"), operands.eps));
  signature.attributes.append(extraAttributes.begin(), extraAttributes.end());

  return generateKernel(
      op, signature, options,
      [&](OpBuilder &builder, Location loc, KernelBody &kernel) {
        ImplicitLocOpBuilder b(loc, builder);
        unsigned next = reduced ? 1 : 0;
        DualNormValues values;
        values.stream = kernel.getBuffer(next++);
        values.alpha = kernel.getBuffer(next++);
        values.beta = kernel.getBuffer(next++);
        if (operands.postWeight)
          values.postWeight = kernel.getBuffer(next++);
        values.nextWeight = kernel.getBuffer(next++);
        values.out = kernel.getBuffer(next++);
        if (operands.partial)
          values.partial = kernel.getBuffer(next++);
        values.gridCtas = rows * shape.ctas;
        // An M past the rows of the grid (which the runtime rejects before
        // launch) must not make the kernel touch rows its buffers lack.
        values.launchTokens = kernel.getLaunchTokens();
        Value tokens = arith::IndexCastUIOp::create(b, b.getIndexType(),
                                                    values.launchTokens);
        values.tokens = arith::MinUIOp::create(
            b, tokens, arith::ConstantIndexOp::create(b, rows));
        values.eps = operands.eps.getValue().convertToFloat();
        values.pdl = operands.pdl;
        std::unique_ptr<ReducedSource> source = makeSource(kernel, values);
        auto module = kernel.getFunc()->getParentOfType<gpu::GPUModuleOp>();
        DualNormBodyBuilder(b, shape, values, *source).build(module);
        builder.setInsertionPoint(b.getInsertionBlock(), b.getInsertionPoint());
      });
}

LogicalResult mlir::lamport::generateAllReduceDualNormKernel(
    AllReduceDualNormOp op, const KernelGenerationOptions &options) {
  MailboxType mailboxType = op.getMailbox().getType();
  DualNormOperands operands{
      op.getStream(),     op.getAlpha(),      op.getBeta(),
      op.getPostWeight(), op.getNextWeight(), op.getOut(),
      op.getEpsAttr(),    op.getPdl(),        op.getPartial()};
  MLIRContext *ctx = op.getContext();
  SumOrder order = op.getSumOrder();
  std::optional<uint64_t> timeoutNs = op.getTimeoutNs();
  SmallVector<NamedAttribute> attributes;
  attributes.push_back(NamedAttribute(StringAttr::get(ctx, "sum_order"),
                                      SumOrderAttr::get(ctx, order)));
  TransportAttr transport;
  if (op.getPartial()) {
    transport = TransportAttr::get(ctx, op.getTransport() ? *op.getTransport()
                                                          : options.transport);
    attributes.push_back(
        NamedAttribute(StringAttr::get(ctx, "transport"), transport));
  }
  if (timeoutNs)
    attributes.push_back(NamedAttribute(
        StringAttr::get(ctx, "timeout_ns"),
        IntegerAttr::get(IntegerType::get(ctx, 64), int64_t(*timeoutNs))));
  return generateDualNorm(
      op, op.getMailbox(), /*reduced=*/Value(), operands,
      mailboxType.getWidth(), mailboxType.getMaxTokens(), attributes, options,
      [&](KernelBody &kernel,
          const DualNormValues &values) -> std::unique_ptr<ReducedSource> {
        return std::make_unique<MailboxSource>(kernel, order, timeoutNs,
                                               values.partial, transport,
                                               values.gridCtas);
      });
}

LogicalResult
mlir::lamport::generateDualNormKernel(DualNormOp op,
                                      const KernelGenerationOptions &options) {
  DualNormOperands operands{
      op.getStream(),     op.getAlpha(), op.getBeta(),    op.getPostWeight(),
      op.getNextWeight(), op.getOut(),   op.getEpsAttr(), op.getPdl()};
  return generateDualNorm(
      op, /*mailbox=*/Value(), op.getReduced(), operands,
      op.getReduced().getType().getDimSize(1), LamportDialect::kMaxTokens,
      /*extraAttributes=*/{}, options,
      [&](KernelBody &kernel,
          const DualNormValues &) -> std::unique_ptr<ReducedSource> {
        return std::make_unique<BufferSource>(kernel.getBuffer(0));
      });
}
