// RUN: lamport-opt %s -split-input-file -verify-diagnostics

// Every rule of the mailbox type's verifier and parser.

// expected-error @+1 {{tp = 0 must be in 1..64}}
func.func private @tp_zero(!lamport.mailbox<tp = 0, capacity = 16, width = 8192>)

// -----

// A descriptor carries at most 64 peer addresses.
// expected-error @+1 {{tp = 65 must be in 1..64}}
func.func private @tp_too_large(!lamport.mailbox<tp = 65, capacity = 16, width = 8192>)

// -----

// expected-error @+1 {{capacity = 0 must be in 1..65536 rows (what a bundle's manifest holds)}}
func.func private @capacity_zero(!lamport.mailbox<tp = 8, capacity = 0, width = 8192>)

// -----

// A manifest holds at most 2^16 rows a slot (docs/bundle.schema.json).
// expected-error @+1 {{capacity = 65537 must be in 1..65536 rows}}
func.func private @capacity_too_large(!lamport.mailbox<tp = 8, capacity = 65537, width = 8192>)

// -----

// expected-error @+1 {{capacity = 4294967295 must be in 1..65536 rows}}
func.func private @capacity_uint_max(!lamport.mailbox<tp = 8, capacity = 4294967295, width = 8192>)

// -----

// expected-error @+1 {{width must be a multiple of 8 BF16 elements, got 0}}
func.func private @width_zero(!lamport.mailbox<tp = 8, capacity = 16, width = 0>)

// -----

// A row must be whole 16-byte fragments.
// expected-error @+1 {{width must be a multiple of 8 BF16 elements, got 12}}
func.func private @width_not_fragments(!lamport.mailbox<tp = 8, capacity = 16, width = 12>)

// -----

// A manifest holds rows of at most 2^24 BF16.
// expected-error @+1 {{width = 16777224 must be at most 16777216 BF16 (what a bundle's manifest holds)}}
func.func private @width_too_large(!lamport.mailbox<tp = 8, capacity = 16, width = 16777224>)

// -----

// A negative size is an error, not a wrapped-around unsigned.
// expected-error @+2 {{expected a count in 0..4294967295, got -8}}
// expected-error @+1 {{failed to parse Lamport_MailboxType parameter 'width' which is to be a `unsigned`}}
func.func private @width_negative(!lamport.mailbox<tp = 8, capacity = 16, width = -8>)

// -----

// expected-error @+2 {{expected a count in 0..4294967295, got -1}}
// expected-error @+1 {{failed to parse Lamport_MailboxType parameter 'capacity' which is to be a `unsigned`}}
func.func private @capacity_negative(!lamport.mailbox<tp = 8, capacity = -1, width = 8192>)

// -----

// expected-error @+1 {{expected ','}}
func.func private @width_missing(!lamport.mailbox<tp = 8, capacity = 16>)

// -----

// expected-error @+1 {{unknown  type `box` in dialect `lamport`}}
func.func private @unknown_type(!lamport.box<tp = 8>)
