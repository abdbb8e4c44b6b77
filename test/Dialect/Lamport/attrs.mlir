// RUN: lamport-opt %s | FileCheck %s
// RUN: lamport-opt %s | lamport-opt | FileCheck %s
// RUN: lamport-opt %s --mlir-print-op-generic | lamport-opt | FileCheck %s

// Round trip of the dialect's attributes on their own: the transport, the
// sum order and the GEMM tactic.

// CHECK-LABEL: func.func @transports
// CHECK-SAME: multicast = #lamport.transport<multicast>
// CHECK-SAME: unicast = #lamport.transport<unicast>
func.func @transports() attributes {
    multicast = #lamport.transport<multicast>,
    unicast = #lamport.transport<unicast>} {
  return
}

// CHECK-LABEL: func.func @sum_orders
// CHECK-SAME: pairwise = #lamport.sum_order<pairwise>
// CHECK-SAME: rank_ascending = #lamport.sum_order<rank_ascending>
func.func @sum_orders() attributes {
    rank_ascending = #lamport.sum_order<rank_ascending>,
    pairwise = #lamport.sum_order<pairwise>} {
  return
}

// A tactic is checked against a weight only where lamport.gemm_publish
// uses it; on its own any parameters parse.
// CHECK-LABEL: func.func @tactics
// CHECK-SAME: one_tile = #lamport.tactic<splits = 1, kw = 16, accs = 1, token_tiles = [8]>
// CHECK-SAME: oproj = #lamport.tactic<splits = 1, kw = 64, accs = 2, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8, 16, 16, 16, 16, 16, 16, 16, 16]>
func.func @tactics() attributes {
    oproj = #lamport.tactic<splits = 1, kw = 64, accs = 2,
        token_tiles = [8, 8, 8, 8, 8, 8, 8, 8,
                       16, 16, 16, 16, 16, 16, 16, 16]>,
    one_tile = #lamport.tactic<splits = 1, kw = 16, accs = 1,
        token_tiles = [8]>} {
  return
}

// `tiles` (tiles of 16 features per CTA) may be left out: it is then 1 and,
// like an explicit `tiles = 1`, not printed, so IR written before it keeps
// its meaning and its spelling. Any other count prints between accs and
// token_tiles.
// CHECK-LABEL: func.func @tactic_tiles
// CHECK-SAME: explicit_one = #lamport.tactic<splits = 1, kw = 64, accs = 2, token_tiles = [8]>
// CHECK-SAME: four = #lamport.tactic<splits = 2, kw = 128, accs = 4, tiles = 4, token_tiles = [16]>
// CHECK-SAME: left_out = #lamport.tactic<splits = 1, kw = 64, accs = 2, token_tiles = [8]>
// CHECK-SAME: two = #lamport.tactic<splits = 1, kw = 128, accs = 2, tiles = 2, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8, 16, 16, 16, 16, 16, 16, 16, 16]>
func.func @tactic_tiles() attributes {
    left_out = #lamport.tactic<splits = 1, kw = 64, accs = 2,
        token_tiles = [8]>,
    explicit_one = #lamport.tactic<splits = 1, kw = 64, accs = 2, tiles = 1,
        token_tiles = [8]>,
    two = #lamport.tactic<splits = 1, kw = 128, accs = 2, tiles = 2,
        token_tiles = [8, 8, 8, 8, 8, 8, 8, 8,
                       16, 16, 16, 16, 16, 16, 16, 16]>,
    four = #lamport.tactic<splits = 2, kw = 128, accs = 4, tiles = 4,
        token_tiles = [16]>} {
  return
}

