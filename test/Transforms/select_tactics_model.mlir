// RUN: lamport-opt %s --split-input-file --lamport-select-tactics="no-table chip=sm_90" | FileCheck %s
// RUN: lamport-opt %s --split-input-file --lamport-select-tactics="no-table chip=sm_90 explain" -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN

// The cost model's picks at real-model shapes the tuner timed on one H200
// (bench/data/h200_tactics, four runs): bench/fit_tactic_model.py has the
// figures behind each.

// Llama-3 8B down tp4 at M = 4: the bulk-stream family's own launch, one
// split of 16 warps in 2 passes, a ring of 12 stages of 16 KiB (rows of
// 448 bytes: tensor copies, a box a stage, 2 producer lanes); measured
// 8.27 us against the best of 47 candidates, 7.89 (bench/data/
// h200_tactics_bulk). The register family's pick, one split in 2 passes
// with two late chunks, measured 1.006-1.024x the best of the register
// runs (bench/data/h200_tactics).
// CHECK-LABEL: func.func @llama3_8b_down_tp4
// CHECK: tactic(#lamport.tactic<splits = 1, kw = 224, accs = 2, passes = 2,
// CHECK-SAME: pipeline = bulk, stages = 12, producer_lanes = 2, token_tiles = [8, 8, 8, 8]>)
func.func @llama3_8b_down_tp4(%x: memref<4x3584xbf16>,
                              %w: memref<4096x3584xbf16>,
                              %y: memref<4x4096xbf16>) {
  lamport.gemm_publish %x, %w into %y {pdl}
      : memref<4x3584xbf16>, memref<4096x3584xbf16>, memref<4x4096xbf16>
  return
}

// -----

// Qwen2.5 72B up tp8 at M = 4, K = 8192: 4 splits of 16 warps, not 2 of
// 32 (one 1024-thread CTA per SM idles it between waves: 1.17x); the best
// of all four runs.
// CHECK-LABEL: func.func @qwen25_72b_up_tp8
// CHECK: tactic(#lamport.tactic<splits = 4, kw = 128, accs = 2,
func.func @qwen25_72b_up_tp8(%x: memref<4x8192xbf16>,
                             %w: memref<3696x8192xbf16>,
                             %y: memref<4x3696xbf16>) {
  lamport.gemm_publish %x, %w into %y {pdl}
      : memref<4x8192xbf16>, memref<3696x8192xbf16>, memref<4x3696xbf16>
  return
}

// -----

// Llama-3 70B down tp16 at M = 8: kw 128 (kw 64 measured 1.11x the best),
// 4 passes (1.05-1.07x the best, one pass of 4 accumulators).
// CHECK-LABEL: func.func @llama3_70b_down_tp16
// CHECK: tactic(#lamport.tactic<splits = 1, kw = 128, accs = 4, passes = 4,
func.func @llama3_70b_down_tp16(%x: memref<8x1792xbf16>,
                                %w: memref<8192x1792xbf16>,
                                %y: memref<8x8192xbf16>) {
  lamport.gemm_publish %x, %w into %y {pdl}
      : memref<8x1792xbf16>, memref<8192x1792xbf16>, memref<8x8192xbf16>
  return
}

// -----

// With M dynamic the model keeps the previous M's tactic while it is within
// 2% of the best: from M = 4 alone Llama-3 8B o_proj tp2 takes one tile
// with 2 late chunks (@static_m8), but over M 1..16 it stays on M = 1's
// tactic up to M = 6. The remark gives a run's figures at its last M,
// where the kept tactic trails the first, and says why it was kept; the
// next run's tactic ranked first at its last M, so its remark does not.
// EXPLAIN: remark: tactics for N = 4096, K = 2048: M 1..6 s1 kw128 tiles2 a4 occ1 early from the cost model (no table read; estimate 4.89 us at M = 6, the runner-up s1 kw128 a2 occ1 early late2 4.80 us; ranked first at M = 1 and kept while within 2% of the first, so that M does not switch kernels for less); M 7..8 s1 kw128 a2 occ1 early late2 from the cost model (no table read; estimate {{[0-9.]+}} us at M = 8, the runner-up {{[^;]*}} us); M 9..16
// CHECK-LABEL: func.func @dynamic
// CHECK: tactic(#lamport.tactic<splits = 1, kw = 128, accs = 4, tiles = 2, min_ctas_per_sm = 1, early_dependents = true, token_tiles = [8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 128, accs = 2, min_ctas_per_sm = 1, early_dependents = true, late_chunks = 2, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
func.func @dynamic(%x: memref<?x2048xbf16>, %w: memref<4096x2048xbf16>,
                   %y: memref<?x4096xbf16>) {
  lamport.gemm_publish %x, %w into %y {pdl}
      : memref<?x2048xbf16>, memref<4096x2048xbf16>, memref<?x4096xbf16>
  return
}

// -----

// The measured best of three runs (the tiles = 2 the previous figures
// picked measured 1.17x).
// CHECK-LABEL: func.func @static_m8
// CHECK: tactic(#lamport.tactic<splits = 1, kw = 128, accs = 2, min_ctas_per_sm = 1, early_dependents = true, late_chunks = 2, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>)
func.func @static_m8(%x: memref<8x2048xbf16>, %w: memref<4096x2048xbf16>,
                     %y: memref<8x4096xbf16>) {
  lamport.gemm_publish %x, %w into %y {pdl}
      : memref<8x2048xbf16>, memref<4096x2048xbf16>, memref<8x4096xbf16>
  return
}
