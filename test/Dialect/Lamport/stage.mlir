// RUN: lamport-opt %s -split-input-file | FileCheck %s -DMBT='!mailbox_tp4_c8_w2048'
// RUN: lamport-opt %s -split-input-file | lamport-opt -split-input-file | FileCheck %s -DMBT='!mailbox_tp4_c8_w2048'
// RUN: lamport-opt %s -split-input-file --mlir-print-op-generic | lamport-opt -split-input-file | FileCheck %s -DMBT='!mailbox_tp4_c8_w2048'

// Round trip of the stage ops: the ACTIVE and NEXT words, setting ACTIVE
// after a publish, advancing NEXT after a read, and the ticket form.

!mb = !lamport.mailbox<tp = 4, capacity = 8, width = 2048>

// The printer names the mailbox type once and the ops use the name.
// CHECK: [[MBT]] = !lamport.mailbox<tp = 4, capacity = 8, width = 2048>
// CHECK-LABEL: func.func @stage_words
// CHECK-SAME: (%[[MB:[a-z0-9]+]]: [[MBT]])
func.func @stage_words(%mb: !mb) -> (i32, i32) {
  // CHECK: %[[NEXT:.*]] = lamport.stage.next %[[MB]] : [[MBT]]
  %next = lamport.stage.next %mb : !mb
  // CHECK: lamport.stage.set_active %[[MB]], %[[NEXT]] : [[MBT]]
  lamport.stage.set_active %mb, %next : !mb
  // CHECK: %[[ACTIVE:.*]] = lamport.stage.active %[[MB]] : [[MBT]]
  %active = lamport.stage.active %mb : !mb
  // CHECK: lamport.stage.advance %[[MB]], %[[ACTIVE]] : [[MBT]]
  lamport.stage.advance %mb, %active : !mb
  // CHECK: return %[[NEXT]], %[[ACTIVE]]
  return %next, %active : i32, i32
}

// -----

!mb = !lamport.mailbox<tp = 4, capacity = 8, width = 2048>

// CHECK-LABEL: func.func @constant_stages
// CHECK-DAG: %[[S0:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[S2:.*]] = arith.constant 2 : i32
// CHECK: lamport.stage.set_active %{{.*}}, %[[S2]] : [[MBT]]
// CHECK: lamport.stage.advance %{{.*}}, %[[S0]] : [[MBT]]
func.func @constant_stages(%mb: !mb) {
  // The first and the last of the three generations.
  %s0 = arith.constant 0 : i32
  %s2 = arith.constant 2 : i32
  lamport.stage.set_active %mb, %s2 : !mb
  lamport.stage.advance %mb, %s0 : !mb
  return
}

// -----

// CHECK-LABEL: func.func @tickets
// CHECK-SAME: (%[[T:[a-z0-9]+]]: i32, %[[S:[a-z0-9]+]]: i32)
func.func @tickets(%ticket: i32, %stage: i32) -> (i32, i32) {
  // CHECK: %[[FROM:.*]] = lamport.stage.from_ticket %[[T]]
  %from = lamport.stage.from_ticket %ticket
  // CHECK: %[[TO:.*]] = lamport.stage.to_ticket %[[S]]
  %to = lamport.stage.to_ticket %stage
  // CHECK: return %[[FROM]], %[[TO]]
  return %from, %to : i32, i32
}

// -----

// CHECK: !mailbox_tp2_c16_w512 = !lamport.mailbox<tp = 2, capacity = 16, width = 512>
// CHECK-LABEL: func.func @arrive
// CHECK-SAME: (%[[MB:[a-z0-9]+]]: !mailbox_tp2_c16_w512)
func.func @arrive(%mb: !lamport.mailbox<tp = 2, capacity = 16, width = 512>) -> i32 {
  // CHECK: %[[BEFORE:.*]] = lamport.stage.arrive %[[MB]] {ctas = 64 : i64} : !mailbox_tp2_c16_w512
  %before = lamport.stage.arrive %mb {ctas = 64} : !lamport.mailbox<tp = 2, capacity = 16, width = 512>
  // CHECK: return %[[BEFORE]] : i32
  return %before : i32
}
