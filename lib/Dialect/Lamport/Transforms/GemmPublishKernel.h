//===- GemmPublishKernel.h - The small-M GEMM kernel body -------*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// The launch shape and body builder of lamport.gemm_publish's kernel,
// private to lamport-generate-kernels: GemmPublishKernel.cpp builds the main
// loop (weights, activations, MMAs), GemmPublishReduction.cpp the split-K
// reduction and the publishing epilogue, GemmPublishGeneration.cpp the
// kernels of an op and the launches that choose between them by M.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_LIB_DIALECT_LAMPORT_TRANSFORMS_GEMMPUBLISHKERNEL_H
#define LAMPORT_LIB_DIALECT_LAMPORT_TRANSFORMS_GEMMPUBLISHKERNEL_H

#include "KernelGeneration.h"

#include "lamport/Dialect/Lamport/IR/Lamport.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

#include <optional>
#include <string>

namespace mlir::lamport {

/// The launch shape of one token tile of a gemm_publish: y[M, n] = x[M, k] @
/// W[n, k]^T on a grid of (n / (16 * tiles), splits) CTAs of `warps` warps.
struct GemmLaunchShape {
  int64_t n = 0, k = 0;
  int64_t splits = 1, kw = 0, accs = 1;
  /// Tiles of 16 features one CTA owns (1, 2 or 4); their MMAs share the
  /// warp's activation fragments.
  int64_t tiles = 1;
  /// Blocks of featuresPerCta() features one CTA takes in turn (1, 2, 4 or
  /// 8; more than 1 with one split only).
  int64_t passes = 1;
  /// Tokens one kernel computes (8 or 16): M up to this.
  int64_t tokenTile = 8;
  int64_t warps = 1;
  /// Whether griddepcontrol.launch_dependents comes before the weight loads
  /// (else after the MMAs).
  bool earlyDependents = false;
  /// A warp's last chunks of 32 K whose weights load after the PDL wait,
  /// behind x (with several passes, the first pass's).
  int64_t lateChunks = 0;
  /// The bulk pipeline (GemmPublishBulk.cpp): the weights stream through a
  /// ring of `stages` shared-memory stages of `stageBytes` bytes, filled by
  /// the bulk-copy engine from `producerLanes` lanes of warp 0.
  bool bulk = false;
  int64_t stages = 0, stageBytes = 0, producerLanes = 1;
  /// The ring's first loads each warp reads into registers before the PDL
  /// wait, as the tactic's `early_reads` asks; none asked, the rule of
  /// earlyReadLoads().
  std::optional<int64_t> earlyReads;
  /// Which stages take tensor copies (the generator's `bulk-copies`).
  BulkCopies bulkCopies = BulkCopies::automatic;

  /// The launch shape `tactic` gives an [n, k] weight at `tokenTile` tokens.
  static GemmLaunchShape of(TacticAttr tactic, int64_t n, int64_t k,
                            int64_t tokenTile);

