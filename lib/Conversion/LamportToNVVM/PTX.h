//===- PTX.h - PTX the NVVM dialect has no op for ---------------*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// Every PTX instruction the lowering writes as text lives in PTX.cpp, emitted
// as llvm.inline_asm with every operand in a register: ptxas rejects
// immediates folded into some of them (multimem.st).
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_LIB_CONVERSION_LAMPORTTONVVM_PTX_H
#define LAMPORT_LIB_CONVERSION_LAMPORTTONVVM_PTX_H

#include "mlir/IR/Builders.h"

namespace mlir::lamport::ptx {

/// `multimem.st.relaxed.sys.global.v4.f32 [address], {w0, w1, w2, w3}`: one
/// 16-byte fragment (`words`, vector<4xi32>) stored through the NVLink
/// multicast `address` (`ptr<1>`) into every rank's copy (PTX ISA 8.1,
/// sm_90). The .f32 type only moves bits: nothing is rounded or flushed.
void storeMulticastFragment(OpBuilder &b, Location loc, Value address,
                            Value words);

/// Thread 0 of the CTA (`isThreadZero`, i1) increments the 32-bit counter
/// at `address` (`ptr<1>`) with PTX `atom.inc` (old >= limit ? 0 : old + 1)
/// after a `fence.acq_rel.gpu` and gets the old value; every other thread
/// gets `otherwise`. One predicated instruction sequence, no branch: the
/// result is an i32 nobody waits for until it is used (a branch around the
/// atomic would let LLVM test the result inside it, and the thread's warp
/// would stall there for the atomic's round trip).
Value countOnThreadZero(OpBuilder &b, Location loc, Value isThreadZero,
                        Value address, Value limit, Value otherwise);

} // namespace mlir::lamport::ptx

#endif // LAMPORT_LIB_CONVERSION_LAMPORTTONVVM_PTX_H
