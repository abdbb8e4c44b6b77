//===- KernelOps.td - Mechanisms the generated kernels share -*- tablegen -*-===//
//
// Part of the Lamport project.
//
// The kernel-level ops that are not about a mailbox: what the kernel
// generators compose besides the protocol's publish, poll and stage ops.
// Cluster exchanges (the fixed-order sum of partials across the CTAs of a
// cluster), the PDL wait kept behind the loads issued before it,
// streaming loads under an L2 policy, and the ring of shared-memory stages
// the bulk-copy engine fills. Each is lowered by a pattern in
// convert-lamport-to-nvvm, the only place that writes PTX text.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_DIALECT_LAMPORT_IR_KERNELOPS_TD
#define LAMPORT_DIALECT_LAMPORT_IR_KERNELOPS_TD

include "lamport/Dialect/Lamport/IR/LamportDialect.td"
include "mlir/Dialect/LLVMIR/LLVMOpBase.td"
include "mlir/IR/CommonTypeConstraints.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

/// A pointer into the CTA's shared memory (LLVM address space 3).
def Lamport_SharedPointer : LLVM_PointerInAddressSpace<3>;
/// A pointer into global memory (LLVM address space 1).
def Lamport_GlobalPointer : LLVM_PointerInAddressSpace<1>;

//===----------------------------------------------------------------------===//
// Cluster exchanges
//===----------------------------------------------------------------------===//

def Lamport_ClusterExpectBytesOp : Lamport_KernelOp<"cluster.expect_bytes"> {
  let summary = "set up an mbarrier that completes once peers sent N bytes";
  let description = [{
    The receiving side of a cluster exchange: initializes the shared-memory
    mbarrier at `barrier` with one arrival, which this thread then makes
    while expecting `bytes` bytes of transactions. Phase 0 of the barrier
    completes once that many bytes of `lamport.cluster.send` have landed in
    this CTA. One thread of the receiving CTA issues it; the init must then
    be released to the cluster (`nvvm.fence.mbarrier.init` and a cluster
    barrier arrive / wait pair) before any peer sends.

    ```mlir
    lamport.cluster.expect_bytes %barrier, 3072 : !llvm.ptr<3>
    ```
  }];
  let arguments = (ins Lamport_SharedPointer:$barrier, I64Attr:$bytes);
  let assemblyFormat = "$barrier `,` $bytes attr-dict `:` qualified(type($barrier))";
  let hasVerifier = 1;
}

def Lamport_ClusterSendOp : Lamport_KernelOp<"cluster.send"> {
  let summary = "store 4 bytes into a peer CTA's shared memory, counted";
  let description = [{
    The sending side of a cluster exchange: stores `value` (32 bits) at
    `slot` of the CTA of cluster rank `rank` (`slot` and `barrier` are
    addresses in this CTA's shared memory; the same offsets in the peer are
    meant) with an asynchronous store whose 4 bytes complete that CTA's
    mbarrier at `barrier` (set up by `lamport.cluster.expect_bytes`). No
    cluster barrier is needed after it: the receiver learns of the bytes
    from its mbarrier, so the sender may exit at once.

    ```mlir
    lamport.cluster.send %sum to %slot of %rank completing %barrier
        : f32
    ```
  }];
  let arguments = (ins AnyTypeOf<[I32, F32]>:$value,
                       Lamport_SharedPointer:$slot,
                       Lamport_SharedPointer:$barrier, I32:$rank);
  let assemblyFormat = [{
    $value `to` $slot `of` $rank `completing` $barrier attr-dict `:`
    type($value)
  }];
}

def Lamport_ClusterWaitOp : Lamport_KernelOp<"cluster.wait"> {
  let summary = "wait until the bytes an mbarrier expects have landed";
  let description = [{
    Waits for phase 0 of the shared-memory mbarrier at `barrier`: every byte
    its `lamport.cluster.expect_bytes` asked for has arrived, and the
    stores that carried them are visible to this thread. Each exchange
    barrier is used once per launch.

    ```mlir
    lamport.cluster.wait %barrier : !llvm.ptr<3>
    ```
  }];
  let arguments = (ins Lamport_SharedPointer:$barrier);
  let assemblyFormat = "$barrier attr-dict `:` qualified(type($barrier))";
}

//===----------------------------------------------------------------------===//
// Programmatic dependent launch
//===----------------------------------------------------------------------===//