  int64_t threads() const { return warps * 32; }
  int64_t featuresPerCta() const {
    return GemmPublishOp::kFeaturesPerTile * tiles;
  }
  int64_t gridX() const { return n / (featuresPerCta() * passes); }
  /// Shared memory of the reduction: every warp's FP32 partial of the CTA's
  /// [tokenTile, features] block, and one slot per split.
  int64_t sharedBytes() const {
    return (warps + splits) * tokenTile * featuresPerCta() * 4;
  }
  /// Static shared memory beside the reduction's: the publish stage word and
  /// the split barrier, 16 bytes each with their alignment.
  static constexpr int64_t kOtherSharedBytes = 32;
  /// The reduction's buffers live in static shared memory up to this many
  /// bytes (the 48 KiB a kernel may declare statically, less the others),
  /// and in dynamic shared memory past it.
  static constexpr int64_t kMaxStaticReductionBytes =
      48 * 1024 - kOtherSharedBytes;
  /// Bytes of dynamic shared memory the launch takes: the reduction's, where
  /// they do not fit the static budget; else 0.
  int64_t dynamicSharedBytes() const {
    if (bulk)
      return ringBytes() + sharedBytes();
    return sharedBytes() > kMaxStaticReductionBytes ? sharedBytes() : 0;
  }
  /// K of one bulk stage: its bytes over the CTA's weight rows.
  int64_t stageK() const { return stageBytes / (featuresPerCta() * 2); }
  /// Whether a stage is one contiguous run of the weight: whole rows (one
  /// split, a stage of all K), so one bulk copy fills it.
  bool contiguousStage() const { return splits == 1 && stageK() == k; }
  /// Bytes between two weight rows of a stage in shared memory: the row's K,
  /// and where each row has its own copy 64 bytes more, so rows g and g + 1
  /// of one 16-byte shared load fall on different banks.
  int64_t stageRowBytes() const {
    if (tensorStage())
      return boxK() * 2;
    return stageK() * 2 + (contiguousStage() ? 0 : kStageRowPadding);
  }
  /// Whether tensor copies fill each stage: boxes of every row of the
  /// stage x boxK() K, through a tensor map of the weight, where a stage is
  /// not contiguous and (bulkCopies automatic) the CTA streams: its rows
  /// are shorter than kRowCopyBytes and its loads refill the ring. The GPU
  /// completes only a few thousand bulk copies a microsecond, so short row
  /// copies bound a stream; rows of 2 KiB and more copy as fast, and where
  /// the whole share fits the ring, row copies were faster
  /// (docs/design/gemm.md, "Tensor copies").
  bool tensorStage() const {
    if (!bulk || contiguousStage() || bulkCopies == BulkCopies::rows)
      return false;
    return bulkCopies == BulkCopies::tensor ||
           (stageK() * 2 < kRowCopyBytes && passes * stagesPerPass() > stages);
  }
  static constexpr int64_t kRowCopyBytes = 2048;
  /// K of one tensor-copy box: the largest multiple of 32 up to 256 (the
  /// most a box dimension takes) that divides the stage's K. A stage is
  /// stageK() / boxK() boxes, each [rows][boxK()] dense in the slot.
  int64_t boxK() const {
    constexpr int64_t chunk = GemmPublishOp::kChunkK;
    for (int64_t box = 256; box >= chunk; box -= chunk)
      if (stageK() % box == 0)
        return box;
    return chunk;
  }
  static constexpr int64_t kStageRowPadding = 64;
  /// Bulk copies that fill one stage: one, or one per weight row.
  int64_t copiesPerStage() const {
    if (tensorStage())
      return stageK() / boxK();
    return contiguousStage() ? 1 : featuresPerCta();
  }
  /// Bytes of one stage's slot in the ring, and of the whole ring (ahead of
  /// the reduction's buffers in dynamic shared memory); 0 without bulk.
  int64_t slotBytes() const {
    return tensorStage() ? stageBytes : featuresPerCta() * stageRowBytes();
  }
  int64_t ringBytes() const { return bulk ? stages * slotBytes() : 0; }
  /// Stages of one pass: the CTA's K slice over a stage's K.
  int64_t stagesPerPass() const { return k / splits / stageK(); }
  /// Registers of weight fragments a thread holds for one load: its warp's
  /// chunks of the stage x tiles x 2 rows x 4 words.
  int64_t registersPerLoad() const {
    return kw / GemmPublishOp::kChunkK / stagesPerPass() * tiles * 8;
  }
  /// Where the tactic leaves `early_reads` out: with one pass, the leading
  /// loads that fit kEarlyReadRegisters of fragments; with several, none
  /// (their early reads hold registers through the first pass's MMAs and
  /// reduction, and gained or lost by tactic: docs/design/gemm.md, "Reads
  /// before the wait").
  static constexpr int64_t kEarlyReadRegisters = 64;
  /// The loads read before the PDL wait: the tactic's count, else the rule
  /// above, never past the ring's first fill or the CTA's loads.
  int64_t earlyReadLoads() const {
    if (earlyReads)
      return std::min(*earlyReads, firstFillLoads());
    return passes > 1 ? 0 : budgetedEarlyReads();
  }
  /// The loads of the ring's first fill: those copied before the PDL wait.
  int64_t firstFillLoads() const {
    return std::min(stages, passes * stagesPerPass());
  }
  /// The leading loads whose fragments fit kEarlyReadRegisters.
  int64_t budgetedEarlyReads() const {
    return std::min(firstFillLoads(), kEarlyReadRegisters / registersPerLoad());
  }
  /// Why the generated kernel cannot take this shape (beyond what the op's
  /// verifier already checks), or an empty string.
  std::string unsupported() const;
  /// The same for the bulk pipeline's knobs (GemmPublishBulk.cpp).
  std::string bulkUnsupported() const;
};

/// The kernel's parameters as values inside its gpu.func.
struct GemmKernelValues {
  /// memref<N x K x bf16, 1>, memref<T x K x bf16, 1>, memref<T x N x bf16,
  /// 1>: bare pointers in the bundle ABI.
  Value weight, x, y;
  /// The tensor map of the weight (the generic address of a kernel
  /// parameter), where tensor copies fill the bulk pipeline's stages.
  Value weightMap;
  /// The mailbox to publish y into, or null.
  Value mailbox;
  /// memref<1xi32, 1> ticket word, or null (only with a mailbox).
  Value ticket;
  /// i32 token count M, clamped to the most the buffers hold.
  Value tokens;
  /// The launch's i32 token count as passed (before the clamp): opaque to
  /// ptxas, it guards the store that keeps the weight loads before the PDL
  /// wait.
  Value launchTokens;
  TransportAttr transport;
  bool pdl = false;
};

/// Builds the kernel body at `b`'s insertion point (inside a gpu.func of
/// `module`, which receives the kernel's shared-memory arrays).
void buildGemmPublishBody(ImplicitLocOpBuilder &b, gpu::GPUModuleOp module,
                          const GemmLaunchShape &shape,
                          const GemmKernelValues &values);

/// Output features of one tile: the 16 rows of one MMA A operand.
static constexpr int64_t kFeaturesPerTile = GemmPublishOp::kFeaturesPerTile;
/// Features of one fragment: what one epilogue thread stores and publishes.
static constexpr int64_t kFragmentFeatures = LamportDialect::kFragmentLanes;
/// Shared memory a CTA may take on sm_90 and sm_100 (227 KiB, static and
/// dynamic together, the dynamic part opted into at load time).
static constexpr int64_t kMaxSharedBytes = 227 * 1024;
/// K one lane covers with one 16-byte load, times the 4 lanes of a row.
static constexpr int64_t kChunkK = GemmPublishOp::kChunkK;
/// Tokens of one MMA B operand.
static constexpr int64_t kTokensPerMma = 8;

/// Builds the kernel body: one instance per gpu.func. Its methods live in
/// GemmPublishKernel.cpp (main loop) and GemmPublishReduction.cpp.
class GemmBodyBuilder {
public:
  GemmBodyBuilder(ImplicitLocOpBuilder &b, const GemmLaunchShape &shape,
                  const GemmKernelValues &values)
      : b(b), shape(shape), values(values), i32(b.getI32Type()),
        globalPtr(LLVM::LLVMPointerType::get(b.getContext(), 1)),
        sharedPtr(LLVM::LLVMPointerType::get(b.getContext(), 3)),
        fragmentWords(VectorType::get({4}, i32)),
        tokenBlocks(shape.tokenTile / kTokensPerMma),
        chunks(shape.kw / kChunkK), tiles(shape.tiles),
        features(shape.featuresPerCta()),
        ctaElements(shape.tokenTile * features) {}

