// REQUIRES: ptxas
// A GEMM whose split-K reduction does not fit static shared memory, down to
// PTX and cubin for both chips (lamport-compile runs ptxas): the unpooler
// at tp = 4 with 4 splits of 16 warps, 4 tiles and the 16-token tile,
// publishing into a mailbox. (16 warps + 4 splits) x 16 tokens x 64
// features x 4 bytes = 81920 bytes live in the kernel's dynamic shared
// memory: the manifest asks for them (`shared_bytes`, which the runtime
// opts into when it loads the kernel), the PTX declares them as an extern
// array and sends the splits' sums into rank 0's copy of it.
//
// The program is the GEMM alone, as bench/prepare_gemm.sh builds it to
// measure the kernel: it publishes with no consumer, which the protocol
// check refuses in a decode step, so it compiles with --protocol-check=false.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: lamport-compile %s --protocol-check=false -o %t/sm90
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/sm90/manifest.json
// RUN: FileCheck %s --check-prefix=PTX < %t/sm90/gemm_publish_0.ptx
// RUN: test -s %t/sm90/gemm_publish_0.cubin
// RUN: lamport-compile %s --protocol-check=false -o %t/sm100a --chip sm_100a --transport multicast
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/sm100a/manifest.json
// RUN: FileCheck %s --check-prefix=PTX < %t/sm100a/gemm_publish_0.ptx
// RUN: test -s %t/sm100a/gemm_publish_0.cubin
//
// MANIFEST:      "name": "gemm_publish_0",
// MANIFEST:      "grid": [32, 4, 1],
// MANIFEST-NEXT: "block": [512, 1, 1],
// MANIFEST-NEXT: "cluster": [1, 4, 1],
// MANIFEST-NEXT: "shared_bytes": 81920,
//
// PTX:     .extern .shared .align 16 .b8 reduction[];
// PTX-NOT: warp_partials
// PTX-NOT: split_sums
// PTX:     .visible .entry gemm_publish_0(
// Rank 0 expects the other 3 splits' [16, 64] FP32 sums.
// PTX:     mov.b32 %r[[BYTES:[0-9]+]], 12288;
// PTX:     mbarrier.arrive.expect_tx.shared.b64 %rd{{[0-9]+}}, [{{.*}}], %r[[BYTES]];
// PTX:     mov.b64 {{%rd[0-9]+}}, reduction;
// PTX:     st.async.shared::cluster.mbarrier::complete_tx::bytes.b32

!mb = !lamport.mailbox<tp = 4, capacity = 16, width = 2048>

func.func @unpooler_tp4(%x: memref<16x4096xbf16>, %w: memref<2048x4096xbf16>,
                        %y: memref<16x2048xbf16>, %mb: !mb) {
  lamport.gemm_publish %x, %w into %y mailbox %mb : !mb
      tactic(#lamport.tactic<splits = 4, kw = 64, accs = 1, tiles = 4,
          early_dependents = true,
          token_tiles = [16, 16, 16, 16, 16, 16, 16, 16,
                         16, 16, 16, 16, 16, 16, 16, 16]>)
      {pdl}
      : memref<16x4096xbf16>, memref<2048x4096xbf16>, memref<16x2048xbf16>
  return
}