def Lamport_PdlWaitOp : Lamport_KernelOp<"pdl.wait"> {
  let summary = "griddepcontrol.wait kept behind the loads issued before it";
  let description = [{
    Waits for the previous grid on the stream (PDL), after every global load
    issued before it in program order. ptxas treats `griddepcontrol.wait` as
    free to move above loads, and does, so loads meant to overlap the
    previous kernel (weights) would wait for it. It does not move the wait
    above a store, nor a coherent load below a store that may alias it: the
    lowering puts such a store first, one that never runs, predicated on
    `launch_tokens` (the launch's raw i32 token count) exceeding INT32_MAX,
    which no launch passes. The store's address is `guard`, an output buffer
    of the kernel, which the kernel overwrites anyway. With `guard_value`
    (i64) it stores that value, so whatever computes it is issued before the
    wait as well (a mailbox's `lamport.mailbox.address_digest`).

    ```mlir
    lamport.pdl.wait %tokens, %y : memref<16x8192xbf16, 1>
    lamport.pdl.wait %tokens, %y, %digest : memref<16x8192xbf16, 1>
    ```
  }];
  let arguments = (ins I32:$launch_tokens, AnyStaticShapeMemRef:$guard,
                       Optional<I64>:$guard_value);
  let assemblyFormat = [{
    $launch_tokens `,` $guard (`,` $guard_value^)? attr-dict `:`
    type($guard)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Streaming loads
//===----------------------------------------------------------------------===//

def Lamport_EvictFirstPolicyOp
    : Lamport_KernelOp<"l2.evict_first_policy", [Pure]> {
  let summary = "an L2 policy that evicts the lines it touches first";
  let description = [{
    A 64-bit L2 cache policy for data read once per launch (a GEMM's
    weights): the lines it loads are the first to go, which leaves the
    activations, outputs and mailboxes in L2.

    ```mlir
    %policy = lamport.l2.evict_first_policy
    ```
  }];
  let results = (outs I64:$policy);
  let builders = [
    OpBuilder<(ins), [{
      build($_builder, $_state, $_builder.getI64Type());
    }]>
  ];
  let assemblyFormat = "attr-dict";
}

def Lamport_LoadFragmentOp : Lamport_KernelOp<"l2.load_fragment"> {
  let summary = "one 16-byte global load under an L2 cache policy";
  let description = [{
    Loads the 16 bytes at `address` (16-byte aligned, global memory) as
    four words, under the L2 `policy` of `lamport.l2.evict_first_policy`,
    through the coherent path. It stays in program order with the other
    side effects of the kernel (a `lamport.pdl.wait` after it keeps it
    ahead of the wait) but other memory accesses may move across it.

    ```mlir
    %words = lamport.l2.load_fragment %address, %policy
        : !llvm.ptr<1> -> vector<4xi32>
    ```
  }];
  let arguments = (ins Lamport_GlobalPointer:$address, I64:$policy);
  let results = (outs VectorOfLengthAndType<[4], [I32]>:$words);
  let builders = [
    OpBuilder<(ins "Value":$address, "Value":$policy), [{
      build($_builder, $_state,
            VectorType::get({4}, $_builder.getI32Type()), address, policy);
    }]>
  ];
  let assemblyFormat = [{
    $address `,` $policy attr-dict `:` qualified(type($address)) `->`
    type($words)
  }];
}

//===----------------------------------------------------------------------===//
// Bulk copies into a ring of shared-memory stages
//===----------------------------------------------------------------------===//

def Lamport_RingInitOp : Lamport_KernelOp<"ring.init"> {
  let summary = "set up one mbarrier of a shared-memory stage ring";
  let description = [{
    Initializes the shared-memory mbarrier at `barrier` for `arrivals`
    arrivals per phase (a stage's "full" barrier takes the one arrival of
    `lamport.ring.expect`; its "empty" barrier one `lamport.ring.release` of
    each consumer thread) and makes the init visible to the bulk-copy engine
    (`fence.mbarrier_init`). One thread issues it; a CTA barrier must follow
    before any other thread uses the barrier.

    ```mlir
    lamport.ring.init %full, 1 : !llvm.ptr<3>
    ```
  }];
  let arguments = (ins Lamport_SharedPointer:$barrier, I64Attr:$arrivals);
  let assemblyFormat = "$barrier `,` $arrivals attr-dict `:` qualified(type($barrier))";
  let hasVerifier = 1;
}

def Lamport_RingExpectOp : Lamport_KernelOp<"ring.expect"> {
  let summary = "arrive on a stage's barrier, expecting its bulk copies' bytes";
  let description = [{
    The producer's arrival on a stage's "full" barrier: one arrival that
    also expects `bytes` bytes of transactions, which the stage's
    `lamport.bulk.copy`s complete. The phase completes once both happened,
    whichever comes first.

    ```mlir
    lamport.ring.expect %full, 16384 : !llvm.ptr<3>
    ```
  }];
  let arguments = (ins Lamport_SharedPointer:$barrier, I64Attr:$bytes);
  let assemblyFormat = "$barrier `,` $bytes attr-dict `:` qualified(type($barrier))";
  let hasVerifier = 1;
}

def Lamport_BulkCopyOp : Lamport_KernelOp<"bulk.copy"> {
  let summary = "copy global memory into shared memory by the bulk-copy engine";
  let description = [{
    Copies `bytes` bytes from `source` (global, 16-byte aligned) to
    `destination` (this CTA's shared memory, 16-byte aligned) with
    `cp.async.bulk`, under the L2 `policy` of
    `lamport.l2.evict_first_policy`. No register holds the bytes on the
    way: the copy engine completes `bytes` transactions of the mbarrier at
    `barrier` once they landed, and a `lamport.ring.wait` on that barrier
    makes them visible.

    ```mlir
    lamport.bulk.copy 1024 from %source into %stage completing %full,
        %policy : !llvm.ptr<1>
    ```
  }];
  let arguments = (ins I64Attr:$bytes, Lamport_GlobalPointer:$source,
                       Lamport_SharedPointer:$destination,
                       Lamport_SharedPointer:$barrier, I64:$policy);
  let assemblyFormat = [{
    $bytes `from` $source `into` $destination `completing` $barrier `,`
    $policy attr-dict `:` qualified(type($source))
  }];
  let hasVerifier = 1;
}

def Lamport_BulkTensorCopyOp : Lamport_KernelOp<"bulk.copy_tensor"> {
  let summary = "copy a box of a 2-D tensor into shared memory by the bulk-copy engine";
  let description = [{
    Copies the box of `bytes` bytes at element coordinates (`inner`,
    `outer`) of the tensor that `tensor_map` describes (the generic address
    of a 64-byte aligned `CUtensorMap`, a kernel parameter) into
    `destination` (this CTA's shared memory, 128-byte aligned), densely, row
    after row, with `cp.async.bulk.tensor.2d`, under the L2 `policy` of
    `lamport.l2.evict_first_policy`. One instruction moves every row of the
    box; its bytes complete transactions of the mbarrier at `barrier`.

    ```mlir
    lamport.bulk.copy_tensor 16384 from %map[%k, %row] into %stage
        completing %full, %policy
    ```
  }];
  let arguments = (ins I64Attr:$bytes, LLVM_AnyPointer:$tensor_map,
                       I32:$inner, I32:$outer,
                       Lamport_SharedPointer:$destination,
                       Lamport_SharedPointer:$barrier, I64:$policy);
  let assemblyFormat = [{
    $bytes `from` $tensor_map `[` $inner `,` $outer `]` `into` $destination
    `completing` $barrier `,` $policy attr-dict `:` qualified(type($tensor_map))
  }];
  let hasVerifier = 1;
}

def Lamport_PrefetchTensorMapOp : Lamport_KernelOp<"bulk.prefetch_tensor_map"> {
  let summary = "fetch a tensor map ahead of its first tensor copy";
  let description = [{
    Brings the tensor map at `tensor_map` (the generic address of a kernel
    parameter) into the cache the tensor copies read it from, so the first
    `lamport.bulk.copy_tensor` through it does not wait for its fetch
    (`prefetch.tensormap`).

    ```mlir
    lamport.bulk.prefetch_tensor_map %map : !llvm.ptr
    ```
  }];
  let arguments = (ins LLVM_AnyPointer:$tensor_map);
  let assemblyFormat = "$tensor_map attr-dict `:` qualified(type($tensor_map))";
}

def Lamport_RingWaitOp : Lamport_KernelOp<"ring.wait"> {
  let summary = "wait for one phase of a stage's barrier";
  let description = [{
    Waits until the phase of parity `parity` (0 or 1) of the shared-memory
    mbarrier at `barrier` has completed: for a "full" barrier, the stage's
    bytes have landed and are visible to this thread; for an "empty" one,
    every consumer has released the stage. A ring of S stages uses the n-th
    fill of a stage as phase n, so its parity is n % 2.

    ```mlir
    lamport.ring.wait %full, 1 : !llvm.ptr<3>
    ```
  }];
  let arguments = (ins Lamport_SharedPointer:$barrier, I64Attr:$parity);
  let assemblyFormat = "$barrier `,` $parity attr-dict `:` qualified(type($barrier))";
  let hasVerifier = 1;
}

def Lamport_RingReleaseOp : Lamport_KernelOp<"ring.release"> {
  let summary = "a consumer's arrival on a stage's empty barrier";
  let description = [{
    Arrives on the shared-memory mbarrier at `barrier` with release
    semantics: this thread's reads of the stage are done, and once every
    consumer released it the producer may refill it. With `fenced` a proxy
    fence comes first (`fence.proxy.async.shared::cta`): the refill is
    written by the async proxy, which the release alone does not order
    after this thread's generic-proxy reads (without it tensor-copy refills
    overwrote slots still being read, docs/design/gemm.md).

    ```mlir
    lamport.ring.release %empty fenced : !llvm.ptr<3>
    ```
  }];
  let arguments = (ins Lamport_SharedPointer:$barrier, UnitAttr:$fenced);
  let assemblyFormat =
      "$barrier (`fenced` $fenced^)? attr-dict `:` qualified(type($barrier))";
}

#endif // LAMPORT_DIALECT_LAMPORT_IR_KERNELOPS_TD
