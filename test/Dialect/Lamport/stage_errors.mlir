// RUN: lamport-opt %s -split-input-file -verify-diagnostics

// The stage ops: a constant stage must be one of the three generations, and
// stages and tickets are i32.

!mb = !lamport.mailbox<tp = 4, capacity = 8, width = 2048>

func.func @set_active_stage_outside_generations(%mb: !mb) {
  %s = arith.constant 3 : i32
  // expected-error @+1 {{'lamport.stage.set_active' op stage 3 is not one of the 3 generations (0..2)}}
  lamport.stage.set_active %mb, %s : !mb
  return
}

// -----

!mb = !lamport.mailbox<tp = 4, capacity = 8, width = 2048>

func.func @advance_stage_negative(%mb: !mb) {
  %s = arith.constant -1 : i32
  // expected-error @+1 {{'lamport.stage.advance' op stage -1 is not one of the 3 generations (0..2)}}
  lamport.stage.advance %mb, %s : !mb
  return
}

// -----

!mb = !lamport.mailbox<tp = 4, capacity = 8, width = 2048>

func.func @active_not_i32(%mb: !mb) {
  // expected-error @+1 {{'lamport.stage.active' op result #0 must be 32-bit signless integer, but got 'i64'}}
  %s = "lamport.stage.active"(%mb) : (!mb) -> i64
  return
}

// -----

func.func @next_not_a_mailbox(%mb: memref<2xi32>) {
  // expected-error @+1 {{'lamport.stage.next' op operand #0 must be One TP group's [3, tp, capacity, width] BF16 mailbox, but got 'memref<2xi32>'}}
  %s = "lamport.stage.next"(%mb) : (memref<2xi32>) -> i32
  return
}

// -----

func.func @from_ticket_not_i32(%t: i64) {
  // expected-error @+1 {{'lamport.stage.from_ticket' op operand #0 must be 32-bit signless integer, but got 'i64'}}
  %s = "lamport.stage.from_ticket"(%t) : (i64) -> i32
  return
}

// -----

func.func @to_ticket_not_i32(%s: i32) {
  // expected-error @+1 {{'lamport.stage.to_ticket' op result #0 must be 32-bit signless integer, but got 'index'}}
  %t = "lamport.stage.to_ticket"(%s) : (i32) -> index
  return
}

// -----

func.func @arrive_no_ctas(%mb: !lamport.mailbox<tp = 2, capacity = 16, width = 512>) {
  // expected-error @+1 {{'lamport.stage.arrive' op ctas = 0 must be in [1, 2^31 - 1]: the CTAs of the grid that arrive, counted in an int32 word}}
  %before = lamport.stage.arrive %mb {ctas = 0} : !lamport.mailbox<tp = 2, capacity = 16, width = 512>
  return
}

// -----

func.func @arrive_too_many_ctas(%mb: !lamport.mailbox<tp = 2, capacity = 16, width = 512>) {
  // expected-error @+1 {{'lamport.stage.arrive' op ctas = 2147483648 must be in [1, 2^31 - 1]}}
  %before = lamport.stage.arrive %mb {ctas = 2147483648} : !lamport.mailbox<tp = 2, capacity = 16, width = 512>
  return
}
