// RUN: lamport-opt %s -split-input-file --canonicalize | FileCheck %s

// The ticket ops fold on constants: a ticket's stage is its upper 16 bits
// (a logical shift, so the sign bit never leaks into the stage) and a
// stage's ticket is stage << 16.

// CHECK-LABEL: func.func @from_ticket
// CHECK-DAG: %[[S2:.*]] = arith.constant 2 : i32
// CHECK-DAG: %[[HIGH:.*]] = arith.constant 65535 : i32
// CHECK-NOT: lamport.stage.from_ticket
// CHECK: return %[[S2]], %[[S2]], %[[HIGH]]
func.func @from_ticket() -> (i32, i32, i32) {
  // 2 << 16.
  %t = arith.constant 131072 : i32
  // (2 << 16) | 0xffff: the lower 16 bits are not part of the stage.
  %v = arith.constant 196607 : i32
  // All 32 bits set: 65535, not -1.
  %w = arith.constant -1 : i32
  %s = lamport.stage.from_ticket %t
  %s2 = lamport.stage.from_ticket %v
  %sw = lamport.stage.from_ticket %w
  return %s, %s2, %sw : i32, i32, i32
}

// -----

// CHECK-LABEL: func.func @to_ticket
// CHECK-DAG: %[[T0:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[T1:.*]] = arith.constant 65536 : i32
// CHECK-DAG: %[[T2:.*]] = arith.constant 131072 : i32
// CHECK-NOT: lamport.stage.to_ticket
// CHECK: return %[[T0]], %[[T1]], %[[T2]]
func.func @to_ticket() -> (i32, i32, i32) {
  %s0 = arith.constant 0 : i32
  %s1 = arith.constant 1 : i32
  %s2 = arith.constant 2 : i32
  %t0 = lamport.stage.to_ticket %s0
  %t1 = lamport.stage.to_ticket %s1
  %t2 = lamport.stage.to_ticket %s2
  return %t0, %t1, %t2 : i32, i32, i32
}

// -----

// A ticket made from a constant stage gives that stage back.
// CHECK-LABEL: func.func @ticket_round_trip
// CHECK: %[[S1:.*]] = arith.constant 1 : i32
// CHECK-NOT: lamport.stage
// CHECK: return %[[S1]]
func.func @ticket_round_trip() -> i32 {
  %s1 = arith.constant 1 : i32
  %t = lamport.stage.to_ticket %s1
  %s = lamport.stage.from_ticket %t
  return %s : i32
}

// -----

// Without constants nothing folds; the ops are pure, so an unused one goes.
// CHECK-LABEL: func.func @no_fold
// CHECK-SAME: (%[[X:[a-z0-9]+]]: i32)
// CHECK: %[[S:.*]] = lamport.stage.from_ticket %[[X]]
// CHECK: %[[T:.*]] = lamport.stage.to_ticket %[[S]]
// CHECK-NOT: lamport.stage.to_ticket
// CHECK: return %[[T]]
func.func @no_fold(%x: i32) -> i32 {
  %s = lamport.stage.from_ticket %x
  %t = lamport.stage.to_ticket %s
  %unused = lamport.stage.to_ticket %x
  return %t : i32
}
