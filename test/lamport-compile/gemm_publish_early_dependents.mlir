// REQUIRES: ptxas
// A tactic's early_dependents moves griddepcontrol.launch_dependents from
// after the MMAs to before the weight loads, so the next kernel's CTAs can
// take free SMs while this grid streams its weights; without it the launch
// follows the MMAs. Both assemble with ptxas, on both chips. Unpooler at
// tp = 4 with x's static M = 8 (one kernel, the 8-token tile).
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: lamport-compile %s --program early -o %t/early_sm90
// RUN: FileCheck %s --check-prefix=EARLY < %t/early_sm90/gemm_publish_0.ptx
// RUN: test -s %t/early_sm90/gemm_publish_0.cubin
// RUN: lamport-compile %s --program early -o %t/early_sm100a --chip sm_100a
// RUN: FileCheck %s --check-prefix=EARLY < %t/early_sm100a/gemm_publish_0.ptx
// RUN: test -s %t/early_sm100a/gemm_publish_0.cubin
// RUN: lamport-compile %s --program late -o %t/late_sm90
// RUN: FileCheck %s --check-prefix=LATE < %t/late_sm90/gemm_publish_1.ptx
// RUN: test -s %t/late_sm90/gemm_publish_1.cubin
//
// EARLY:       .visible .entry gemm_publish_0(
// EARLY-NOT:   ld.global
// EARLY:       griddepcontrol.launch_dependents;
// EARLY-NOT:   griddepcontrol.launch_dependents;
// EARLY:       ld.global.L2::cache_hint.v4.b32
// EARLY:       griddepcontrol.wait;
// EARLY:       mma.sync.aligned.m16n8k16
// EARLY-NOT:   griddepcontrol.launch_dependents;
// EARLY:       ret;
//
// LATE:        .visible .entry gemm_publish_1(
// LATE-NOT:    griddepcontrol.launch_dependents;
// LATE:        griddepcontrol.wait;
// LATE-NOT:    griddepcontrol.launch_dependents;
// LATE:        mma.sync.aligned.m16n8k16
// LATE:        griddepcontrol.launch_dependents;
// LATE-NOT:    mma.sync
// LATE:        ret;

func.func @early(%x: memref<8x4096xbf16>, %w: memref<2048x4096xbf16>,
                 %y: memref<8x2048xbf16>) {
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 128, accs = 2,
          early_dependents = true,
          token_tiles = [8, 8, 8, 8, 8, 8, 8, 8,
                         16, 16, 16, 16, 16, 16, 16, 16]>) {pdl}
      : memref<8x4096xbf16>, memref<2048x4096xbf16>, memref<8x2048xbf16>
  return
}

func.func @late(%x: memref<8x4096xbf16>, %w: memref<2048x4096xbf16>,
                %y: memref<8x2048xbf16>) {
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 128, accs = 2,
          token_tiles = [8, 8, 8, 8, 8, 8, 8, 8,
                         16, 16, 16, 16, 16, 16, 16, 16]>) {pdl}
      : memref<8x4096xbf16>, memref<2048x4096xbf16>, memref<8x2048xbf16>
  return
}
