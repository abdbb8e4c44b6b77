// RUN: lamport-opt %s -split-input-file -verify-diagnostics

// The attribute parsers: only the listed enum cases; a tactic's knobs by
// name, each once, the required ones present, no negative counts.

// expected-error @+2 {{expected ::mlir::lamport::Transport to be one of: multicast, unicast}}
// expected-error @+1 {{failed to parse Lamport_TransportAttr parameter 'value' which is to be a `::mlir::lamport::Transport`}}
func.func private @transport_unknown() attributes {t = #lamport.transport<broadcast>}

// -----

// expected-error @+2 {{expected ::mlir::lamport::SumOrder to be one of: rank_ascending, pairwise}}
// expected-error @+1 {{failed to parse Lamport_SumOrderAttr parameter 'value' which is to be a `::mlir::lamport::SumOrder`}}
func.func private @sum_order_unknown() attributes {t = #lamport.sum_order<tree>}

// -----

// expected-error @+1 {{tactic lacks accs (splits, kw, accs and token_tiles are required)}}
func.func private @tactic_missing_accs() attributes {t = #lamport.tactic<splits = 1, kw = 64, token_tiles = [8]>}

// -----

// expected-error @+1 {{tactic lacks splits, kw, accs, token_tiles (splits, kw, accs and token_tiles are required)}}
func.func private @tactic_empty() attributes {t = #lamport.tactic<>}

// -----

// expected-error @+1 {{unknown tactic knob 'tile'; the knobs are splits, kw, accs, tiles, passes, min_ctas_per_sm, early_dependents, late_chunks, pipeline, stages, stage_bytes, producer_lanes, early_reads, token_tiles}}
func.func private @tactic_misspelt_knob() attributes {t = #lamport.tactic<splits = 1, kw = 64, accs = 1, tile = 2, token_tiles = [8]>}

// -----

// expected-error @+1 {{tactic knob 'kw' written twice}}
func.func private @tactic_knob_twice() attributes {t = #lamport.tactic<splits = 1, kw = 64, accs = 1, kw = 128, token_tiles = [8]>}

// -----

// expected-error @+1 {{expected a tactic knob: splits, kw, accs, tiles, passes, min_ctas_per_sm, early_dependents, late_chunks, pipeline, stages, stage_bytes, producer_lanes, early_reads, token_tiles}}
func.func private @tactic_value_without_knob() attributes {t = #lamport.tactic<splits = 1, 64, accs = 1, token_tiles = [8]>}

// -----

// expected-error @+1 {{expected '='}}
func.func private @tactic_knob_without_value() attributes {t = #lamport.tactic<splits = 1, kw, accs = 1, token_tiles = [8]>}

// -----

// expected-error @+1 {{expected a count in 0..4294967295, got -2}}
func.func private @tactic_negative_splits() attributes {t = #lamport.tactic<splits = -2, kw = 64, accs = 1, token_tiles = [8]>}

// -----

// expected-error @+1 {{expected a count in 0..4294967295, got -2}}
func.func private @tactic_negative_tiles() attributes {t = #lamport.tactic<splits = 1, kw = 64, accs = 1, tiles = -2, token_tiles = [8]>}

// -----

// expected-error @+1 {{expected registers or bulk after 'pipeline =', got 'ring'}}
func.func private @tactic_unknown_pipeline() attributes {t = #lamport.tactic<splits = 1, kw = 64, accs = 1, pipeline = ring, token_tiles = [8]>}

// -----

// expected-error @+1 {{expected true or false after 'early_dependents =', got 'yes'}}
func.func private @tactic_early_dependents_not_bool() attributes {t = #lamport.tactic<splits = 1, kw = 64, accs = 1, early_dependents = yes, token_tiles = [8]>}

// -----

// expected-error @+1 {{expected true or false after 'early_dependents ='}}
func.func private @tactic_early_dependents_number() attributes {t = #lamport.tactic<splits = 1, kw = 64, accs = 1, early_dependents = 1, token_tiles = [8]>}

// -----

// expected-error @+1 {{expected integer value}}
func.func private @tactic_token_tiles_not_integers() attributes {t = #lamport.tactic<splits = 1, kw = 64, accs = 1, token_tiles = [eight]>}

// -----

// expected-error @+1 {{expected ',' before the next tactic knob or '>' after the last}}
func.func private @tactic_knobs_without_comma() attributes {t = #lamport.tactic<splits = 1, kw = 64, accs = 1, token_tiles = [8] tiles = 2>}
