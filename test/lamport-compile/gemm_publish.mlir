// REQUIRES: ptxas
// lamport.gemm_publish down to PTX and cubin, for both chips: the o_proj
// shape at tp = 8 publishing its partial into the attention boundary's
// mailbox. The manifest carries the cluster of the split-K launch; the PTX
// holds the register-direct loads (weights on the read-only path before
// griddepcontrol.wait), the MMAs, the distributed-shared-memory reduction
// and the epilogue's publish: one 16-byte store per peer in the unicast
// form, never a multimem store; multimem.st in the multicast form.
//
// With M dynamic and token_tiles asking for tile 8 up to M = 8 and 16
// above, the op is two kernels chosen by M: gemm_publish_0 (8-token tile)
// runs for M in 1..8 and gemm_publish_1 (16) for 9..16, each launch entry
// of the manifest carrying its range; ptxas accepts both for both chips.
//
// The program is the GEMM alone, as bench/prepare_gemm.sh builds it to
// measure the kernel: it publishes with no consumer, which the protocol
// check refuses in a decode step, so it compiles with --protocol-check=false.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: lamport-compile %s --protocol-check=false -o %t/sm90
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/sm90/manifest.json
// RUN: FileCheck %s --check-prefixes=PTX,T8,UNICAST -DKERNEL=gemm_publish_0 < %t/sm90/gemm_publish_0.ptx
// RUN: FileCheck %s --check-prefixes=PTX,T16,UNICAST -DKERNEL=gemm_publish_1 < %t/sm90/gemm_publish_1.ptx
// RUN: test -s %t/sm90/gemm_publish_0.cubin
// RUN: test -s %t/sm90/gemm_publish_1.cubin
// RUN: lamport-compile %s --protocol-check=false -o %t/sm100a --chip sm_100a --transport multicast
// RUN: test -s %t/sm100a/gemm_publish_0.cubin
// RUN: test -s %t/sm100a/gemm_publish_1.cubin
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/sm100a/manifest.json
// RUN: FileCheck %s --check-prefixes=PTX,T8,MULTICAST -DKERNEL=gemm_publish_0 < %t/sm100a/gemm_publish_0.ptx
// RUN: FileCheck %s --check-prefixes=PTX,T16,MULTICAST -DKERNEL=gemm_publish_1 < %t/sm100a/gemm_publish_1.ptx
//
// The two kernels differ only in the tile: the same launch and parameters.
// MANIFEST:      "name": "gemm_publish_0",
// MANIFEST-NEXT: "op": "gemm_publish",
// MANIFEST:      "grid": [512, 2, 1],
// MANIFEST-NEXT: "block": [256, 1, 1],
// MANIFEST-NEXT: "cluster": [1, 2, 1],
// MANIFEST:      "pdl": true,
// MANIFEST-NEXT: "mailbox_use": "publish",
// MANIFEST-NEXT: "attributes": {"transport": "{{unicast|multicast}}", "token_tile": 8},
// MANIFEST-NEXT: "params": [
// MANIFEST-NEXT:   {"kind": "mailbox", "argument": 3, "size": 104, "align": 8},
// MANIFEST-NEXT:   {"kind": "buffer", "argument": 1, "io": "in", "size": 8, "align": 8, "role": "weight"},
// MANIFEST-NEXT:   {"kind": "buffer", "argument": 0, "io": "in", "size": 8, "align": 8, "role": "x"},
// MANIFEST-NEXT:   {"kind": "buffer", "argument": 2, "io": "out", "size": 8, "align": 8, "role": "y"},
// MANIFEST-NEXT:   {"kind": "tokens", "size": 4, "align": 4}
// MANIFEST:      "name": "gemm_publish_1",
// MANIFEST-NEXT: "op": "gemm_publish",
// MANIFEST:      "grid": [512, 2, 1],
// MANIFEST-NEXT: "block": [256, 1, 1],
// MANIFEST-NEXT: "cluster": [1, 2, 1],
// MANIFEST:      "pdl": true,
// MANIFEST-NEXT: "mailbox_use": "publish",
// MANIFEST-NEXT: "attributes": {"transport": "{{unicast|multicast}}", "token_tile": 16},
// MANIFEST-NEXT: "params": [
// MANIFEST-NEXT:   {"kind": "mailbox", "argument": 3, "size": 104, "align": 8},
// MANIFEST-NEXT:   {"kind": "buffer", "argument": 1, "io": "in", "size": 8, "align": 8, "role": "weight"},
// MANIFEST-NEXT:   {"kind": "buffer", "argument": 0, "io": "in", "size": 8, "align": 8, "role": "x"},
// MANIFEST-NEXT:   {"kind": "buffer", "argument": 2, "io": "out", "size": 8, "align": 8, "role": "y"},
// MANIFEST-NEXT:   {"kind": "tokens", "size": 4, "align": 4}
// MANIFEST:      "launches": [
// MANIFEST-NEXT:   {"kernel": "gemm_publish_0", "tokens": [1, 8]},
// MANIFEST-NEXT:   {"kernel": "gemm_publish_1", "tokens": [9, 16]}
// MANIFEST-NEXT: ]
//
// PTX:       .visible .entry [[KERNEL]](
// The reduction's shared memory: (8 warps + 2 splits) x tile x 16 x 4.
// T8:        .shared .align 16 .b8 warp_partials[4096];
// T16:       .shared .align 16 .b8 warp_partials[8192];
// The weights' L2 policy: evict first (read once a step).
// PTX:       createpolicy.fractional.L2::evict_first.b64 [[POLICY:%rd[0-9]+]], 1.0;
// Rank 0 expects the other split's [tile, 16] FP32 sum: 512 or 1024 bytes.
// PTX:       mbarrier.init.shared.b64 [split_barrier], %r{{[0-9]+}};
// T8:        mov.b32 %r[[BYTES:[0-9]+]], 512;
// T16:       mov.b32 %r[[BYTES:[0-9]+]], 1024;
// PTX:       mbarrier.arrive.expect_tx.shared.b64 %rd{{[0-9]+}}, [split_barrier], %r[[BYTES]];
// PTX:       fence.mbarrier_init.release.cluster
// PTX:       barrier.cluster.arrive
// PTX:       ld.global.L2::cache_hint.v4.b32 {{.*}}, [[POLICY]];
// The store that keeps ptxas from hoisting the wait above the weight loads
// (never taken: M > INT32_MAX) stores the digest of the addresses the
// publish reads from the descriptor (this rank's copy, the multicast
// address, 8 peers, the rank), so they are read before the wait.
// PTX-COUNT-9: xor.b64
// PTX-NEXT:  xor.b64 [[DIGEST:%rd[0-9]+]],
// PTX-NEXT:  // begin inline asm
// PTX-NEXT:  @never st.global.b64 [{{%rd[0-9]+}}], [[DIGEST]]; }
// PTX-NEXT:  // end inline asm
// PTX-NEXT:  griddepcontrol.wait
// 16-byte activation loads (sm_100a spells them v2.b64).
// PTX:       ld.global.{{v4.b32|v2.b64}}
// 2 chunks x 2 steps x 1 or 2 token blocks (the 8- or 16-token tile).
// T8-COUNT-4: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// T16-COUNT-8: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// PTX-NOT:   mma.sync
// PTX:       griddepcontrol.launch_dependents
// The splits' sums reach rank 0 by st.async, counted by its mbarrier
// (initialized and released to the cluster before the weight loads).
// PTX:       barrier.cluster.wait
// PTX:       mapa.shared::cluster
// PTX:       st.async.shared::cluster.mbarrier::complete_tx::bytes.b32
// PTX:       mbarrier.try_wait.parity.shared.b64
// PTX-NOT:   barrier.cluster
// PTX:       cvt.rn.bf16{{(x2)?}}.f32
// Every rank's copy, one 16-byte store each, then y's own fragment.
// UNICAST-COUNT-9: st.global.v4.b32
// UNICAST-NOT: multimem
// MULTICAST:   multimem.st.relaxed.sys.global.v4.f32

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

func.func @oproj(%x: memref<?x1024xbf16>, %w: memref<8192x1024xbf16>,
                 %partial: memref<?x8192xbf16>, %mb: !mb) {
  lamport.gemm_publish %x, %w into %partial mailbox %mb : !mb
      tactic(#lamport.tactic<splits = 2, kw = 64, accs = 2,
          token_tiles = [8, 8, 8, 8, 8, 8, 8, 8,
                         16, 16, 16, 16, 16, 16, 16, 16]>) {pdl}
      : memref<?x1024xbf16>, memref<8192x1024xbf16>, memref<?x8192xbf16>
  return
}
