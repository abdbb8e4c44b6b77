//===- KernelOps.cpp - Mechanisms the generated kernels share -------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#include "lamport/Dialect/Lamport/IR/Lamport.h"

using namespace mlir;
using namespace mlir::lamport;

/// Largest transaction count an mbarrier phase can expect (PTX ISA:
/// tx-count is in [0, 2^20 - 1]).
static constexpr int64_t kMaxTransactionBytes = (int64_t(1) << 20) - 1;

LogicalResult ClusterExpectBytesOp::verify() {
  int64_t bytes = getBytes();
  if (bytes < 4 || bytes > kMaxTransactionBytes || bytes % 4)
    return emitOpError() << "expects " << bytes
                         << " bytes: an mbarrier's transaction count must be "
                            "a positive multiple of 4 (each "
                            "lamport.cluster.send carries 4 bytes) of at most "
                         << kMaxTransactionBytes;
  return success();
}

LogicalResult PdlWaitOp::verify() {
  MemRefType guard = getGuard().getType();
  if (!guard.getLayout().isIdentity())
    return emitOpError() << "guard must be a dense row-major memref: the "
                            "lowering stores to its first element";
  if (Attribute space = guard.getMemorySpace()) {
    auto integer = dyn_cast<IntegerAttr>(space);
    if (!integer || integer.getInt() != 1)
      return emitOpError() << "guard must be in global memory (address space "
                              "1 or the default space), got "
                           << space;
  }
  if (!guard.getElementType().isIntOrFloat())
    return emitOpError() << "guard must hold integers or floats, got "
                         << guard.getElementType();
  int64_t neededBytes = getGuardValue() ? 8 : 4;
  int64_t elementBits = guard.getElementTypeBitWidth();
  if (guard.getNumElements() * elementBits < neededBytes * 8)
    return emitOpError() << "guard holds "
                         << guard.getNumElements() * elementBits / 8
                         << " bytes, but the never-taken guard store writes "
                         << neededBytes;
  return success();
}

/// Largest arrival count an mbarrier takes (PTX ISA: [1, 2^20 - 1]).
static constexpr int64_t kMaxArrivals = (int64_t(1) << 20) - 1;

LogicalResult RingInitOp::verify() {
  int64_t arrivals = getArrivals();
  if (arrivals < 1 || arrivals > kMaxArrivals)
    return emitOpError() << "expects " << arrivals
                         << " arrivals: an mbarrier takes 1 to "
                         << kMaxArrivals;
  return success();
}

/// Bytes of a stage or a bulk copy: a positive multiple of 16 (the bulk
/// copy's granule) of at most an mbarrier's transaction count.
static LogicalResult verifyBulkBytes(Operation *op, int64_t bytes) {
  if (bytes < 16 || bytes > kMaxTransactionBytes || bytes % 16)
    return op->emitOpError()
           << "expects " << bytes
           << " bytes: a bulk copy moves a positive multiple of 16 bytes, "
              "and an mbarrier counts at most "
           << kMaxTransactionBytes;
  return success();
}

LogicalResult RingExpectOp::verify() {
  return verifyBulkBytes(*this, getBytes());
}

LogicalResult BulkCopyOp::verify() {
  return verifyBulkBytes(*this, getBytes());
}

LogicalResult BulkTensorCopyOp::verify() {
  return verifyBulkBytes(*this, getBytes());
}

LogicalResult RingWaitOp::verify() {
  if (getParity() != 0 && getParity() != 1)
    return emitOpError() << "expects parity 0 or 1, got " << getParity();
  return success();
}
