//===- DualNormKernel.h - The dual norm kernels' shared parts ---*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// The launch shape, parameters and body builder of the kernels of
// lamport.all_reduce_dual_norm and lamport.dual_norm, private to
// lamport-generate-kernels: DualNormKernel.cpp builds the body both share,
// DualNormGeneration.cpp the two ways of obtaining r (ReducedSource) and
// the kernels of each op.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_LIB_DIALECT_LAMPORT_TRANSFORMS_DUALNORMKERNEL_H
#define LAMPORT_LIB_DIALECT_LAMPORT_TRANSFORMS_DUALNORMKERNEL_H

#include "KernelGeneration.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "llvm/Support/FormatVariadic.h"

#include <string>

namespace mlir::lamport {

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

} // namespace mlir::lamport

#endif // LAMPORT_LIB_DIALECT_LAMPORT_TRANSFORMS_DUALNORMKERNEL_H