  void build(gpu::GPUModuleOp module);
  /// The bulk pipeline's kernel (GemmPublishBulk.cpp).
  void buildBulk(gpu::GPUModuleOp module);

private:
  /// Per token block (activations) or per feature tile (weight rows), per
  /// 32-wide K chunk: one lane's 16-byte fragment.
  using Fragments = SmallVector<SmallVector<Value>>;
  /// Per accumulator, per feature tile, per token block: one MMA's four FP32
  /// values.
  using Accumulators =
      SmallVector<SmallVector<SmallVector<SmallVector<Value>>>>;

  /// The kernel's phases, in the order build() emits them.
  void computeLaneCoordinates();
  /// The weight rows of the block of `features` features from
  /// `blockFeature` (this lane's fragments) in chunks [firstChunk,
  /// endChunk), appended to the tiles' lists (which chunk 0 starts afresh).
  void loadWeights(Value blockFeature, Fragments &upperRows,
                   Fragments &lowerRows, int64_t firstChunk, int64_t endChunk);
  /// The first feature of this CTA's block in pass `pass`.
  Value passFeature(int64_t pass) {
    return pass ? add(firstFeature, pass * features) : firstFeature;
  }
  /// x, token block by token block, chunk by chunk; chunk c at K
  /// laneK + chunkK(c) (the register pipeline's c * 32 when null).
  Fragments loadActivations(function_ref<int64_t(int64_t)> chunkK = nullptr);
  Accumulators multiply(const Fragments &upperRows, const Fragments &lowerRows,
                        const Fragments &activations);
  /// Zeroed accumulators of every tile and token block.
  Accumulators zeroAccumulators();
  /// The MMAs of one 32-wide K chunk: weight chunk `weightChunk` of the rows,
  /// activation chunk `activationChunk` of x; `stepIndex` picks the
  /// accumulators and advances by the chunk's two steps.
  void multiplyChunk(Accumulators &accumulators, const Fragments &upperRows,
                     const Fragments &lowerRows, const Fragments &activations,
                     int64_t weightChunk, int64_t activationChunk,
                     int64_t &stepIndex);
  /// With PDL: the guarded wait for the previous kernel, after the loads
  /// that do not depend on it (the guard stores the publish's address
  /// digest with a mailbox and one pass).
  void waitForPredecessor();
  /// Thread 0 reads the stage to publish after the PDL wait (with a mailbox).
  Value readStageEarly(gpu::GPUModuleOp module);
  /// One pass's tail: launch_dependents (after the last pass's MMAs, when
  /// not early), the stage word, the split-K reduction and the epilogue.
  void finishPass(const Accumulators &accumulators, int64_t pass,
                  Value earlyStage);
  /// The bulk pipeline: the ring's barriers, one stage fill (load `load` of
  /// the CTA's sequence into its slot, by the producer lanes), and one
  /// stage's weight fragments read from shared memory.
  void createRing(gpu::GPUModuleOp module);
  void fillStage(int64_t load);
  void readStage(int64_t load, Fragments &upperRows, Fragments &lowerRows);
  Value ringBarrier(LLVM::GlobalOp array, int64_t slot) {
    return sharedElement(array, constant(slot), b.getI64Type());
  }
  void storeWarpPartials(const Accumulators &accumulators);
  /// With several splits: rank 0's split barrier, an mbarrier expecting the
  /// other ranks' sums, initialized and released to the cluster before the
  /// weight loads.
  void initSplitBarrier(gpu::GPUModuleOp module);
  void sumWarpsIntoSplitSlot();
  /// Orders every split's sum before rank 0 reads them; true on rank 0.
  Value synchronizeSplits();
  /// The stage the epilogue publishes into: NEXT, or the ticket's.
  Value stageToPublish();
  /// Rank 0 stores (and publishes) the block from `blockFeature`; after the
  /// last pass, CTA (0, 0) also sets ACTIVE.
  void emitEpilogue(Value isRankZero, Value blockFeature, bool lastPass);
  Value isThreadZero() {
    return arith::CmpIOp::create(b, arith::CmpIPredicate::eq, thread,
                                 constant(0));
  }
  /// One epilogue thread's work: slot `slot` of `slots` (token, fragment)
  /// pairs; slots past the last or tokens past M do nothing.
  void storeFragment(Value slot, int64_t slots, Value stage,
                     Value blockFeature);

