// RUN: lamport-opt %s --split-input-file --lamport-select-tactics="tactic-table=%S/Inputs/tactics_prior_width.json" | FileCheck %s
// RUN: lamport-opt %s --split-input-file --lamport-select-tactics="no-table" | FileCheck %s --check-prefix=MODEL
// RUN: lamport-opt %s --split-input-file --lamport-select-tactics="tactic-table=%S/Inputs/tactics_prior_width.json explain" --verify-diagnostics -o /dev/null

// Where the nearest shape timed none of the tactics ranked, each takes the
// slowdown of its kernel at the other widths along K it timed. No kw 128
// kernel divides K = 1120, so the sweep's kernels are of kw 160, 224 and
// wider, which the table's nearest shape (K = 1024) never timed. The
// model alone takes s1 kw224 a4, 0.2% ahead of s1 kw160 tiles2 a4; the
// neighbour timed the kw 128 kernel of the one 15% behind that of the
// other, so the prior takes s1 kw160 tiles2 a4. Kernels it timed at no
// width (here all of tiles 4) take the median, 1.15.

// CHECK-LABEL: func.func @other_width
// CHECK: tactic(#lamport.tactic<splits = 1, kw = 160, accs = 4, tiles = 2, min_ctas_per_sm = 1, early_dependents = true, token_tiles = [8]>)
// MODEL-LABEL: func.func @other_width
// MODEL: tactic(#lamport.tactic<splits = 1, kw = 224, accs = 4, min_ctas_per_sm = 1, early_dependents = true, token_tiles = [8]>)
func.func @other_width(%x: memref<1x1120xbf16>, %w: memref<8192x1120xbf16>,
                       %y: memref<1x8192xbf16>) {
  // expected-remark-re @+1 {{tactics for N = 8192, K = 1120: M 1..1 s1 kw160 tiles2 a4 occ1 early from the cost model (no entry in the table {{.*}}/Inputs/tactics_prior_width.json; estimate 4.94 us at M = 1, the runner-up s1 kw224 tiles2 a4 occ1 early 4.95 us; weighed by the prior 4.94 and 4.95 us (the pick's slowdown there 1.000, as timed at other widths), leaning on the table's timed points 8192 x 1024 at M = 1; none of the 864 tactics ranked was timed there, so 6 took their kernel's slowdown at other widths and the rest their median (lamport-tune can time this shape));}}
  lamport.gemm_publish %x, %w into %y {pdl}
      : memref<1x1120xbf16>, memref<8192x1120xbf16>, memref<1x8192xbf16>
  return
}

// -----

// Where it timed any tactic ranked, only those take their timings and
// every other tactic the median: at K = 1152 the kw 128 kernels are swept,
// and two of them timed.
// CHECK-LABEL: func.func @timed_width
// CHECK: tactic(#lamport.tactic<splits = 1, kw = 128, accs = 2, tiles = 2, min_ctas_per_sm = 1, early_dependents = true, token_tiles = [8]>)
func.func @timed_width(%x: memref<1x1152xbf16>, %w: memref<8192x1152xbf16>,
                       %y: memref<1x8192xbf16>) {
  // expected-remark @+1 {{(the pick's slowdown there 1.150, their median: not timed there), leaning on the table's timed points 8192 x 1024 at M = 1; 2 of the 638 tactics ranked were timed there);}}
  lamport.gemm_publish %x, %w into %y {pdl}
      : memref<1x1152xbf16>, memref<8192x1152xbf16>, memref<1x8192xbf16>
  return
}
