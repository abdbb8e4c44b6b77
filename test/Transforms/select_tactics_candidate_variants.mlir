// RUN: lamport-opt %s --split-input-file --lamport-select-tactics="no-table candidates=2 candidate-variants" | FileCheck %s
// RUN: lamport-opt %s --split-input-file --lamport-select-tactics="no-table candidates=2" | FileCheck %s --check-prefix=PLAIN
// RUN: lamport-opt %s --split-input-file --lamport-select-tactics="no-table candidates=2 candidate-variants bulk-copies=rows" | FileCheck %s --check-prefix=ROWS

// `candidate-variants` (lamport-tune --variants): each of the model's best
// launch shapes is followed by its best tactic at every other late-chunk
// count, then by the bulk pipeline's rings of about 64 and 128 KiB in
// stages of about 32 KiB, each stage's copies issued by up to 32 lanes.
// Each bulk tactic is followed by its twin with the other choice of reads
// before the PDL wait: `early_reads = 0` at one pass (the rule reads some),
// at several the loads whose fragments fit 64 registers (a stage's chunks
// a warp x tiles x 8): at one tile a 32 KiB stage is all of K, so kw 256
// is 8 chunks, 64 registers, 1 load; kw 64 2 chunks, 16 registers, the
// whole first fill (2, 3 or 4 stages).