  Value constant(int64_t value) {
    return arith::ConstantIntOp::create(b, i32, value);
  }
  Value add(Value lhs, Value rhs) { return arith::AddIOp::create(b, lhs, rhs); }
  Value add(Value lhs, int64_t rhs) { return add(lhs, constant(rhs)); }
  Value mul(Value lhs, int64_t rhs) {
    return arith::MulIOp::create(b, lhs, constant(rhs));
  }
  Value lessThan(Value lhs, Value rhs) {
    return arith::CmpIOp::create(b, arith::CmpIPredicate::ult, lhs, rhs);
  }

  /// The raw global pointer of a kernel memref (a bare pointer parameter).
  Value globalPointer(Value memref) {
    return getGlobalPointer(b, b.getLoc(), memref);
  }
  /// Address of element `index` (i32, elements of `elementType`) past
  /// `base`.
  Value elementAddress(Value base, Value index, Type elementType, Type ptrTy);
  /// One 16-byte load of `base[index]` (BF16 elements) as four i32 words;
  /// `invariant` (the weights) loads under the evict-first L2 policy, by
  /// the coherent path: ptxas may sink non-coherent loads past the PDL
  /// wait whatever precedes it (lamport.pdl.wait).
  Value loadFragment(Value base, Value index, bool invariant);
  Value word(Value fragment, int64_t i) {
    return LLVM::ExtractElementOp::create(b, i32, fragment, constant(i));
  }
  /// One of the reduction's buffers: its array and the first element there
  /// (both buffers share the dynamic array when they live in it).
  struct SharedBuffer {
    LLVM::GlobalOp array;
    int64_t first = 0;
  };
  /// The reduction's buffers, in static shared memory where they fit, else
  /// one after the other in the kernel's dynamic shared memory.
  void createReductionBuffers(gpu::GPUModuleOp module);
  Value sharedElement(const SharedBuffer &buffer, Value index) {
    return sharedElement(buffer.array,
                         buffer.first ? add(index, buffer.first) : index);
  }
  /// A shared-memory array of `elements` FP32 in `module`.
  LLVM::GlobalOp sharedArray(gpu::GPUModuleOp module, StringRef name,
                             int64_t elements, Type elementType = Type()) {
    return createSharedArray(b, b.getLoc(), module, name,
                             elementType ? elementType : b.getF32Type(),
                             elements);
  }
  Value sharedElement(LLVM::GlobalOp array, Value index,
                      Type elementType = Type()) {
    Value base = LLVM::AddressOfOp::create(b, array);
    return elementAddress(
        base, index, elementType ? elementType : b.getF32Type(), sharedPtr);
  }
  /// Rank 0's split barrier (an i64 mbarrier).
  Value splitBarrierAddress() {
    return sharedElement(splitBarrier, constant(0), b.getI64Type());
  }

