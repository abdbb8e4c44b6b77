// REQUIRES: ptxas
// lamport.gemm_publish with several tiles of 16 features per CTA, down to
// PTX and cubin for both chips (lamport-compile runs ptxas): o_proj at tp = 4
// with 2 tiles and the 16-token tile, and o_proj at tp = 8 with 4 tiles, 2
// splits (a cluster summing through distributed shared memory) and the
// 8-token tile, each publishing into the attention boundary's mailbox.
// With M dynamic the first op is two kernels chosen by M: gemm_publish_0
// (8-token tile) for M <= 8 and gemm_publish_1, the 16-token kernel this
// test looks at, above. Kernels are numbered across the file: the second
// program's is gemm_publish_2.
//
// The program is the GEMM alone, as bench/prepare_gemm.sh builds it to
// measure the kernel: it publishes with no consumer, which the protocol
// check refuses in a decode step, so it compiles with --protocol-check=false.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: lamport-compile %s --protocol-check=false --program oproj_tp4_tiles2 -o %t/tiles2_sm90
// RUN: FileCheck %s --check-prefix=MANIFEST2 < %t/tiles2_sm90/manifest.json
// RUN: FileCheck %s --check-prefixes=PTX,PTX2,UNICAST2 < %t/tiles2_sm90/gemm_publish_1.ptx
// RUN: test -s %t/tiles2_sm90/gemm_publish_0.cubin
// RUN: test -s %t/tiles2_sm90/gemm_publish_1.cubin
// RUN: lamport-compile %s --protocol-check=false --program oproj_tp4_tiles2 -o %t/tiles2_sm100a --chip sm_100a --transport multicast
// RUN: FileCheck %s --check-prefixes=PTX,PTX2,MULTICAST < %t/tiles2_sm100a/gemm_publish_1.ptx
// RUN: test -s %t/tiles2_sm100a/gemm_publish_0.cubin
// RUN: test -s %t/tiles2_sm100a/gemm_publish_1.cubin
//
// RUN: lamport-compile %s --protocol-check=false --program oproj_tp8_tiles4 -o %t/tiles4_sm90
// RUN: FileCheck %s --check-prefix=MANIFEST4 < %t/tiles4_sm90/manifest.json
// RUN: FileCheck %s --check-prefixes=PTX,PTX4,CLUSTER,UNICAST4 < %t/tiles4_sm90/gemm_publish_2.ptx
// RUN: test -s %t/tiles4_sm90/gemm_publish_2.cubin
// RUN: lamport-compile %s --protocol-check=false --program oproj_tp8_tiles4 -o %t/tiles4_sm100a --chip sm_100a --transport multicast
// RUN: FileCheck %s --check-prefixes=PTX,PTX4,CLUSTER,MULTICAST < %t/tiles4_sm100a/gemm_publish_2.ptx
// RUN: test -s %t/tiles4_sm100a/gemm_publish_2.cubin
//
// 8192 / 32 CTAs of 2048 / 128 = 16 warps.
// MANIFEST2:      "name": "gemm_publish_0",
// MANIFEST2:      "grid": [256, 1, 1],
// MANIFEST2-NEXT: "block": [512, 1, 1],
// MANIFEST2-NEXT: "cluster": [1, 1, 1],
// MANIFEST2:      "attributes": {"transport": "unicast", "token_tile": 8},
// MANIFEST2:      "name": "gemm_publish_1",
// MANIFEST2:      "grid": [256, 1, 1],
// MANIFEST2-NEXT: "block": [512, 1, 1],
// MANIFEST2-NEXT: "cluster": [1, 1, 1],
// MANIFEST2:      "attributes": {"transport": "unicast", "token_tile": 16},
// MANIFEST2:      "launches": [
// MANIFEST2-NEXT:   {"kernel": "gemm_publish_0", "tokens": [1, 8]},
// MANIFEST2-NEXT:   {"kernel": "gemm_publish_1", "tokens": [9, 16]}
// MANIFEST2-NEXT: ]
//
// 8192 / 64 CTAs along x, 2 splits along y, 1024 / (2 * 64) = 8 warps.
// The capacity of 8 asks for one tile: one kernel, on every M.
// MANIFEST4:      "name": "gemm_publish_2",
// MANIFEST4:      "grid": [128, 2, 1],
// MANIFEST4-NEXT: "block": [256, 1, 1],
// MANIFEST4-NEXT: "cluster": [1, 2, 1],
// MANIFEST4:      "attributes": {"transport": "unicast", "token_tile": 8},
// MANIFEST4:      "launches": [
// MANIFEST4-NEXT:   {"kernel": "gemm_publish_2"}
// MANIFEST4-NEXT: ]
//
// PTX:       .visible .entry gemm_publish_{{[12]}}(
// The reduction's shared memory: (16 + 1) x 16 x 32 x 4 = 34816 bytes and
// (8 + 2) x 8 x 64 x 4 = 20480 bytes.
// PTX2:      .shared .align 16 .b8 split_sums[2048];
// PTX2:      .shared .align 16 .b8 warp_partials[32768];
// PTX4:      .shared .align 16 .b8 split_sums[4096];
// PTX4:      .shared .align 16 .b8 warp_partials[16384];
// Rank 0 expects the other split's [8 tokens, 64 features] FP32 sum.
// CLUSTER:   mbarrier.init.shared.b64 [split_barrier], %r{{[0-9]+}};
// CLUSTER:   mov.b32 %r[[BYTES:[0-9]+]], 2048;
// CLUSTER:   mbarrier.arrive.expect_tx.shared.b64 %rd{{[0-9]+}}, [split_barrier], %r[[BYTES]];
// CLUSTER:   fence.mbarrier_init.release.cluster
// CLUSTER:   barrier.cluster.arrive
// PTX:       ld.global.L2::cache_hint.v4.b32
// PTX:       griddepcontrol.wait
// PTX:       ld.global.{{v4.b32|v2.b64}}
// 4 chunks x 2 steps x 2 token blocks x 2 tiles; 2 chunks x 2 steps x
// 1 token block x 4 tiles.
// PTX2-COUNT-32: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// PTX4-COUNT-16: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// PTX-NOT:   mma.sync
// PTX:       griddepcontrol.launch_dependents
// The splits' sums reach rank 0 by st.async, counted by its mbarrier
// (initialized and released to the cluster before the weight loads).
// CLUSTER:   barrier.cluster.wait
// CLUSTER:   mapa.shared::cluster
// CLUSTER:   st.async.shared::cluster.mbarrier::complete_tx::bytes.b32
// CLUSTER:   mbarrier.try_wait.parity.shared.b64
// CLUSTER-NOT: barrier.cluster
// PTX:       cvt.rn.bf16{{(x2)?}}.f32
// One pass of the epilogue (64 slots, 512 or 256 threads): every rank's
// copy, one 16-byte store each, then y's own fragment.
// UNICAST2-COUNT-5: st.global.v4.b32
// UNICAST4-COUNT-9: st.global.v4.b32
// UNICAST2-NOT: st.global.v4.b32
// UNICAST4-NOT: st.global.v4.b32
// MULTICAST:   multimem.st.relaxed.sys.global.v4.f32