// o_proj tp8: the best launch shape s1 kw128 (one tile) carries
// late_chunks = 2, so 0 and 1 follow it. It is 8 warps over 16 rows: all
// of a CTA's weights, 16 x 1024 x 2 bytes, are one stage of 32 KiB (one
// copy, one lane), so both rings are that one stage: one variant. s1 kw128
// tiles4 is 8 warps over 64 rows; a stage of one chunk of 32 K a warp is
// 64 x 2 x 32 x 8 = 32 KiB, so 1024 K is 4 loads, through 2 stages (64 KiB)
// or 4 (128 KiB; 4 is the default, not printed). Last, the bulk
// pipeline's own launch shapes: one split, 4 warps (kw 256), 8 (kw 128) or
// 16 (kw 64), the passes and tiles that leave at least 64 CTAs (one tile
// and 2, 4 or 8 passes, two tiles and 2 or 4), rings of about 96, 128 and
// 192 KiB; at one tile a stage of 32 KiB is all of K (one copy, one lane),
// so at 2 passes there are two loads and every ring is 2 stages, at 8
// passes 3, 4 (the default, not printed) or 6. A ring its loads
// refill, of rows under 2 KiB, takes tensor copies (lamport-compile's
// default `--bulk-copies=auto`): a stage is one box of 256 K a row, one
// copy a lane (at 64 rows, the 2-stage ring above; at 32 rows, 3 stages).
// CHECK-LABEL: func.func @oproj_tp8
// CHECK: lamport.candidates = [
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 128, accs = 2, min_ctas_per_sm = 1, early_dependents = true, late_chunks = 2, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 128, accs = 2, min_ctas_per_sm = 1, early_dependents = true, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 128, accs = 2, min_ctas_per_sm = 1, early_dependents = true, late_chunks = 1, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 128, accs = 2, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stages = 1, stage_bytes = 32768, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 128, accs = 2, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stages = 1, stage_bytes = 32768, early_reads = 0, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 128, accs = 4, tiles = 4, min_ctas_per_sm = 1, early_dependents = true, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 128, accs = 4, tiles = 4, min_ctas_per_sm = 1, early_dependents = true, late_chunks = 1, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 128, accs = 4, tiles = 4, min_ctas_per_sm = 1, early_dependents = true, late_chunks = 2, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 128, accs = 4, tiles = 4, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stages = 2, stage_bytes = 32768, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 128, accs = 4, tiles = 4, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stages = 2, stage_bytes = 32768, early_reads = 0, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 128, accs = 4, tiles = 4, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stage_bytes = 32768, producer_lanes = 32, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 128, accs = 4, tiles = 4, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stage_bytes = 32768, producer_lanes = 32, early_reads = 0, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 256, accs = 2, passes = 2, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stages = 2, stage_bytes = 32768, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 256, accs = 2, passes = 2, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stages = 2, stage_bytes = 32768, early_reads = 1, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 256, accs = 2, tiles = 2, passes = 2, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stages = 3, stage_bytes = 32768, producer_lanes = 2, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 256, accs = 2, tiles = 2, passes = 2, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stages = 3, stage_bytes = 32768, producer_lanes = 2, early_reads = 1, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 256, accs = 2, tiles = 2, passes = 2, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stage_bytes = 32768, producer_lanes = 32, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 256, accs = 2, tiles = 2, passes = 2, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stage_bytes = 32768, producer_lanes = 32, early_reads = 1, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 256, accs = 2, passes = 4, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stages = 3, stage_bytes = 32768, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 256, accs = 2, passes = 4, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stages = 3, stage_bytes = 32768, early_reads = 1, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 256, accs = 2, passes = 4, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stage_bytes = 32768, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 256, accs = 2, passes = 4, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stage_bytes = 32768, early_reads = 1, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 256, accs = 2, tiles = 2, passes = 4, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stages = 3, stage_bytes = 32768, producer_lanes = 2, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 256, accs = 2, tiles = 2, passes = 4, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stages = 3, stage_bytes = 32768, producer_lanes = 2, early_reads = 1, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 256, accs = 2, tiles = 2, passes = 4, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stage_bytes = 32768, producer_lanes = 2, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 256, accs = 2, tiles = 2, passes = 4, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stage_bytes = 32768, producer_lanes = 2, early_reads = 1, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 256, accs = 2, tiles = 2, passes = 4, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stages = 6, stage_bytes = 32768, producer_lanes = 2, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 256, accs = 2, tiles = 2, passes = 4, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stages = 6, stage_bytes = 32768, producer_lanes = 2, early_reads = 1, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 256, accs = 2, passes = 8, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stages = 3, stage_bytes = 32768, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 256, accs = 2, passes = 8, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stages = 3, stage_bytes = 32768, early_reads = 1, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 256, accs = 2, passes = 8, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stage_bytes = 32768, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 256, accs = 2, passes = 8, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stage_bytes = 32768, early_reads = 1, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 256, accs = 2, passes = 8, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stages = 6, stage_bytes = 32768, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 256, accs = 2, passes = 8, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stages = 6, stage_bytes = 32768, early_reads = 1, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 128, accs = 2, passes = 2, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stages = 2, stage_bytes = 32768, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 128, accs = 2, passes = 2, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stages = 2, stage_bytes = 32768, early_reads = 2, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 128, accs = 2, tiles = 2, passes = 2, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stages = 3, stage_bytes = 32768, producer_lanes = 2, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 128, accs = 2, tiles = 2, passes = 2, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stages = 3, stage_bytes = 32768, producer_lanes = 2, early_reads = 2, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 128, accs = 2, tiles = 2, passes = 2, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stage_bytes = 32768, producer_lanes = 32, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 128, accs = 2, tiles = 2, passes = 2, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stage_bytes = 32768, producer_lanes = 32, early_reads = 2, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 128, accs = 2, passes = 4, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stages = 3, stage_bytes = 32768, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 128, accs = 2, passes = 4, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stages = 3, stage_bytes = 32768, early_reads = 2, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 128, accs = 2, passes = 4, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stage_bytes = 32768, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 128, accs = 2, passes = 4, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stage_bytes = 32768, early_reads = 2, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 128, accs = 2, tiles = 2, passes = 4, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stages = 3, stage_bytes = 32768, producer_lanes = 2, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 128, accs = 2, tiles = 2, passes = 4, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stages = 3, stage_bytes = 32768, producer_lanes = 2, early_reads = 2, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 128, accs = 2, tiles = 2, passes = 4, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stage_bytes = 32768, producer_lanes = 2, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 128, accs = 2, tiles = 2, passes = 4, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stage_bytes = 32768, producer_lanes = 2, early_reads = 2, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 128, accs = 2, tiles = 2, passes = 4, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stages = 6, stage_bytes = 32768, producer_lanes = 2, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 128, accs = 2, tiles = 2, passes = 4, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stages = 6, stage_bytes = 32768, producer_lanes = 2, early_reads = 2, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 128, accs = 2, passes = 8, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stages = 3, stage_bytes = 32768, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 128, accs = 2, passes = 8, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stages = 3, stage_bytes = 32768, early_reads = 2, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 128, accs = 2, passes = 8, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stage_bytes = 32768, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 128, accs = 2, passes = 8, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stage_bytes = 32768, early_reads = 2, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 128, accs = 2, passes = 8, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stages = 6, stage_bytes = 32768, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 128, accs = 2, passes = 8, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stages = 6, stage_bytes = 32768, early_reads = 2, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 64, accs = 2, passes = 2, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stages = 2, stage_bytes = 32768, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 64, accs = 2, passes = 2, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stages = 2, stage_bytes = 32768, early_reads = 2, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 64, accs = 2, tiles = 2, passes = 2, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stages = 3, stage_bytes = 32768, producer_lanes = 2, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 64, accs = 2, tiles = 2, passes = 2, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stages = 3, stage_bytes = 32768, producer_lanes = 2, early_reads = 3, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 64, accs = 2, tiles = 2, passes = 2, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stage_bytes = 32768, producer_lanes = 32, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 64, accs = 2, tiles = 2, passes = 2, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stage_bytes = 32768, producer_lanes = 32, early_reads = 4, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 64, accs = 2, passes = 4, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stages = 3, stage_bytes = 32768, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 64, accs = 2, passes = 4, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stages = 3, stage_bytes = 32768, early_reads = 3, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 64, accs = 2, passes = 4, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stage_bytes = 32768, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 64, accs = 2, passes = 4, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stage_bytes = 32768, early_reads = 4, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 64, accs = 2, tiles = 2, passes = 4, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stages = 3, stage_bytes = 32768, producer_lanes = 2, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 64, accs = 2, tiles = 2, passes = 4, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stages = 3, stage_bytes = 32768, producer_lanes = 2, early_reads = 3, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 64, accs = 2, tiles = 2, passes = 4, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stage_bytes = 32768, producer_lanes = 2, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 64, accs = 2, tiles = 2, passes = 4, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stage_bytes = 32768, producer_lanes = 2, early_reads = 4, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 64, accs = 2, tiles = 2, passes = 4, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stages = 6, stage_bytes = 32768, producer_lanes = 2, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 64, accs = 2, tiles = 2, passes = 4, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stages = 6, stage_bytes = 32768, producer_lanes = 2, early_reads = 4, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 64, accs = 2, passes = 8, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stages = 3, stage_bytes = 32768, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 64, accs = 2, passes = 8, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stages = 3, stage_bytes = 32768, early_reads = 3, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 64, accs = 2, passes = 8, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stage_bytes = 32768, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 64, accs = 2, passes = 8, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stage_bytes = 32768, early_reads = 4, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 64, accs = 2, passes = 8, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stages = 6, stage_bytes = 32768, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 64, accs = 2, passes = 8, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stages = 6, stage_bytes = 32768, early_reads = 4, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>]
// Without the option, the two launch shapes alone.
// PLAIN-LABEL: func.func @oproj_tp8
// PLAIN: lamport.candidates = [#lamport.tactic<splits = 1, kw = 128, accs = 2, {{[^>]*}}late_chunks = 2, {{[^>]*}}>, #lamport.tactic<splits = 1, kw = 128, accs = 4, tiles = 4, {{[^>]*}}>]
func.func @oproj_tp8(%x: memref<8x1024xbf16>, %w: memref<8192x1024xbf16>,
                     %y: memref<8x8192xbf16>) {
  lamport.gemm_publish %x, %w into %y {pdl}
      : memref<8x1024xbf16>, memref<8192x1024xbf16>, memref<8x8192xbf16>
  return
}

