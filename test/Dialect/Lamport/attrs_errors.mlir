// RUN: lamport-opt %s -split-input-file -verify-diagnostics

// The attribute parsers: only the listed enum cases, every tactic
// parameter (tiles optional, in its place), and no negative counts.

// expected-error @+2 {{expected ::mlir::lamport::Transport to be one of: multicast, unicast}}
// expected-error @+1 {{failed to parse Lamport_TransportAttr parameter 'value' which is to be a `::mlir::lamport::Transport`}}
func.func private @transport_unknown() attributes {t = #lamport.transport<broadcast>}

// -----

// expected-error @+2 {{expected ::mlir::lamport::SumOrder to be one of: rank_ascending, pairwise}}
// expected-error @+1 {{failed to parse Lamport_SumOrderAttr parameter 'value' which is to be a `::mlir::lamport::SumOrder`}}
func.func private @sum_order_unknown() attributes {t = #lamport.sum_order<tree>}

// -----

// expected-error @+1 {{expected 'accs'}}
func.func private @tactic_missing_accs() attributes {t = #lamport.tactic<splits = 1, kw = 64, token_tiles = [8]>}

// -----

// expected-error @+2 {{expected a count in 0..4294967295, got -2}}
// expected-error @+1 {{failed to parse Lamport_TacticAttr parameter 'splits' which is to be a `unsigned`}}
func.func private @tactic_negative_splits() attributes {t = #lamport.tactic<splits = -2, kw = 64, accs = 1, token_tiles = [8]>}

// -----

// expected-error @+2 {{expected a count in 0..4294967295, got -2}}
// expected-error @+1 {{failed to parse Lamport_TacticAttr parameter 'tiles' which is to be a `unsigned`}}
func.func private @tactic_negative_tiles() attributes {t = #lamport.tactic<splits = 1, kw = 64, accs = 1, tiles = -2, token_tiles = [8]>}

// -----

// `tiles` goes between accs and token_tiles.
// expected-error @+1 {{expected '>'}}
func.func private @tactic_tiles_after_token_tiles() attributes {t = #lamport.tactic<splits = 1, kw = 64, accs = 1, token_tiles = [8], tiles = 2>}
