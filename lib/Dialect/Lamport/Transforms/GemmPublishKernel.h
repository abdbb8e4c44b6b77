//===- GemmPublishKernel.h - The small-M GEMM kernel body -------*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// The launch shape and body builder of lamport.gemm_publish's kernel,
// private to lamport-generate-kernels.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_LIB_DIALECT_LAMPORT_TRANSFORMS_GEMMPUBLISHKERNEL_H
#define LAMPORT_LIB_DIALECT_LAMPORT_TRANSFORMS_GEMMPUBLISHKERNEL_H

#include "lamport/Dialect/Lamport/IR/Lamport.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#include <string>

namespace mlir {
class ImplicitLocOpBuilder;
} // namespace mlir

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
    return sharedBytes() > kMaxStaticReductionBytes ? sharedBytes() : 0;
  }
  /// Why the generated kernel cannot take this shape (beyond what the op's
  /// verifier already checks), or an empty string.
  std::string unsupported() const;
};

/// The kernel's parameters as values inside its gpu.func.
struct GemmKernelValues {
  /// memref<N x K x bf16, 1>, memref<T x K x bf16, 1>, memref<T x N x bf16,
  /// 1>: bare pointers in the bundle ABI.
  Value weight, x, y;
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

} // namespace mlir::lamport

#endif // LAMPORT_LIB_DIALECT_LAMPORT_TRANSFORMS_GEMMPUBLISHKERNEL_H
