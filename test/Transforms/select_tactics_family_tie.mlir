// RUN: lamport-opt %s --split-input-file --lamport-select-tactics="tactic-table=%S/Inputs/tactics_family_tie.json" | FileCheck %s
// RUN: lamport-opt %s --split-input-file --lamport-select-tactics="no-table" | FileCheck %s --check-prefix=MODEL
// RUN: lamport-opt %s --split-input-file --lamport-select-tactics="tactic-table=%S/Inputs/tactics_family_tie.json explain" --verify-diagnostics -o /dev/null

// Where the register pipeline's best and the bulk pipeline's best score
// within 10% of each other, the model cannot tell them apart; the pipeline
// whose fastest kernel ran faster at the prior's timed points goes first.
// The table's points time one kernel of each pipeline that no sweep tactic
// matches at any width (an occupancy hint of 2), so every tactic is weighed
// by the same median and the model's own order stands until the tie is
// broken. Near 8192 x 2048 the bulk
// kernel ran faster there: the model alone takes the register pipeline's
// s1 kw128 p4 a4 at 9.34 us, 1% ahead of the bulk pipeline's best.

// CHECK-LABEL: func.func @bulk_by_prior
// CHECK: tactic(#lamport.tactic<splits = 1, kw = 128, accs = 2, passes = 2, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stages = 3, stage_bytes = 32768, producer_lanes = 16, token_tiles = [8]>)
// MODEL-LABEL: func.func @bulk_by_prior
// MODEL: tactic(#lamport.tactic<splits = 1, kw = 128, accs = 4, passes = 4, min_ctas_per_sm = 1, early_dependents = true, token_tiles = [8]>)
func.func @bulk_by_prior(%x: memref<1x2048xbf16>, %w: memref<8192x2048xbf16>,
                         %y: memref<1x8192xbf16>) {
  // expected-remark-re @+1 {{M 1..1 s1 kw128 p2 a2 occ1 early bulk 3 x 32 KiB, 16 lanes from the cost model (no entry in the table {{.*}}/Inputs/tactics_family_tie.json; estimate 9.43 us at M = 1, the runner-up s1 kw128 p4 a4 occ1 early 9.34 us; weighed by the prior 10.37 and 10.27 us (the pick's slowdown there 1.100, their median: not timed there), leaning on the table's timed points 8192 x 1792 at M = 1; none of the 984 tactics ranked was timed there, so each took their median (lamport-tune can time this shape); ahead of the runner-up, the other pipeline's best and within 10% of it, as the bulk pipeline's fastest kernel ran faster there);}}
  lamport.gemm_publish %x, %w into %y {pdl}
      : memref<1x2048xbf16>, memref<8192x2048xbf16>, memref<1x8192xbf16>
  return
}

// -----

// With M dynamic every M takes the bulk pipeline: where the prior broke the
// tie, the previous M's tactic is kept within 2% only if it is of the same
// pipeline.
// CHECK-LABEL: func.func @dynamic
// CHECK: tactic(#lamport.tactic<{{[^>]*}}pipeline = bulk{{[^>]*}}token_tiles = [8, 8, 8, 8, 8]>, #lamport.tactic<{{[^>]*}}pipeline = bulk{{[^>]*}}token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>, #lamport.tactic<{{[^>]*}}pipeline = bulk{{[^>]*}}token_tiles = [8, 8, 8, 8, 8, 8, 8, 8, 16, 16, 16, 16, 16, 16, 16, 16]>)
// MODEL-LABEL: func.func @dynamic
// MODEL-NOT: pipeline = bulk
// MODEL: return
func.func @dynamic(%x: memref<?x2048xbf16>, %w: memref<8192x2048xbf16>,
                   %y: memref<?x8192xbf16>) {
  // expected-remark-re @+1 {{M 6..8 s1 kw128 tiles2 p2 a2 occ1 early bulk 6 x 32 KiB, 2 lanes from the cost model (no entry in the table {{.*}}/Inputs/tactics_family_tie.json; estimate 9.75 us at M = 8, the runner-up s1 kw128 p4 a4 occ1 early late2 9.55 us;}}
  lamport.gemm_publish %x, %w into %y {pdl}
      : memref<?x2048xbf16>, memref<8192x2048xbf16>, memref<?x8192xbf16>
  return
}

// -----

// Near 6144 x 3072 the register kernel ran faster: the model alone takes
// the bulk pipeline's best, 0.1% ahead of the register pipeline's.
// CHECK-LABEL: func.func @registers_by_prior
// CHECK: tactic(#lamport.tactic<splits = 1, kw = 128, accs = 1, passes = 4, min_ctas_per_sm = 1, early_dependents = true, late_chunks = 2, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>)
// MODEL-LABEL: func.func @registers_by_prior
// MODEL: tactic(#lamport.tactic<{{[^>]*}}pipeline = bulk
func.func @registers_by_prior(%x: memref<8x3072xbf16>,
                              %w: memref<6144x3072xbf16>,
                              %y: memref<8x6144xbf16>) {
  // expected-remark-re @+1 {{M 8..8 s1 kw128 p4 a1 occ1 early late2 from the cost model (no entry in the table {{.*}}/Inputs/tactics_family_tie.json; estimate 10.92 us at M = 8, the runner-up s1 kw192 tiles2 p2 a2 occ1 early bulk 6 x 32 KiB, 2 lanes 10.91 us; weighed by the prior 12.01 and 12.00 us (the pick's slowdown there 1.100, their median: not timed there), leaning on the table's timed points 6144 x 2816 at M = 16; none of the 738 tactics ranked was timed there, so each took their median (lamport-tune can time this shape); ahead of the runner-up, the other pipeline's best and within 10% of it, as the register pipeline's fastest kernel ran faster there);}}
  lamport.gemm_publish %x, %w into %y {pdl}
      : memref<8x3072xbf16>, memref<6144x3072xbf16>, memref<8x6144xbf16>
  return
}

// -----

// Not a tie: at 4096 x 2304 and M = 16 the bulk pipeline's best (s1 kw288
// p2 a1, 6.95 us) scores 15% behind the register pipeline's, so the
// model's order stands though the bulk kernel ran faster at the timed
// point.
// CHECK-LABEL: func.func @no_tie
// CHECK: tactic(#lamport.tactic<splits = 1, kw = 128, accs = 2, passes = 2, min_ctas_per_sm = 1, early_dependents = true, late_chunks = 2, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8, 16, 16, 16, 16, 16, 16, 16, 16]>)
func.func @no_tie(%x: memref<16x2304xbf16>, %w: memref<4096x2304xbf16>,
                  %y: memref<16x4096xbf16>) {
  // expected-remark-re @+1 {{M 16..16 s1 kw128 p2 a2 occ1 early late2 from the cost model (no entry in the table {{.*}}/Inputs/tactics_family_tie.json; estimate 6.04 us at M = 16, the runner-up s1 kw128 p2 a1 occ1 early late2 6.13 us; weighed by the prior 6.64 and 6.74 us (the pick's slowdown there 1.100, their median: not timed there), leaning on the table's timed points 4608 x 2560 at M = 16; none of the 612 tactics ranked was timed there, so each took their median (lamport-tune can time this shape));}}
  lamport.gemm_publish %x, %w into %y {pdl}
      : memref<16x2304xbf16>, memref<4096x2304xbf16>, memref<16x4096xbf16>
  return
}
