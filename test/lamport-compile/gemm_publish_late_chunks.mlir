// REQUIRES: ptxas
// A tactic's late_chunks loads the weights of each warp's last 32-wide K
// chunks after griddepcontrol.wait, behind x, instead of before it: x's
// loads then no longer queue behind the CTA's whole weight share. Unpooler
// at tp = 4 with x's static M = 16: 2 tiles x 2 rows x 4 chunks = 16 weight
// loads per lane, of which 1 chunk (4 loads) comes late; x is 2 token
// blocks x 4 chunks = 8 loads (16 bytes each, v4.b32 or v2.b64 as LLVM
// combines them). Without late chunks every weight load
// precedes the wait. Each assembles with ptxas, on both chips.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: lamport-compile %s --program late -o %t/late_sm90
// RUN: FileCheck %s --check-prefix=LATE < %t/late_sm90/gemm_publish_0.ptx
// RUN: test -s %t/late_sm90/gemm_publish_0.cubin
// RUN: lamport-compile %s --program late -o %t/late_sm100a --chip sm_100a
// RUN: FileCheck %s --check-prefix=LATE < %t/late_sm100a/gemm_publish_0.ptx
// RUN: test -s %t/late_sm100a/gemm_publish_0.cubin
// RUN: lamport-compile %s --program none -o %t/none_sm90
// RUN: FileCheck %s --check-prefix=NONE < %t/none_sm90/gemm_publish_1.ptx
// RUN: test -s %t/none_sm90/gemm_publish_1.cubin
//
// LATE:            .visible .entry gemm_publish_0(
// LATE-COUNT-12:   ld.global.L2::cache_hint.v4.b32
// LATE-NOT:        ld.global
// LATE:            griddepcontrol.wait;
// LATE-NOT:        ld.global.L2::cache_hint
// LATE-COUNT-8:    ld.global.v{{4.b32|2.b64}}
// LATE-NOT:        ld.global.v{{4.b32|2.b64}}
// LATE-COUNT-4:    ld.global.L2::cache_hint.v4.b32
// LATE-NOT:        ld.global
// LATE:            mma.sync.aligned.m16n8k16
// LATE-NOT:        ld.global
// LATE:            ret;
//
// NONE:            .visible .entry gemm_publish_1(
// NONE-COUNT-16:   ld.global.L2::cache_hint.v4.b32
// NONE-NOT:        ld.global
// NONE:            griddepcontrol.wait;
// NONE-COUNT-8:    ld.global.v{{4.b32|2.b64}}
// NONE-NOT:        ld.global
// NONE:            mma.sync.aligned.m16n8k16

func.func @late(%x: memref<16x4096xbf16>, %w: memref<2048x4096xbf16>,
                %y: memref<16x2048xbf16>) {
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 2, kw = 128, accs = 1, tiles = 2,
          min_ctas_per_sm = 1, early_dependents = true, late_chunks = 1,
          token_tiles = [8, 8, 8, 8, 8, 8, 8, 8,
                         16, 16, 16, 16, 16, 16, 16, 16]>) {pdl}
      : memref<16x4096xbf16>, memref<2048x4096xbf16>, memref<16x2048xbf16>
  return
}

func.func @none(%x: memref<16x4096xbf16>, %w: memref<2048x4096xbf16>,
                %y: memref<16x2048xbf16>) {
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 2, kw = 128, accs = 1, tiles = 2,
          min_ctas_per_sm = 1, early_dependents = true,
          token_tiles = [8, 8, 8, 8, 8, 8, 8, 8,
                         16, 16, 16, 16, 16, 16, 16, 16]>) {pdl}
      : memref<16x4096xbf16>, memref<2048x4096xbf16>, memref<16x2048xbf16>
  return
}
