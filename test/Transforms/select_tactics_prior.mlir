// RUN: lamport-opt %s --split-input-file --lamport-select-tactics="tactic-table=%S/Inputs/tactics_prior.json" | FileCheck %s
// RUN: lamport-opt %s --split-input-file --lamport-select-tactics="tactic-table=%S/Inputs/tactics_prior.json prior-only" | FileCheck %s --check-prefix=PRIOR
// RUN: lamport-opt %s --split-input-file --lamport-select-tactics="no-table" | FileCheck %s --check-prefix=MODEL
// RUN: lamport-opt %s --split-input-file --lamport-select-tactics="tactic-table=%S/Inputs/tactics_prior.json prior-only explain" --verify-diagnostics -o /dev/null

// The cost model's prior: where the table has no entry for a shape, each
// tactic's estimate is multiplied by its time over the best at the table's
// timed points of the shape nearest in N and K (never the shape itself).
// The model alone picks s1 kw128 a4 for [4096, 1024] at M = 1; the nearest
// shape timed it 10% behind s1 kw64 tiles2 a4, which the model estimates
// within 1% of it, so the prior takes that. The second nearest shape,
// which timed the other way round, is not taken, nor is the third. The
// table's own entry for the shape wins without prior-only.

// CHECK-LABEL: func.func @prior_static
// CHECK: tactic(#lamport.tactic<splits = 2, kw = 128, accs = 1, token_tiles = [8]>)
// PRIOR-LABEL: func.func @prior_static
// PRIOR: tactic(#lamport.tactic<splits = 1, kw = 64, accs = 4, tiles = 2, min_ctas_per_sm = 1, early_dependents = true, token_tiles = [8]>)
// MODEL-LABEL: func.func @prior_static
// MODEL: tactic(#lamport.tactic<splits = 1, kw = 128, accs = 4, min_ctas_per_sm = 1, early_dependents = true, token_tiles = [8]>)
func.func @prior_static(%x: memref<1x1024xbf16>, %w: memref<4096x1024xbf16>,
                        %y: memref<1x4096xbf16>) {
  // expected-remark-re @+1 {{tactics for N = 4096, K = 1024: M 1..1 s1 kw64 tiles2 a4 occ1 early from the cost model (the table {{.*}}/Inputs/tactics_prior.json as a prior only; estimate 2.55 us at M = 1, the runner-up s1 kw128 a4 occ1 early 2.53 us; weighed by the prior 2.55 and 2.78 us (the pick's slowdown there 1.000, as timed), leaning on the table's timed points 4096 x 896 at M = 1; 3 of the 930 tactics ranked were timed there);}}
  lamport.gemm_publish %x, %w into %y {pdl}
      : memref<1x1024xbf16>, memref<4096x1024xbf16>, memref<1x4096xbf16>
  return
}

// -----

// The nearest shape's point serving M: the least timed M at or above it.
// At M = 3 that is 4096 x 896's point at M = 4, which timed s1 kw64 tiles2
// a4 twice as slow as s1 kw128 a4 and s1 kw128 tiles2 a4 not at all (it
// takes the point's median, 1.5); the model alone would take the latter.
// PRIOR-LABEL: func.func @prior_serving_m
// PRIOR: tactic(#lamport.tactic<splits = 1, kw = 128, accs = 4, min_ctas_per_sm = 1, early_dependents = true, token_tiles = [8, 8, 8]>)
// MODEL-LABEL: func.func @prior_serving_m
// MODEL: tactic(#lamport.tactic<splits = 1, kw = 128, accs = 4, tiles = 2,
func.func @prior_serving_m(%x: memref<3x1024xbf16>, %w: memref<4096x1024xbf16>,
                           %y: memref<3x4096xbf16>) {
  // expected-remark @+1 {{weighed by the prior 2.62 and 3.92 us (the pick's slowdown there 1.000, as timed), leaning on the table's timed points 4096 x 896 at M = 4; 2 of the 930 tactics ranked were timed there);}}
  lamport.gemm_publish %x, %w into %y {pdl}
      : memref<3x1024xbf16>, memref<4096x1024xbf16>, memref<3x4096xbf16>
  return
}

// -----

// At M = 9 the nearest shape's point at M = 16 serves, which timed two
// tiles 25% behind the same kernel with one: the model alone takes two.
// The table has the shape itself at M = 1 only, so the prior serves M = 9
// without prior-only too.
// CHECK-LABEL: func.func @prior_covers_m
// CHECK: tactic(#lamport.tactic<splits = 1, kw = 128, accs = 4, min_ctas_per_sm = 1, early_dependents = true, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8, 16]>)
// MODEL-LABEL: func.func @prior_covers_m
// MODEL: tactic(#lamport.tactic<splits = 1, kw = 128, accs = 4, tiles = 2, min_ctas_per_sm = 1, early_dependents = true, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8, 16]>)
func.func @prior_covers_m(%x: memref<9x1024xbf16>, %w: memref<4096x1024xbf16>,
                          %y: memref<9x4096xbf16>) {
  // expected-remark-re @+1 {{M 9..9 s1 kw128 a4 occ1 early from the cost model (the table {{.*}}/Inputs/tactics_prior.json as a prior only; estimate 2.92 us at M = 9, the runner-up s1 kw64 tiles2 a4 occ1 early 2.87 us; weighed by the prior 2.92 and 3.23 us (the pick's slowdown there 1.000, as timed), leaning on the table's timed points 4096 x 896 at M = 16; 2 of the 930 tactics ranked were timed there);}}
  lamport.gemm_publish %x, %w into %y {pdl}
      : memref<9x1024xbf16>, memref<4096x1024xbf16>, memref<9x4096xbf16>
  return
}
