// REQUIRES: ptxas
// passes = 4: each CTA takes 4 blocks of 16 features in turn (o_proj at
// tp = 4: 512 blocks, 128 CTAs), x loaded once after the PDL wait, the next
// block's weights loaded before the current block's MMAs, and each block
// reduced, stored and published before the next one's MMAs; ACTIVE is set
// once, after the last block. The manifest names the passes (the grid alone
// cannot tell them from tiles). Both chips assemble it.
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
// RUN: test -s %t/sm100a/gemm_publish_0.cubin
//
// MANIFEST:      "grid": [128, 1, 1],
// MANIFEST-NEXT: "block": [512, 1, 1],
// MANIFEST:      "attributes": {"transport": "unicast", "passes": 4, "token_tile": 16},
//
// 4 chunks x 2 rows of 16-byte weight loads per block, 8 of x.
// PTX:            .visible .entry gemm_publish_0(
// PTX-COUNT-8:    ld.global.L2::cache_hint.v4.b32
// PTX-NOT:        mma.sync
// With several passes the guard store before the wait stores 0, not the
// digest of the mailbox addresses (the first pass reads those while the
// next pass's weights stream).
// PTX-NOT:        xor.b64
// PTX:            @never st.global.b32 [{{%rd[0-9]+}}], 0; }
// PTX-NEXT:       // end inline asm
// PTX-NEXT:       griddepcontrol.wait;
// PTX-COUNT-8:    ld.global.v4.b32
// Blocks 0..2: the next block's weights, this block's MMAs (4 chunks x 2
// steps x 2 token blocks), its two barriers, then its y and 4 mailbox
// copies (5 stores of 16 bytes).
// PTX-COUNT-8:    ld.global.L2::cache_hint.v4.b32
// PTX-NOT:        griddepcontrol.launch_dependents
// PTX-COUNT-16:   mma.sync.aligned.m16n8k16
// PTX-COUNT-2:    bar.sync
// PTX-COUNT-5:    st.global.v4.b32
// PTX-COUNT-8:    ld.global.L2::cache_hint.v4.b32
// PTX-COUNT-16:   mma.sync.aligned.m16n8k16
// PTX-COUNT-2:    bar.sync
// PTX-COUNT-5:    st.global.v4.b32
// PTX-COUNT-8:    ld.global.L2::cache_hint.v4.b32
// PTX-COUNT-16:   mma.sync.aligned.m16n8k16
// PTX-COUNT-2:    bar.sync
// PTX-COUNT-5:    st.global.v4.b32
// The last block loads nothing more; its MMAs let the next kernel launch.
// PTX-NOT:        ld.global.L2::cache_hint
// PTX-COUNT-16:   mma.sync.aligned.m16n8k16
// PTX-NOT:        mma.sync
// PTX:            griddepcontrol.launch_dependents;
// PTX-COUNT-2:    bar.sync
// PTX-COUNT-5:    st.global.v4.b32
// PTX-NOT:        st.global.v4.b32
// ACTIVE once, from CTA 0 after its last block.
// PTX:            bar.sync
// PTX:            st.volatile.global.b32
// PTX-NOT:        st.volatile.global.b32
// PTX:            ret;

!mb = !lamport.mailbox<tp = 4, capacity = 16, width = 8192>

func.func @oproj_tp4(%x: memref<16x2048xbf16>, %w: memref<8192x2048xbf16>,
                     %y: memref<16x8192xbf16>, %mb: !mb) {
  lamport.gemm_publish %x, %w into %y mailbox %mb : !mb
      tactic(#lamport.tactic<splits = 1, kw = 128, accs = 2, passes = 4,
          token_tiles = [8, 8, 8, 8, 8, 8, 8, 8,
                         16, 16, 16, 16, 16, 16, 16, 16]>) {pdl}
      : memref<16x2048xbf16>, memref<8192x2048xbf16>, memref<16x8192xbf16>
  return
}
