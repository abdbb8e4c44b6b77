// RUN: lamport-opt %s --split-input-file --lamport-select-tactics="tactic-table=%S/Inputs/tactics_prior.json" | FileCheck %s
// RUN: lamport-opt %s --split-input-file --lamport-select-tactics="tactic-table=%S/Inputs/tactics_prior.json prior-only" | FileCheck %s --check-prefix=PRIOR
// RUN: lamport-opt %s --split-input-file --lamport-select-tactics="no-table" | FileCheck %s --check-prefix=MODEL
// RUN: lamport-opt %s --split-input-file --lamport-select-tactics="tactic-table=%S/Inputs/tactics_prior.json prior-only explain" --verify-diagnostics -o /dev/null

// The cost model's prior: where the table has no entry for a shape, each
// tactic's estimate is weighed by how many of its knobs differ from the
// table's tactics, at that M, of the three shapes nearest in N and K
// (never the shape itself), beyond the least its family's tactics differ
// in (here 1.333 knobs: the pick is the nearest register tactic, so its
// weighed estimate is its estimate). The model alone picks s1 kw128 a4 for
// [4096, 1024] at M = 1; its two nearest tuned shapes run s1 kw64 tiles2
// a4, which the model estimates within 1% of it, so the prior takes that.
// The table's own entry for the shape wins without prior-only.

// CHECK-LABEL: func.func @prior_static
// CHECK: tactic(#lamport.tactic<splits = 2, kw = 128, accs = 1, token_tiles = [8]>)
// PRIOR-LABEL: func.func @prior_static
// PRIOR: tactic(#lamport.tactic<splits = 1, kw = 64, accs = 4, tiles = 2, min_ctas_per_sm = 1, early_dependents = true, token_tiles = [8]>)
// MODEL-LABEL: func.func @prior_static
// MODEL: tactic(#lamport.tactic<splits = 1, kw = 128, accs = 4, min_ctas_per_sm = 1, early_dependents = true, token_tiles = [8]>)
func.func @prior_static(%x: memref<1x1024xbf16>, %w: memref<4096x1024xbf16>,
                        %y: memref<1x4096xbf16>) {
  // expected-remark @+1 {{tactics for N = 4096, K = 1024: M 1..1 s1 kw64 tiles2 a4 occ1 early from the cost model (the table as a prior only; estimate 2.54 us at M = 1, the runner-up 2.53 us; weighed by the prior 2.54 and 2.61 us (the pick's knobs differ from theirs by 1.333, the least of its family's by 1.333), leaning on the table's 4096 x 896 (s1 kw64 tiles2 a4 occ1 early), 3584 x 1024 (s1 kw64 tiles2 a4 occ1 early), 2048 x 2048 (s2 kw128 a1));}}
  lamport.gemm_publish %x, %w into %y {pdl}
      : memref<1x1024xbf16>, memref<4096x1024xbf16>, memref<1x4096xbf16>
  return
}

// -----

// The prior takes only entries covering the M: at M = 9 the [2048, 2048]
// entry (M 1..8) is not a neighbour and [8192, 4096] is the third nearest;
// the table has the shape itself at M = 1 only, so the prior serves M = 9
// without prior-only too.
// CHECK-LABEL: func.func @prior_covers_m
// CHECK: tactic(#lamport.tactic<splits = 1, kw = 64, accs = 4, tiles = 2, min_ctas_per_sm = 1, early_dependents = true, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8, 16]>)
// MODEL-LABEL: func.func @prior_covers_m
// MODEL: tactic(#lamport.tactic<splits = 1, kw = 128,
func.func @prior_covers_m(%x: memref<9x1024xbf16>, %w: memref<4096x1024xbf16>,
                          %y: memref<9x4096xbf16>) {
  // expected-remark @+1 {{leaning on the table's 4096 x 896 (s1 kw64 tiles2 a4 occ1 early), 3584 x 1024 (s1 kw64 tiles2 a4 occ1 early), 8192 x 4096 (s2 kw128 a2));}}
  lamport.gemm_publish %x, %w into %y {pdl}
      : memref<9x1024xbf16>, memref<4096x1024xbf16>, memref<9x4096xbf16>
  return
}
