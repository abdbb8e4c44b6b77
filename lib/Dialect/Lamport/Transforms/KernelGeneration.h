//===- KernelGeneration.h - Shared parts of generated kernels ---*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// What every kernel family of lamport-generate-kernels shares: the kernel's
// signature and launch shape, the gpu.module / gpu.func scaffolding, the
// program-side gpu.launch_func that replaces the op, and the small builders
// the kernel bodies are made of (the grid-stride loop over work items, the
// lead thread, PDL, polling every rank's slot). Private to the pass.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_LIB_DIALECT_LAMPORT_TRANSFORMS_KERNELGENERATION_H
#define LAMPORT_LIB_DIALECT_LAMPORT_TRANSFORMS_KERNELGENERATION_H

#include "lamport/Dialect/Lamport/IR/Lamport.h"
#include "lamport/Dialect/Lamport/Transforms/KernelGenerator.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"

#include <functional>
#include <optional>

namespace mlir::lamport {

/// What a generated kernel's parameter is, in docs/bundle.md's words.
enum class KernelParamKind { Mailbox, Buffer, Tokens };

/// One buffer parameter of a generated kernel and the program value bound
/// to it.
struct KernelBuffer {
  /// The program's memref (a function argument of the program).
  Value value;
  /// The kernel's view of it: static, dense, in the global address space.
  MemRefType kernelType;
  /// "in" when the kernel only reads it, "out" when it only writes it.
  StringRef io;
  /// What the buffer is to the op ("rows", "x", "stream", "out"...): how a
  /// runtime tells an op's buffers apart (the manifest's param `role`).
  StringRef role;
};

/// A tensor map parameter of a generated kernel: the runtime encodes it
/// (cuTensorMapEncodeTiled) from a buffer parameter's address and shape, a
/// 2-D tile of `boxInner` x `boxOuter` elements, and passes its 128 bytes.
struct KernelTensorMap {
  /// Index of the buffer (in the signature's buffers) it describes.
  unsigned buffer;
  int64_t boxInner, boxOuter;
};

/// A launch shape a kernel family fixes itself instead of sizing the grid
/// from its work items (the GEMM's grid follows its tactic).
struct FixedLaunch {
  /// CTAs along x and y.
  int64_t gridX = 1, gridY = 1;
  int64_t blockSize = 32;
  /// CTAs per cluster along y (1: no cluster).
  int64_t clusterY = 1;
  /// Bytes of dynamic shared memory each CTA takes (0: none); the manifest's
  /// `shared_bytes`.
  int64_t dynamicSharedBytes = 0;
};

/// Everything a kernel family decides about the kernel of one op.
struct KernelSignature {
  /// The family and the name prefix of the kernel: "publish_rows".
  StringRef family;
  /// The mailbox the kernel publishes to or polls; null for a kernel that
  /// takes none (a GEMM that only stores y).
  Value mailbox;
  /// The buffers, in parameter order, after the mailbox.
  SmallVector<KernelBuffer> buffers;
  /// Tensor maps of buffers, in parameter order, after the buffers.
  SmallVector<KernelTensorMap, 1> tensorMaps;
  /// The program buffer and dimension holding the token count M.
  Value tokensBuffer;
  unsigned tokensDim = 0;
  /// Work items (one per thread and loop trip) at M = capacity: what sizes
  /// the grid.
  int64_t workItemsAtCapacity = 0;
  /// The op's attributes that change what the result must be (recorded for
  /// the runtime's host reference).
  SmallVector<NamedAttribute> attributes;
  /// Whether the kernel waits with griddepcontrol.wait.
  bool pdl = false;
  /// The launch shape, where the family fixes it.
  std::optional<FixedLaunch> launch;
};

/// The kernel being built: its gpu.func, launch shape and parameters, for
/// the family's body builder.
class KernelBody {
public:
  KernelBody(gpu::GPUFuncOp func, int64_t gridSize, int64_t gridY,
             int64_t blockSize, bool hasMailbox, unsigned tensorMaps = 0)
      : func(func), gridSize(gridSize), gridY(gridY), blockSize(blockSize),
        firstBuffer(hasMailbox ? 1 : 0), tensorMaps(tensorMaps) {}