// -----

// unpooler tp4 at 16 tokens: the model's best carries late_chunks = 2, so
// 0 and 1 follow it. One tile is 16 rows of 2 KiB, one copy each: 16
// producer lanes; two splits give each stage 32 rows of 1 KiB, 32 copies and
// 32 lanes, or in the 2-stage ring its 4 loads refill 2 tensor copies of
// 256 K and 2 lanes. Then the bulk pipeline's own launch shapes: one split
// and 2 passes over 64 CTAs, 8 warps (kw 512) or 16 (kw 256); 4 warps
// would hold x of 32 chunks, past a thread's registers at 16 tokens.
// CHECK-LABEL: func.func @unpooler_tp4
// CHECK: lamport.candidates = [
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 128, accs = 1, min_ctas_per_sm = 1, early_dependents = true, late_chunks = 2, token_tiles = [
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 128, accs = 1, min_ctas_per_sm = 1, early_dependents = true, token_tiles = [
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 128, accs = 1, min_ctas_per_sm = 1, early_dependents = true, late_chunks = 1, token_tiles = [
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 128, accs = 1, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stages = 2, stage_bytes = 32768, producer_lanes = 16, token_tiles = [
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 128, accs = 1, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stages = 2, stage_bytes = 32768, producer_lanes = 16, early_reads = 0, token_tiles = [
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 128, accs = 1, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stage_bytes = 32768, producer_lanes = 16, token_tiles = [
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 128, accs = 1, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stage_bytes = 32768, producer_lanes = 16, early_reads = 0, token_tiles = [
// CHECK-SAME: #lamport.tactic<splits = 2, kw = 128, accs = 2, tiles = 2, {{[^>]*}}late_chunks = 2, token_tiles = [
// CHECK-SAME: #lamport.tactic<splits = 2, kw = 128, accs = 2, tiles = 2, {{[^>]*}}early_dependents = true, token_tiles = [
// CHECK-SAME: #lamport.tactic<splits = 2, kw = 128, accs = 2, tiles = 2, {{[^>]*}}late_chunks = 1, token_tiles = [
// CHECK-SAME: #lamport.tactic<splits = 2, kw = 128, accs = 2, tiles = 2, {{[^>]*}}pipeline = bulk, stages = 2, stage_bytes = 32768, producer_lanes = 2, token_tiles = [
// CHECK-SAME: #lamport.tactic<splits = 2, kw = 128, accs = 2, tiles = 2, {{[^>]*}}pipeline = bulk, stages = 2, stage_bytes = 32768, producer_lanes = 2, early_reads = 0, token_tiles = [
// CHECK-SAME: #lamport.tactic<splits = 2, kw = 128, accs = 2, tiles = 2, {{[^>]*}}pipeline = bulk, stage_bytes = 32768, producer_lanes = 32, token_tiles = [
// CHECK-SAME: #lamport.tactic<splits = 2, kw = 128, accs = 2, tiles = 2, {{[^>]*}}pipeline = bulk, stage_bytes = 32768, producer_lanes = 32, early_reads = 0, token_tiles = [
// CHECK-SAME: #lamport.tactic<splits = 1, kw = 512, accs = 1, passes = 2, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stages = 3, stage_bytes = 32768, producer_lanes = 16, token_tiles = [
// With the generator's bulk-copies=rows the same 2-stage ring takes one
// copy a row, 32 of them: 32 lanes.
// ROWS-LABEL: func.func @unpooler_tp4
// ROWS: #lamport.tactic<splits = 2, kw = 128, accs = 2, tiles = 2, {{[^>]*}}pipeline = bulk, stages = 2, stage_bytes = 32768, producer_lanes = 32, token_tiles = [
func.func @unpooler_tp4(%x: memref<16x4096xbf16>, %w: memref<2048x4096xbf16>,
                        %y: memref<16x2048xbf16>) {
  lamport.gemm_publish %x, %w into %y {pdl}
      : memref<16x4096xbf16>, memref<2048x4096xbf16>, memref<16x2048xbf16>
  return
}
