// RUN: lamport-opt %s -split-input-file -verify-diagnostics

// Every rule of the mailbox primitives' verifiers, and the operand and
// result type constraints ODS generates for them.

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

//===----------------------------------------------------------------------===//
// lamport.mailbox.publish
//===----------------------------------------------------------------------===//

func.func @publish_partial_fragment(%mb: !mb, %v: vector<12xbf16>, %s: i32,
                                    %r: index, %c: index) {
  // expected-error @+1 {{'lamport.mailbox.publish' op publishes 12 BF16, not whole 16-byte fragments: needs a multiple of 8 lanes}}
  lamport.mailbox.publish %v, %mb[%s, %r, %c] : vector<12xbf16>, !mb
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

func.func @publish_routed_with_transport(%mb: !mb, %v: vector<8xbf16>,
                                         %s: i32, %r: index, %c: index,
                                         %to: i32) {
  // expected-error @+1 {{'lamport.mailbox.publish' op a routed publish ('to') stores into one rank's copy through its peer address and takes no transport}}
  lamport.mailbox.publish %v, %mb[%s, %r, %c] to %to
      {transport = #lamport.transport<multicast>} : vector<8xbf16>, !mb
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

func.func @publish_target_outside_group(%mb: !mb, %v: vector<8xbf16>,
                                        %s: i32, %r: index, %c: index) {
  %to = arith.constant 8 : i32
  // expected-error @+1 {{'lamport.mailbox.publish' op target rank 8 is outside the TP group of 8 ranks}}
  lamport.mailbox.publish %v, %mb[%s, %r, %c] to %to : vector<8xbf16>, !mb
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

func.func @publish_target_negative(%mb: !mb, %v: vector<8xbf16>, %s: i32,
                                   %r: index, %c: index) {
  %to = arith.constant -1 : i32
  // expected-error @+1 {{'lamport.mailbox.publish' op target rank -1 is outside the TP group of 8 ranks}}
  lamport.mailbox.publish %v, %mb[%s, %r, %c] to %to : vector<8xbf16>, !mb
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

func.func @publish_stage_outside_generations(%mb: !mb, %v: vector<8xbf16>,
                                             %r: index, %c: index) {
  %s = arith.constant 3 : i32
  // expected-error @+1 {{'lamport.mailbox.publish' op stage 3 is not one of the 3 generations (0..2)}}
  lamport.mailbox.publish %v, %mb[%s, %r, %c] : vector<8xbf16>, !mb
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

func.func @publish_row_outside_slot(%mb: !mb, %v: vector<8xbf16>, %s: i32,
                                    %c: index) {
  %r = arith.constant 16 : index
  // expected-error @+1 {{'lamport.mailbox.publish' op row 16 is outside the slot's 16 rows}}
  lamport.mailbox.publish %v, %mb[%s, %r, %c] : vector<8xbf16>, !mb
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

func.func @publish_column_unaligned(%mb: !mb, %v: vector<8xbf16>, %s: i32,
                                    %r: index) {
  %c = arith.constant 4 : index
  // expected-error @+1 {{'lamport.mailbox.publish' op column 4 is not at a 16-byte fragment boundary (a multiple of 8)}}
  lamport.mailbox.publish %v, %mb[%s, %r, %c] : vector<8xbf16>, !mb
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

func.func @publish_past_row_end(%mb: !mb, %v: vector<64xbf16>, %s: i32,
                                %r: index) {
  // 8 fragments from column 8136 end at 8200.
  %c = arith.constant 8136 : index
  // expected-error @+1 {{'lamport.mailbox.publish' op fragments [8136, 8200) run past the mailbox width 8192}}
  lamport.mailbox.publish %v, %mb[%s, %r, %c] : vector<64xbf16>, !mb
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

func.func @publish_not_bf16(%mb: !mb, %v: vector<8xf16>, %s: i32, %r: index,
                            %c: index) {
  // expected-error @+1 {{'lamport.mailbox.publish' op operand #0 must be vector of bfloat16 type values of ranks 1, but got 'vector<8xf16>'}}
  lamport.mailbox.publish %v, %mb[%s, %r, %c] : vector<8xf16>, !mb
  return
}

// -----

func.func @publish_not_a_mailbox(%mb: memref<3x8x16x8192xbf16>,
                                 %v: vector<8xbf16>, %s: i32, %r: index,
                                 %c: index) {
  // expected-error @+1 {{'lamport.mailbox.publish' op operand #1 must be One TP group's [3, tp, capacity, width] BF16 mailbox, but got 'memref<3x8x16x8192xbf16>'}}
  "lamport.mailbox.publish"(%v, %mb, %s, %r, %c)
      : (vector<8xbf16>, memref<3x8x16x8192xbf16>, i32, index, index) -> ()
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

func.func @publish_stage_not_i32(%mb: !mb, %v: vector<8xbf16>, %s: i64,
                                 %r: index, %c: index) {
  // expected-error @+1 {{'lamport.mailbox.publish' op operand #2 must be 32-bit signless integer, but got 'i64'}}
  "lamport.mailbox.publish"(%v, %mb, %s, %r, %c)
      : (vector<8xbf16>, !mb, i64, index, index) -> ()
  return
}

// -----

//===----------------------------------------------------------------------===//
// lamport.mailbox.poll
//===----------------------------------------------------------------------===//

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

func.func @poll_fragment_not_16_bytes(%mb: !mb, %s: i32, %sl: i32, %r: index,
                                      %c: index, %st: index) {
  // expected-error @+1 {{'lamport.mailbox.poll' op fragments must be vector<F x 8 x bf16> (one 16-byte fragment per row), got 'vector<4x4xbf16>'}}
  %f = lamport.mailbox.poll %mb[%s, %sl, %r, %c] stride %st
      : !mb -> vector<4x4xbf16>
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

func.func @poll_too_many_fragments(%mb: !mb, %s: i32, %sl: i32, %r: index,
                                   %c: index, %st: index) {
  // expected-error @+1 {{'lamport.mailbox.poll' op polls 33 fragments; one poll waits for 1..32 (a 32-bit pending mask)}}
  %f = lamport.mailbox.poll %mb[%s, %sl, %r, %c] stride %st
      : !mb -> vector<33x8xbf16>
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

func.func @poll_timeout_zero(%mb: !mb, %s: i32, %sl: i32, %r: index,
                             %c: index, %st: index) {
  // expected-error @+1 {{'lamport.mailbox.poll' op timeout_ns must be positive, got 0}}
  %f = lamport.mailbox.poll %mb[%s, %sl, %r, %c] stride %st
      {timeout_ns = 0 : i64} : !mb -> vector<4x8xbf16>
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

func.func @poll_timeout_negative(%mb: !mb, %s: i32, %sl: i32, %r: index,
                                 %c: index, %st: index) {
  // expected-error @+1 {{'lamport.mailbox.poll' op timeout_ns must be positive, got -5}}
  %f = lamport.mailbox.poll %mb[%s, %sl, %r, %c] stride %st
      {timeout_ns = -5 : i64} : !mb -> vector<4x8xbf16>
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

func.func @poll_stride_not_fragments(%mb: !mb, %s: i32, %sl: i32, %r: index,
                                     %c: index) {
  %st = arith.constant 12 : index
  // expected-error @+1 {{'lamport.mailbox.poll' op stride 12 is not a non-negative multiple of 8 BF16 elements (whole 16-byte fragments)}}
  %f = lamport.mailbox.poll %mb[%s, %sl, %r, %c] stride %st
      : !mb -> vector<4x8xbf16>
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

func.func @poll_stride_negative(%mb: !mb, %s: i32, %sl: i32, %r: index,
                                %c: index) {
  %st = arith.constant -8 : index
  // expected-error @+1 {{'lamport.mailbox.poll' op stride -8 is not a non-negative multiple of 8 BF16 elements (whole 16-byte fragments)}}
  %f = lamport.mailbox.poll %mb[%s, %sl, %r, %c] stride %st
      : !mb -> vector<4x8xbf16>
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

func.func @poll_consecutive_past_row_end(%mb: !mb, %s: i32, %sl: i32,
                                         %r: index) {
  // With a stride of one fragment the 4 fragments are consecutive.
  %st = arith.constant 8 : index
  %c = arith.constant 8176 : index
  // expected-error @+1 {{'lamport.mailbox.poll' op fragments [8176, 8208) run past the mailbox width 8192}}
  %f = lamport.mailbox.poll %mb[%s, %sl, %r, %c] stride %st
      : !mb -> vector<4x8xbf16>
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

func.func @poll_slot_outside_group(%mb: !mb, %s: i32, %r: index, %c: index,
                                   %st: index) {
  %sl = arith.constant 8 : i32
  // expected-error @+1 {{'lamport.mailbox.poll' op slot 8 is outside the TP group of 8 ranks}}
  %f = lamport.mailbox.poll %mb[%s, %sl, %r, %c] stride %st
      : !mb -> vector<4x8xbf16>
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

func.func @poll_stage_negative(%mb: !mb, %sl: i32, %r: index, %c: index,
                               %st: index) {
  %s = arith.constant -1 : i32
  // expected-error @+1 {{'lamport.mailbox.poll' op stage -1 is not one of the 3 generations (0..2)}}
  %f = lamport.mailbox.poll %mb[%s, %sl, %r, %c] stride %st
      : !mb -> vector<4x8xbf16>
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

func.func @poll_not_bf16(%mb: !mb, %s: i32, %sl: i32, %r: index, %c: index,
                         %st: index) {
  // expected-error @+1 {{'lamport.mailbox.poll' op result #0 must be vector of bfloat16 type values of ranks 2, but got 'vector<4x8xf16>'}}
  %f = lamport.mailbox.poll %mb[%s, %sl, %r, %c] stride %st
      : !mb -> vector<4x8xf16>
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

func.func @poll_rank_1(%mb: !mb, %s: i32, %sl: i32, %r: index, %c: index,
                       %st: index) {
  // expected-error @+1 {{'lamport.mailbox.poll' op result #0 must be vector of bfloat16 type values of ranks 2, but got 'vector<8xbf16>'}}
  %f = lamport.mailbox.poll %mb[%s, %sl, %r, %c] stride %st
      : !mb -> vector<8xbf16>
  return
}

// -----

//===----------------------------------------------------------------------===//
// lamport.mailbox.poll_at
//===----------------------------------------------------------------------===//

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

func.func @poll_at_offset_count(%mb: !mb, %s: i32, %sl: i32, %r: index,
                                %c: index) {
  // expected-error @+1 {{'lamport.mailbox.poll_at' op 2 offsets for 3 fragments: needs one offset per fragment}}
  %f = lamport.mailbox.poll_at %mb[%s, %sl, %r, %c] offsets [0, 8]
      : !mb -> vector<3x8xbf16>
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

func.func @poll_at_offset_unaligned(%mb: !mb, %s: i32, %sl: i32, %r: index,
                                    %c: index) {
  // expected-error @+1 {{'lamport.mailbox.poll_at' op offset 4 is not a non-negative multiple of 8 BF16 elements (whole 16-byte fragments)}}
  %f = lamport.mailbox.poll_at %mb[%s, %sl, %r, %c] offsets [0, 4]
      : !mb -> vector<2x8xbf16>
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

func.func @poll_at_offset_negative(%mb: !mb, %s: i32, %sl: i32, %r: index,
                                   %c: index) {
  // expected-error @+1 {{'lamport.mailbox.poll_at' op offset -8 is not a non-negative multiple of 8 BF16 elements (whole 16-byte fragments)}}
  %f = lamport.mailbox.poll_at %mb[%s, %sl, %r, %c] offsets [0, -8]
      : !mb -> vector<2x8xbf16>
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

func.func @poll_at_timeout(%mb: !mb, %s: i32, %sl: i32, %r: index,
                           %c: index) {
  // expected-error @+1 {{'lamport.mailbox.poll_at' op timeout_ns must be positive, got 0}}
  %f = lamport.mailbox.poll_at %mb[%s, %sl, %r, %c] offsets [0]
      {timeout_ns = 0 : i64} : !mb -> vector<1x8xbf16>
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

func.func @poll_at_too_many_fragments(%mb: !mb, %s: i32, %sl: i32,
                                      %r: index, %c: index) {
  // expected-error @+1 {{'lamport.mailbox.poll_at' op fragments must be vector<F x 8 x bf16> (one 16-byte fragment per row), got 'vector<1x16xbf16>'}}
  %f = lamport.mailbox.poll_at %mb[%s, %sl, %r, %c] offsets [0]
      : !mb -> vector<1x16xbf16>
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

func.func @poll_at_column_unaligned(%mb: !mb, %s: i32, %sl: i32, %r: index) {
  %c = arith.constant 9 : index
  // expected-error @+1 {{'lamport.mailbox.poll_at' op column 9 is not at a 16-byte fragment boundary (a multiple of 8)}}
  %f = lamport.mailbox.poll_at %mb[%s, %sl, %r, %c] offsets [0]
      : !mb -> vector<1x8xbf16>
  return
}

// -----

//===----------------------------------------------------------------------===//
// lamport.mailbox.rearm
//===----------------------------------------------------------------------===//

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

func.func @rearm_stride_and_offsets(%mb: !mb, %s: i32, %sl: i32, %r: index,
                                    %c: index, %st: index) {
  // expected-error @+1 {{'lamport.mailbox.rearm' op re-arms either 'count' fragments 'stride' apart or the fragments at 'offsets', not both}}
  lamport.mailbox.rearm %mb[%s, %sl, %r, %c] stride %st count 2
      offsets [0, 8] : !mb
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

// The custom form always pairs them; the generic form can split them.
func.func @rearm_stride_without_count(%mb: !mb, %s: i32, %sl: i32, %r: index,
                                      %c: index, %st: index) {
  // expected-error @+1 {{'lamport.mailbox.rearm' op a 'stride' needs a 'count'}}
  "lamport.mailbox.rearm"(%mb, %s, %sl, %r, %c, %st)
      : (!mb, i32, i32, index, index, index) -> ()
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

func.func @rearm_count_without_stride(%mb: !mb, %s: i32, %sl: i32, %r: index,
                                      %c: index) {
  // expected-error @+1 {{'lamport.mailbox.rearm' op a 'count' needs a 'stride'}}
  "lamport.mailbox.rearm"(%mb, %s, %sl, %r, %c) <{count = 2 : i64}>
      : (!mb, i32, i32, index, index) -> ()
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

func.func @rearm_count_zero(%mb: !mb, %s: i32, %sl: i32, %r: index,
                            %c: index, %st: index) {
  // expected-error @+1 {{'lamport.mailbox.rearm' op count 0 must be in 1..32, as for a poll}}
  lamport.mailbox.rearm %mb[%s, %sl, %r, %c] stride %st count 0 : !mb
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

func.func @rearm_count_too_large(%mb: !mb, %s: i32, %sl: i32, %r: index,
                                 %c: index, %st: index) {
  // expected-error @+1 {{'lamport.mailbox.rearm' op count 33 must be in 1..32, as for a poll}}
  lamport.mailbox.rearm %mb[%s, %sl, %r, %c] stride %st count 33 : !mb
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

func.func @rearm_no_offsets(%mb: !mb, %s: i32, %sl: i32, %r: index,
                            %c: index) {
  // expected-error @+1 {{'lamport.mailbox.rearm' op re-arms 0 offsets; needs 1..32, as for a poll}}
  lamport.mailbox.rearm %mb[%s, %sl, %r, %c] offsets [] : !mb
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

func.func @rearm_too_many_offsets(%mb: !mb, %s: i32, %sl: i32, %r: index,
                                  %c: index) {
  // expected-error @+1 {{'lamport.mailbox.rearm' op re-arms 33 offsets; needs 1..32, as for a poll}}
  lamport.mailbox.rearm %mb[%s, %sl, %r, %c]
      offsets [0, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96, 104, 112,
               120, 128, 136, 144, 152, 160, 168, 176, 184, 192, 200, 208,
               216, 224, 232, 240, 248, 256] : !mb
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

func.func @rearm_offset_unaligned(%mb: !mb, %s: i32, %sl: i32, %r: index,
                                  %c: index) {
  // expected-error @+1 {{'lamport.mailbox.rearm' op offset 12 is not a non-negative multiple of 8 BF16 elements (whole 16-byte fragments)}}
  lamport.mailbox.rearm %mb[%s, %sl, %r, %c] offsets [0, 12] : !mb
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

func.func @rearm_stride_not_fragments(%mb: !mb, %s: i32, %sl: i32, %r: index,
                                      %c: index) {
  %st = arith.constant 6 : index
  // expected-error @+1 {{'lamport.mailbox.rearm' op stride 6 is not a non-negative multiple of 8 BF16 elements (whole 16-byte fragments)}}
  lamport.mailbox.rearm %mb[%s, %sl, %r, %c] stride %st count 2 : !mb
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

func.func @rearm_consecutive_past_row_end(%mb: !mb, %s: i32, %sl: i32,
                                          %r: index) {
  %st = arith.constant 8 : index
  %c = arith.constant 8184 : index
  // expected-error @+1 {{'lamport.mailbox.rearm' op fragments [8184, 8200) run past the mailbox width 8192}}
  lamport.mailbox.rearm %mb[%s, %sl, %r, %c] stride %st count 2 : !mb
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

func.func @rearm_row_outside_slot(%mb: !mb, %s: i32, %sl: i32, %c: index) {
  %r = arith.constant -1 : index
  // expected-error @+1 {{'lamport.mailbox.rearm' op row -1 is outside the slot's 16 rows}}
  lamport.mailbox.rearm %mb[%s, %sl, %r, %c] : !mb
  return
}

// -----

//===----------------------------------------------------------------------===//
// lamport.mailbox.poll_owned
//===----------------------------------------------------------------------===//

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 1024>

func.func @poll_owned_two_fragments(%mb: !mb, %s: i32, %t: index,
                                    %f: index) {
  // expected-error @+1 {{'lamport.mailbox.poll_owned' op reads one fragment from its owner: the result must be vector<1x8xbf16>}}
  %v = lamport.mailbox.poll_owned %mb[%s, %t, %f] : !mb -> vector<2x8xbf16>
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 1024>

func.func @poll_owned_fragment_outside_row(%mb: !mb, %s: i32, %t: index) {
  // 8 ranks x 128 fragments: 1024 is one past the gathered row.
  %f = arith.constant 1024 : index
  // expected-error @+1 {{'lamport.mailbox.poll_owned' op fragment 1024 is outside the 1024 fragments of a gathered row}}
  %v = lamport.mailbox.poll_owned %mb[%s, %t, %f] : !mb -> vector<1x8xbf16>
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 1024>

func.func @poll_owned_token_outside_slot(%mb: !mb, %s: i32, %f: index) {
  %t = arith.constant 16 : index
  // expected-error @+1 {{'lamport.mailbox.poll_owned' op row 16 is outside the slot's 16 rows}}
  %v = lamport.mailbox.poll_owned %mb[%s, %t, %f] : !mb -> vector<1x8xbf16>
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 1024>

func.func @poll_owned_stage(%mb: !mb, %t: index, %f: index) {
  %s = arith.constant 5 : i32
  // expected-error @+1 {{'lamport.mailbox.poll_owned' op stage 5 is not one of the 3 generations (0..2)}}
  %v = lamport.mailbox.poll_owned %mb[%s, %t, %f] : !mb -> vector<1x8xbf16>
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 1024>

func.func @poll_owned_timeout(%mb: !mb, %s: i32, %t: index, %f: index) {
  // expected-error @+1 {{'lamport.mailbox.poll_owned' op timeout_ns must be positive, got 0}}
  %v = lamport.mailbox.poll_owned %mb[%s, %t, %f] {timeout_ns = 0 : i64}
      : !mb -> vector<1x8xbf16>
  return
}