// `min_ctas_per_sm` (ptxas's register budget hint) may be left out: it is
// then 0 (no hint) and, like an explicit 0, not printed. Any other count
// prints after tiles.
// CHECK-LABEL: func.func @tactic_min_ctas_per_sm
// CHECK-SAME: explicit_zero = #lamport.tactic<splits = 1, kw = 64, accs = 2, token_tiles = [8]>
// CHECK-SAME: one = #lamport.tactic<splits = 1, kw = 128, accs = 2, min_ctas_per_sm = 1, token_tiles = [16]>
// CHECK-SAME: with_tiles = #lamport.tactic<splits = 1, kw = 128, accs = 2, tiles = 2, min_ctas_per_sm = 2, token_tiles = [8]>
func.func @tactic_min_ctas_per_sm() attributes {
    explicit_zero = #lamport.tactic<splits = 1, kw = 64, accs = 2,
        min_ctas_per_sm = 0, token_tiles = [8]>,
    one = #lamport.tactic<splits = 1, kw = 128, accs = 2, min_ctas_per_sm = 1,
        token_tiles = [16]>,
    with_tiles = #lamport.tactic<splits = 1, kw = 128, accs = 2, tiles = 2,
        min_ctas_per_sm = 2, token_tiles = [8]>} {
  return
}

// `early_dependents` may be left out: it is then false and, like an explicit
// false, not printed; true prints after min_ctas_per_sm.
// CHECK-LABEL: func.func @tactic_early_dependents
// CHECK-SAME: early = #lamport.tactic<splits = 1, kw = 128, accs = 2, early_dependents = true, token_tiles = [8]>
// CHECK-SAME: explicit_false = #lamport.tactic<splits = 1, kw = 64, accs = 2, token_tiles = [8]>
// CHECK-SAME: with_hint = #lamport.tactic<splits = 2, kw = 64, accs = 2, min_ctas_per_sm = 1, early_dependents = true, token_tiles = [16]>
func.func @tactic_early_dependents() attributes {
    explicit_false = #lamport.tactic<splits = 1, kw = 64, accs = 2,
        early_dependents = false, token_tiles = [8]>,
    early = #lamport.tactic<splits = 1, kw = 128, accs = 2,
        early_dependents = true, token_tiles = [8]>,
    with_hint = #lamport.tactic<splits = 2, kw = 64, accs = 2,
        min_ctas_per_sm = 1, early_dependents = true, token_tiles = [16]>} {
  return
}

// `passes` may be left out: it is then 1 and, like an explicit 1, not
// printed; any other count prints after tiles.
// CHECK-LABEL: func.func @tactic_passes
// CHECK-SAME: explicit_one = #lamport.tactic<splits = 1, kw = 64, accs = 2, token_tiles = [8]>
// CHECK-SAME: four = #lamport.tactic<splits = 1, kw = 128, accs = 2, tiles = 2, passes = 4, min_ctas_per_sm = 1, token_tiles = [16]>
func.func @tactic_passes() attributes {
    explicit_one = #lamport.tactic<splits = 1, kw = 64, accs = 2, passes = 1,
        token_tiles = [8]>,
    four = #lamport.tactic<splits = 1, kw = 128, accs = 2, tiles = 2,
        passes = 4, min_ctas_per_sm = 1, token_tiles = [16]>} {
  return
}

// `late_chunks` may be left out: it is then 0 and, like an explicit 0, not
// printed; any other count prints after early_dependents.
// CHECK-LABEL: func.func @tactic_late_chunks
// CHECK-SAME: explicit_zero = #lamport.tactic<splits = 1, kw = 64, accs = 2, token_tiles = [8]>
// CHECK-SAME: one = #lamport.tactic<splits = 2, kw = 128, accs = 1, tiles = 2, min_ctas_per_sm = 1, early_dependents = true, late_chunks = 1, token_tiles = [16]>
func.func @tactic_late_chunks() attributes {
    explicit_zero = #lamport.tactic<splits = 1, kw = 64, accs = 2,
        late_chunks = 0, token_tiles = [8]>,
    one = #lamport.tactic<splits = 2, kw = 128, accs = 1, tiles = 2,
        min_ctas_per_sm = 1, early_dependents = true, late_chunks = 1,
        token_tiles = [16]>} {
  return
}

