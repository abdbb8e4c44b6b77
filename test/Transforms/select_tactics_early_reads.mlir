// RUN: lamport-opt %s --split-input-file --lamport-select-tactics="tactic-table=%S/Inputs/tactics_early_reads.json" | FileCheck %s
// RUN: lamport-opt %s --split-input-file --lamport-select-tactics="no-table" | FileCheck %s --check-prefix=MODEL
// RUN: lamport-opt %s --split-input-file --lamport-select-tactics="tactic-table=%S/Inputs/tactics_early_reads.json explain" --verify-diagnostics -o /dev/null

// Each bulk tactic is ranked beside its other choice of reads before the
// PDL wait. The model gives both one estimate and keeps the rule's (two
// passes: none read early); the table's timed points decide. Both shapes
// nearest 8192 x 2048 timed the pick's kernel with three reads before the
// wait ahead of the rule's none (1.0 against 1.3).

// CHECK-LABEL: func.func @twin_by_prior
// CHECK: tactic(#lamport.tactic<splits = 1, kw = 128, accs = 2, passes = 2, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stages = 3, stage_bytes = 32768, producer_lanes = 16, early_reads = 3, token_tiles = [8]>)
// MODEL-LABEL: func.func @twin_by_prior
// MODEL-NOT: early_reads
// MODEL: return
func.func @twin_by_prior(%x: memref<1x2048xbf16>, %w: memref<8192x2048xbf16>,
                         %y: memref<1x8192xbf16>) {
  // expected-remark-re @+1 {{M 1..1 s1 kw128 p2 a2 occ1 early bulk 3 x 32 KiB, 16 lanes, 3 read early from the cost model (no entry in the table {{.*}}/Inputs/tactics_early_reads.json; estimate 9.43 us at M = 1, the runner-up s1 kw128 p4 a4 occ1 early 9.34 us; weighed by the prior 9.43 and 10.74 us (the pick's slowdown there 1.000, as timed)}}
  lamport.gemm_publish %x, %w into %y {pdl}
      : memref<1x2048xbf16>, memref<8192x2048xbf16>, memref<1x8192xbf16>
  return
}

// -----

// A timed point's count of reads before the wait is the kernel's, however
// spelled: the neighbours' `early_reads = 0` is the rule's count for this
// two-pass tactic, which leaves the knob out, so its slowdown is as timed
// (not the median) and the tactic keeps the rule.

// CHECK-LABEL: func.func @rule_spelled_out
// CHECK: tactic(#lamport.tactic<splits = 1, kw = 128, accs = 1, tiles = 2, passes = 2, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stages = 6, stage_bytes = 32768, producer_lanes = 2, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8, 16, 16, 16, 16, 16, 16, 16, 16]>)
func.func @rule_spelled_out(%x: memref<16x2048xbf16>,
                            %w: memref<8192x2048xbf16>,
                            %y: memref<16x8192xbf16>) {
  // expected-remark-re @+1 {{M 16..16 s1 kw128 tiles2 p2 a1 occ1 early bulk 6 x 32 KiB, 2 lanes from the cost model (no entry in the table {{.*}}/Inputs/tactics_early_reads.json; estimate 10.48 us at M = 16, the runner-up s1 kw128 p4 a4 occ1 early late2 10.02 us; weighed by the prior 10.48 and 11.53 us (the pick's slowdown there 1.000, as timed)}}
  lamport.gemm_publish %x, %w into %y {pdl}
      : memref<16x2048xbf16>, memref<8192x2048xbf16>, memref<16x8192xbf16>
  return
}
