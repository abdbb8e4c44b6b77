//===- Fragment.h - 16-byte fragments and the sentinel ----------*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// A fragment is 16 bytes: eight BF16 lanes, held in registers as four 32-bit
// words (vector<4xi32>). The sentinel is BF16 -0.0, bit pattern 0x8000,
// always tested with integer ops so that no NaN, infinity or subnormal is
// ever mistaken for it or altered.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_LIB_CONVERSION_LAMPORTTONVVM_FRAGMENT_H
#define LAMPORT_LIB_CONVERSION_LAMPORTTONVVM_FRAGMENT_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir::lamport {

/// Bytes in one fragment, the unit of every mailbox load and store.
constexpr unsigned kFragmentBytes = 16;
/// 32-bit words in one fragment.
constexpr unsigned kFragmentWords = 4;

/// vector<4xi32>: one fragment in registers.
VectorType getFragmentWordsType(MLIRContext *ctx);

/// For `words` (vector<N x i32>, two BF16 lanes per word): bit 15 of every
/// BF16 lane that is exactly the sentinel 0x8000, every other bit 0.
/// Per lane x: (x & 0x7fff) + 0x7fff carries into bit 15 iff the low 15 bits
/// are not all zero, and no lane can carry into its neighbour.
Value getSentinelLanes(OpBuilder &b, Location loc, Value words);

/// `words` with every sentinel lane turned into +0.0 (0x0000), every other
/// lane kept bit for bit: what a publish stores.
Value clearSentinelLanes(OpBuilder &b, Location loc, Value words);

/// i1: whether any BF16 lane of the fragment `words` is the sentinel.
Value hasSentinelLane(OpBuilder &b, Location loc, Value words);

/// The fragment of eight sentinels, 0x80008000 in every word.
Value getSentinelFragment(OpBuilder &b, Location loc);

/// One 16-byte `ld.volatile.global` of the fragment at `address`.
Value loadFragmentVolatile(OpBuilder &b, Location loc, Value address);

/// One 16-byte `st.global` of `words` at `address`.
void storeFragment(OpBuilder &b, Location loc, Value words, Value address);

} // namespace mlir::lamport

#endif // LAMPORT_LIB_CONVERSION_LAMPORTTONVVM_FRAGMENT_H