  gpu::GPUFuncOp getFunc() { return func; }
  /// The mailbox parameter, or null for a kernel that takes none.
  Value getMailbox() { return firstBuffer ? func.getArgument(0) : Value(); }
  MailboxType getMailboxType() {
    return cast<MailboxType>(getMailbox().getType());
  }
  /// The i-th buffer parameter.
  Value getBuffer(unsigned i) { return func.getArgument(firstBuffer + i); }
  /// The i-th tensor map parameter: a generic pointer to its 128 bytes.
  Value getTensorMap(unsigned i) {
    return func.getArgument(func.getNumArguments() - 1 - tensorMaps + i);
  }
  /// The token count M as the launch passed it: the last parameter, an i32
  /// no kernel has clamped yet.
  Value getLaunchTokens() { return func.getArguments().back(); }
  /// The token count M as an index, at most the mailbox capacity.
  Value getTokens(OpBuilder &b, Location loc);

  /// Runs `body(item)` for every work item in [0, count) over the whole
  /// grid: item = CTA * block + thread, then strides of the grid size. The
  /// consecutive threads of a warp take consecutive items.
  void forEachWorkItem(OpBuilder &b, Location loc, Value count,
                       function_ref<void(OpBuilder &, Location, Value)> body);
  /// Runs `body` on thread 0 of every CTA (`wholeGrid` false) or of CTA
  /// (0, 0) alone (`wholeGrid` true).
  void onLeadThread(OpBuilder &b, Location loc, bool wholeGrid,
                    function_ref<void(OpBuilder &, Location)> body);

private:
  gpu::GPUFuncOp func;
  /// CTAs along x (what the grid-stride loop strides over) and along y.
  int64_t gridSize;
  int64_t gridY;
  int64_t blockSize;
  /// Index of the first buffer parameter: 1 after a mailbox, else 0.
  unsigned firstBuffer;
  /// Tensor map parameters, between the buffers and the token count.
  unsigned tensorMaps;
};

/// Builds the body of a generated kernel; the builder is at the start of
/// the entry block and the terminator is added afterwards.
using KernelBodyBuilder =
    std::function<void(OpBuilder &, Location, KernelBody &)>;

/// Creates the gpu.module and gpu.func of `signature` for `op` (named
/// `<family>_<n>`, the first n not yet used in the module) and returns the
/// gpu.func; the program is left as it is.
gpu::GPUFuncOp createKernel(Operation *op, const KernelSignature &signature,
                            const KernelGenerationOptions &options,
                            const KernelBodyBuilder &buildBody);

/// Creates, at `b`'s insertion point, the gpu.launch_func of `func` (made by
/// createKernel from `signature`) with the views, token count and launch
/// shape its parameters take.
void createLaunch(OpBuilder &b, Location loc, const KernelSignature &signature,
                  gpu::GPUFuncOp func);

/// Creates the gpu.module and gpu.func of `signature` for `op` and replaces
/// `op` by its gpu.launch_func. Fails, with a diagnostic on `op`, where a
/// buffer cannot be passed as the kernel expects.
LogicalResult generateKernel(Operation *op, const KernelSignature &signature,
                             const KernelGenerationOptions &options,
                             const KernelBodyBuilder &buildBody);

/// What a consumer kernel does between reading the ACTIVE stage and
/// advancing NEXT: its work items over `stage`.
using ConsumerBodyBuilder =
    function_ref<void(OpBuilder &, Location, KernelBody &, Value stage)>;

/// generateKernel for a kernel that consumes a mailbox's ACTIVE stage
/// (poll_rows, all_reduce, all_gather): with PDL it first waits for the
/// grid before it; it reads ACTIVE and runs `consume`; then one thread of the
/// grid advances NEXT (the next publisher of this rank writes the generation
/// after the one just read) and, with PDL, the dependents may launch.
LogicalResult generateConsumerKernel(Operation *op,
                                     const KernelSignature &signature,
                                     const KernelGenerationOptions &options,
                                     ConsumerBodyBuilder consume);

/// The signature of a kernel that consumes `op`'s mailbox into its `out`:
/// the op's family, mailbox, program buffers at the mailbox's capacity and
/// PDL flag, the token count M from `out`'s dimension `tokensDim`, and
/// `workItemsAtCapacity` work items at M = capacity.
template <typename ConsumerOp>
FailureOr<KernelSignature> getConsumerSignature(ConsumerOp op,
                                                unsigned tokensDim,
                                                int64_t workItemsAtCapacity) {
  KernelSignature signature;
  signature.family = op.getKernelFamily();
  signature.mailbox = op.getMailbox();
  if (failed(addProgramBuffers(op, op.getMailbox().getType().getCapacity(),
                               signature)))
    return failure();
  signature.tokensBuffer = op.getOut();
  signature.tokensDim = tokensDim;
  signature.workItemsAtCapacity = workItemsAtCapacity;
  signature.pdl = op.getPdl();
  return signature;
}

/// The kernel view of a program buffer whose dimension `tokensDim` is the
/// token count: dense row-major in the global address space, M replaced by
/// the mailbox capacity; `flat` gives the one-dimensional view a kernel uses
/// where M is not the leading dimension (the rows of one slot are then M,
/// not capacity, apart). Fails with a diagnostic on `op` for a buffer that
/// is not a dense memref in the default or global address space.
FailureOr<MemRefType> getKernelBufferType(Operation *op, StringRef name,
                                          MemRefType type, unsigned tokensDim,
                                          int64_t capacity, bool flat);

/// Appends the buffers of `op` to `signature` in the order and with the roles
/// and access its ProgramOpInterface reports, each viewed as
/// getKernelBufferType gives it for `capacity` tokens (flat where M is not
/// the leading dimension).
LogicalResult addProgramBuffers(ProgramOpInterface op, int64_t capacity,
                                KernelSignature &signature);

/// A CTA-shared array of `elements` values of `elementType` in `module`
/// (internal, 16-byte aligned, address space 3), as the kernels' reductions
/// and mbarriers use them.
LLVM::GlobalOp createSharedArray(OpBuilder &b, Location loc,
                                 gpu::GPUModuleOp module, StringRef name,
                                 Type elementType, int64_t elements);

/// The kernel's dynamic shared memory as an array of `elementType` in
/// `module` (an external, unsized address-space-3 global, 16-byte aligned):
/// as many bytes as the launch's FixedLaunch::dynamicSharedBytes.
LLVM::GlobalOp createDynamicSharedArray(OpBuilder &b, Location loc,
                                        gpu::GPUModuleOp module, StringRef name,
                                        Type elementType);

/// The receiving side of a cluster exchange: where `isLead` (i1) holds,
/// each mbarrier of `barriers` (`ptr<3>`) is set up to complete once
/// `bytes` bytes of lamport.cluster.send landed
/// (lamport.cluster.expect_bytes) and the inits are fenced for the cluster;
/// then every thread arrives on the cluster barrier. The caller's matching
/// `nvvm.cluster.wait`, before any CTA sends, completes the release.
void expectClusterBytes(OpBuilder &b, Location loc, Value isLead,
                        ArrayRef<Value> barriers, int64_t bytes);

/// The raw global pointer (`!llvm.ptr<1>`) of a kernel memref: its aligned
/// pointer, for inline PTX and LLVM loads and stores.
Value getGlobalPointer(OpBuilder &b, Location loc, Value memref);

/// Splits a work item into its token row and the first column of its
/// fragment, for a mailbox `width` BF16 wide.
std::pair<Value, Value> getRowAndColumn(OpBuilder &b, Location loc, Value item,
                                        int64_t width);

/// Waits for the fragment at [row, col] of every rank's slot of `stage`,
/// one lamport.mailbox.poll per 32 ranks (slots are `capacity * width`
/// elements apart): tp vector<8xbf16>, in rank order.
SmallVector<Value> pollEverySlot(OpBuilder &b, Location loc, Value mailbox,
                                 Value stage, Value row, Value col,
                                 std::optional<uint64_t> timeoutNs);

/// Stores the sentinel over the fragments pollEverySlot read.
void rearmEverySlot(OpBuilder &b, Location loc, Value mailbox, Value stage,
                    Value row, Value col);

/// Sums `partials` (FP32 values or vectors, in rank order) in `order`:
/// rank_ascending is ((p0 + p1) + p2) + ...; pairwise adds neighbours level
/// by level, ((p0 + p1) + (p2 + p3)) + ..., an odd last partial joining the
/// next level unchanged. Both orders are fixed, so every rank gets the same
/// bits.
Value sumPartials(OpBuilder &b, Location loc, ArrayRef<Value> partials,
                  SumOrder order);

/// Kernel families: each checks its op and generates its kernel.
LogicalResult generatePublishRowsKernel(PublishRowsOp op,
                                        const KernelGenerationOptions &options);
LogicalResult generatePollRowsKernel(PollRowsOp op,
                                     const KernelGenerationOptions &options);
LogicalResult generateAllReduceKernel(AllReduceOp op,
                                      const KernelGenerationOptions &options);
LogicalResult generateGemmPublishKernel(GemmPublishOp op,
                                        const KernelGenerationOptions &options);
LogicalResult
generateAllReduceDualNormKernel(AllReduceDualNormOp op,
                                const KernelGenerationOptions &options);
LogicalResult generateDualNormKernel(DualNormOp op,
                                     const KernelGenerationOptions &options);
LogicalResult generateAllGatherKernel(AllGatherOp op,
                                      const KernelGenerationOptions &options);

} // namespace mlir::lamport

#endif // LAMPORT_LIB_DIALECT_LAMPORT_TRANSFORMS_KERNELGENERATION_H
