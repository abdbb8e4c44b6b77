//===- PTX.h - PTX the NVVM dialect has no op for ---------------*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// Every PTX instruction Lamport writes as text lives in PTX.cpp, emitted as
// llvm.inline_asm with every operand in a register: ptxas rejects
// immediates folded into some of them (multimem.st). Private to
// convert-lamport-to-nvvm: the kernel generators emit lamport and upstream
// ops, and the patterns of this conversion turn them into these.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_LIB_CONVERSION_LAMPORTTONVVM_PTX_H
#define LAMPORT_LIB_CONVERSION_LAMPORTTONVVM_PTX_H

#include "mlir/IR/Builders.h"

namespace mlir::lamport::ptx {

/// `instruction` as inline PTX with side effects and a memory clobber, so
/// LLVM neither drops it nor moves memory accesses across it. Operands are
/// bound to registers by `constraints` ("l" 64-bit, "r" 32-bit; an output
/// first as "=r" where `result` is set). Returns the result, or null.
Value inlinePTX(OpBuilder &b, Location loc, Type result, StringRef instruction,
                StringRef constraints, ValueRange operands);

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

/// `st.async.shared::cluster.mbarrier::complete_tx::bytes.b32`: the i32
/// `value` into `address` (`ptr<7>`, a peer's shared memory through mapa),
/// completing 4 bytes of the mbarrier at `barrier` (`ptr<7>`, same CTA).
void storeAsyncToCluster(OpBuilder &b, Location loc, Value address, Value value,
                         Value barrier);

/// `createpolicy.fractional.L2::evict_first.b64`: an L2 cache policy (i64)
/// that marks every line it touches first to go, for data read once.
Value createEvictFirstPolicy(OpBuilder &b, Location loc);

/// `ld.global.L2::cache_hint.v4.b32`: one 16-byte load of global memory at
/// `address` (`ptr<1>`) under the L2 cache `policy` (createEvictFirstPolicy),
/// as vector<4xi32>. It stays in program order with other side effects (the
/// PDL wait) but has no memory clobber.
Value loadFragmentWithPolicy(OpBuilder &b, Location loc, Value address,
                             Value policy);

/// Keeps the global loads issued before this point ahead of a
/// `griddepcontrol.wait` that follows. ptxas treats the wait as free to move
/// above loads, and does move it to the top of the kernel, so that loads
/// meant to overlap the previous kernel wait for it instead. It does not
/// move a coherent load below a store that may alias it, nor the wait above
/// a store: this is such a store, `@p st.global.b32 [guardAddress], 0`, with
/// p = `launchTokens` (the raw i32 token count) > INT32_MAX, which a launch
/// never passes (the runtime refuses M outside 1..max); `guardAddress` is
/// the kernel's output (y), which the kernel overwrites anyway. With
/// `guardValue` (i64) the store writes it instead (`st.global.b64`), so
/// whatever computes it is issued before the wait too.
void keepLoadsBeforeWait(OpBuilder &b, Location loc, Value launchTokens,
                         Value guardAddress, Value guardValue = Value());

} // namespace mlir::lamport::ptx

#endif // LAMPORT_LIB_CONVERSION_LAMPORTTONVVM_PTX_H