!mb4 = !lamport.mailbox<tp = 4, capacity = 16, width = 8192>
!mb8 = !lamport.mailbox<tp = 8, capacity = 8, width = 8192>

func.func @oproj_tp4_tiles2(%x: memref<?x2048xbf16>,
                            %w: memref<8192x2048xbf16>,
                            %partial: memref<?x8192xbf16>, %mb: !mb4) {
  lamport.gemm_publish %x, %w into %partial mailbox %mb : !mb4
      tactic(#lamport.tactic<splits = 1, kw = 128, accs = 2, tiles = 2,
          token_tiles = [8, 8, 8, 8, 8, 8, 8, 8,
                         16, 16, 16, 16, 16, 16, 16, 16]>) {pdl}
      : memref<?x2048xbf16>, memref<8192x2048xbf16>, memref<?x8192xbf16>
  return
}

func.func @oproj_tp8_tiles4(%x: memref<?x1024xbf16>,
                            %w: memref<8192x1024xbf16>,
                            %partial: memref<?x8192xbf16>, %mb: !mb8) {
  lamport.gemm_publish %x, %w into %partial mailbox %mb : !mb8
      tactic(#lamport.tactic<splits = 2, kw = 64, accs = 2, tiles = 4,
          token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>) {pdl}
      : memref<?x1024xbf16>, memref<8192x1024xbf16>, memref<?x8192xbf16>
  return
}