  ImplicitLocOpBuilder &b;
  const GemmLaunchShape &shape;
  const GemmKernelValues &values;
  Type i32, globalPtr, sharedPtr;
  VectorType fragmentWords;
  /// MMA token blocks per token tile, 32-wide K chunks per warp, feature
  /// tiles per CTA, features per CTA (16 per tile), and FP32 values of one
  /// CTA's [token tile, features] partial.
  int64_t tokenBlocks, chunks, tiles, features, ctaElements;
  /// The reduction's shared-memory buffers, and rank 0's mbarrier that the
  /// other ranks' sums complete (several splits only).
  SharedBuffer partials, splitSums;
  LLVM::GlobalOp splitBarrier;
  /// Cluster rank, and whether it is 0 (several splits only).
  Value rank, isRankZero;
  /// One word of shared memory: the stage thread 0 read after the PDL wait,
  /// for the epilogue (kept as the bits of an FP32, as sharedArray makes).
  LLVM::GlobalOp stageSlot;
  /// Lane coordinates (group = lane / 4, quad = lane % 4) and the first
  /// feature and K this lane touches.
  Value thread, split, warp, group, quad, firstFeature, laneK;
  /// The bulk pipeline: the dynamic shared array (ring first), the stages'
  /// full and empty barriers, this lane's byte offset in a stage, whether
  /// it is a producer lane, and the producer's lane index.
  LLVM::GlobalOp dynamicShared, ringFull, ringEmpty;
  Value stageLaneByte, isProducer, producerLane;
  /// With tensor copies: the first K of a stage this warp reads.
  Value warpStageK;
  /// Raw global pointers of the weight, x and y.
  Value weight, x, y;
  /// L2 policy of the weight loads: evict first. The weights are read once
  /// a step and are the bulk of the traffic; as the first lines to go they
  /// leave x, y and the mailboxes in L2 (1-3.5% at M = 8 and 16, 0.8% over
  /// the seed shapes, docs/design/gemm.md).
  Value weightPolicy;
};

} // namespace mlir::lamport

#endif // LAMPORT_LIB_DIALECT_LAMPORT_TRANSFORMS_GEMMPUBLISHKERNEL_H