// `pipeline` may be left out: it is then `registers` and, like an explicit
// `registers`, not printed; `bulk` prints after late_chunks, and the ring's
// knobs (stages 4, stage_bytes 16384, producer_lanes 1 when left out) print
// after it where they differ from those.
// CHECK-LABEL: func.func @tactic_pipeline
// CHECK-SAME: bulk = #lamport.tactic<splits = 2, kw = 128, accs = 1, tiles = 2, pipeline = bulk, token_tiles = [16]>
// CHECK-SAME: explicit_registers = #lamport.tactic<splits = 1, kw = 64, accs = 2, token_tiles = [8]>
// CHECK-SAME: knobs = #lamport.tactic<splits = 1, kw = 256, accs = 1, pipeline = bulk, stages = 8, stage_bytes = 32768, producer_lanes = 16, token_tiles = [8]>
// CHECK-SAME: knobs_at_defaults = #lamport.tactic<splits = 1, kw = 256, accs = 1, pipeline = bulk, token_tiles = [8]>
func.func @tactic_pipeline() attributes {
    explicit_registers = #lamport.tactic<splits = 1, kw = 64, accs = 2,
        pipeline = registers, token_tiles = [8]>,
    bulk = #lamport.tactic<splits = 2, kw = 128, accs = 1, tiles = 2,
        pipeline = bulk, token_tiles = [16]>,
    knobs = #lamport.tactic<splits = 1, kw = 256, accs = 1, pipeline = bulk,
        stages = 8, stage_bytes = 32768, producer_lanes = 16,
        token_tiles = [8]>,
    knobs_at_defaults = #lamport.tactic<splits = 1, kw = 256, accs = 1,
        pipeline = bulk, stages = 4, stage_bytes = 16384, producer_lanes = 1,
        token_tiles = [8]>} {
  return
}

// `early_reads` has no default value: left out, the generator's rule
// decides and nothing prints; given, even 0, it prints after the ring.
// CHECK-LABEL: func.func @tactic_early_reads
// CHECK-SAME: none = #lamport.tactic<splits = 1, kw = 256, accs = 1, pipeline = bulk, early_reads = 0, token_tiles = [8]>
// CHECK-SAME: rule = #lamport.tactic<splits = 1, kw = 256, accs = 1, pipeline = bulk, stages = 3, token_tiles = [8]>
// CHECK-SAME: two = #lamport.tactic<splits = 1, kw = 256, accs = 1, passes = 2, pipeline = bulk, stages = 3, producer_lanes = 4, early_reads = 2, token_tiles = [8]>
func.func @tactic_early_reads() attributes {
    rule = #lamport.tactic<splits = 1, kw = 256, accs = 1, pipeline = bulk,
        stages = 3, token_tiles = [8]>,
    none = #lamport.tactic<splits = 1, kw = 256, accs = 1, pipeline = bulk,
        early_reads = 0, token_tiles = [8]>,
    two = #lamport.tactic<splits = 1, kw = 256, accs = 1, passes = 2,
        pipeline = bulk, stages = 3, producer_lanes = 4, early_reads = 2,
        token_tiles = [8]>} {
  return
}

// The knobs may be written in any order; they print in one order, those at
// their defaults left out, so tactics that differ only in how they were
// written are one attribute.
// CHECK-LABEL: func.func @tactic_any_order
// CHECK-SAME: reversed = #lamport.tactic<splits = 2, kw = 128, accs = 1, tiles = 2, early_dependents = true, late_chunks = 2, token_tiles = [16]>
// CHECK-SAME: ring_first = #lamport.tactic<splits = 1, kw = 256, accs = 1, passes = 2, pipeline = bulk, stages = 3, early_reads = 1, token_tiles = [8]>
// CHECK-SAME: tiles_last = #lamport.tactic<splits = 2, kw = 128, accs = 1, tiles = 2, early_dependents = true, late_chunks = 2, token_tiles = [16]>
func.func @tactic_any_order() attributes {
    reversed = #lamport.tactic<token_tiles = [16], late_chunks = 2,
        early_dependents = true, tiles = 2, accs = 1, kw = 128, splits = 2>,
    tiles_last = #lamport.tactic<splits = 2, kw = 128, accs = 1,
        early_dependents = true, late_chunks = 2, token_tiles = [16],
        tiles = 2>,
    ring_first = #lamport.tactic<pipeline = bulk, early_reads = 1,
        stages = 3, splits = 1, kw = 256, accs = 1, passes = 2,
        token_tiles = [8], stage_bytes = 16384>} {
  return
}
