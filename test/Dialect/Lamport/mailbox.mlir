// RUN: lamport-opt %s -split-input-file | FileCheck %s -DMBT='!mailbox_tp8_c16_w8192'
// RUN: lamport-opt %s -split-input-file | lamport-opt -split-input-file | FileCheck %s -DMBT='!mailbox_tp8_c16_w8192'
// RUN: lamport-opt %s -split-input-file --mlir-print-op-generic | lamport-opt -split-input-file | FileCheck %s -DMBT='!mailbox_tp8_c16_w8192'

// Round trip of the kernel-level mailbox primitives: publish, poll, poll_at,
// rearm and poll_owned, in every form their assembly allows.

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

// The printer names the mailbox type once and the ops use the name.
// CHECK: [[MBT]] = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>
// CHECK-LABEL: func.func @publish
// CHECK-SAME: (%[[MB:[a-z0-9]+]]: [[MBT]], %[[V:[a-z0-9]+]]: vector<8xbf16>, %[[W:[a-z0-9]+]]: vector<64xbf16>, %[[S:[a-z0-9]+]]: i32, %[[R:[a-z0-9]+]]: index, %[[C:[a-z0-9]+]]: index, %[[TO:[a-z0-9]+]]: i32)
func.func @publish(%mb: !mb, %v: vector<8xbf16>, %w: vector<64xbf16>,
                   %stage: i32, %row: index, %col: index, %owner: i32) {
  // The transport is left to the lowering pass's option.
  // CHECK: lamport.mailbox.publish %[[V]], %[[MB]][%[[S]], %[[R]], %[[C]]] : vector<8xbf16>, [[MBT]]
  lamport.mailbox.publish %v, %mb[%stage, %row, %col] : vector<8xbf16>, !mb
  // CHECK: lamport.mailbox.publish %[[W]], %[[MB]][%[[S]], %[[R]], %[[C]]] {release_before, transport = #lamport.transport<multicast>} : vector<64xbf16>, [[MBT]]
  lamport.mailbox.publish %w, %mb[%stage, %row, %col]
      {transport = #lamport.transport<multicast>, release_before}
      : vector<64xbf16>, !mb
  // CHECK: lamport.mailbox.publish %[[V]], %[[MB]][%[[S]], %[[R]], %[[C]]] {transport = #lamport.transport<unicast>} : vector<8xbf16>, [[MBT]]
  lamport.mailbox.publish %v, %mb[%stage, %row, %col]
      {transport = #lamport.transport<unicast>} : vector<8xbf16>, !mb
  // Route rows: into one rank's copy alone.
  // CHECK: lamport.mailbox.publish %[[V]], %[[MB]][%[[S]], %[[R]], %[[C]]] to %[[TO]] : vector<8xbf16>, [[MBT]]
  lamport.mailbox.publish %v, %mb[%stage, %row, %col] to %owner
      : vector<8xbf16>, !mb
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

// CHECK-LABEL: func.func @publish_constant_coordinates
// CHECK-DAG: %[[S2:.*]] = arith.constant 2 : i32
// CHECK-DAG: %[[R15:.*]] = arith.constant 15 : index
// CHECK-DAG: %[[C8128:.*]] = arith.constant 8128 : index
// CHECK-DAG: %[[TO7:.*]] = arith.constant 7 : i32
// CHECK: lamport.mailbox.publish %{{.*}}, %{{.*}}[%[[S2]], %[[R15]], %[[C8128]]] to %[[TO7]] : vector<64xbf16>, [[MBT]]
func.func @publish_constant_coordinates(%mb: !mb, %w: vector<64xbf16>) {
  // The last stage, row and rank, and the last 8 fragments of the row: the
  // largest coordinates the verifier accepts.
  %stage = arith.constant 2 : i32
  %row = arith.constant 15 : index
  %col = arith.constant 8128 : index
  %owner = arith.constant 7 : i32
  lamport.mailbox.publish %w, %mb[%stage, %row, %col] to %owner
      : vector<64xbf16>, !mb
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

// CHECK-LABEL: func.func @poll
// CHECK-SAME: (%[[MB:[a-z0-9]+]]: [[MBT]], %[[S:[a-z0-9]+]]: i32, %[[SL:[a-z0-9]+]]: i32, %[[R:[a-z0-9]+]]: index, %[[C:[a-z0-9]+]]: index, %[[ST:[a-z0-9]+]]: index)
func.func @poll(%mb: !mb, %stage: i32, %slot: i32, %row: index, %col: index,
                %stride: index)
    -> (vector<4x8xbf16>, vector<32x8xbf16>, vector<3x8xbf16>) {
  // CHECK: %[[F:.*]] = lamport.mailbox.poll %[[MB]][%[[S]], %[[SL]], %[[R]], %[[C]]] stride %[[ST]] : [[MBT]] -> vector<4x8xbf16>
  %f = lamport.mailbox.poll %mb[%stage, %slot, %row, %col] stride %stride
      : !mb -> vector<4x8xbf16>
  // A per-op timeout overrides the pass's default; 32 is the most fragments
  // one poll waits for.
  // CHECK: %[[G:.*]] = lamport.mailbox.poll %[[MB]][%[[S]], %[[SL]], %[[R]], %[[C]]] stride %[[ST]] {timeout_ns = 5000 : i64} : [[MBT]] -> vector<32x8xbf16>
  %g = lamport.mailbox.poll %mb[%stage, %slot, %row, %col] stride %stride
      {timeout_ns = 5000 : i64} : !mb -> vector<32x8xbf16>
  // CHECK: %[[H:.*]] = lamport.mailbox.poll_at %[[MB]][%[[S]], %[[SL]], %[[R]], %[[C]]] offsets [0, 128, 8192] {timeout_ns = 100 : i64} : [[MBT]] -> vector<3x8xbf16>
  %h = lamport.mailbox.poll_at %mb[%stage, %slot, %row, %col]
      offsets [0, 128, 8192] {timeout_ns = 100 : i64}
      : !mb -> vector<3x8xbf16>
  // CHECK: return %[[F]], %[[G]], %[[H]]
  return %f, %g, %h : vector<4x8xbf16>, vector<32x8xbf16>, vector<3x8xbf16>
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

// CHECK-LABEL: func.func @rearm
// CHECK-SAME: (%[[MB:[a-z0-9]+]]: [[MBT]], %[[S:[a-z0-9]+]]: i32, %[[SL:[a-z0-9]+]]: i32, %[[R:[a-z0-9]+]]: index, %[[C:[a-z0-9]+]]: index, %[[ST:[a-z0-9]+]]: index)
func.func @rearm(%mb: !mb, %stage: i32, %slot: i32, %row: index, %col: index,
                 %stride: index) {
  // CHECK: lamport.mailbox.rearm %[[MB]][%[[S]], %[[SL]], %[[R]], %[[C]]] : [[MBT]]
  lamport.mailbox.rearm %mb[%stage, %slot, %row, %col] : !mb
  // CHECK: lamport.mailbox.rearm %[[MB]][%[[S]], %[[SL]], %[[R]], %[[C]]] stride %[[ST]] count 4 : [[MBT]]
  lamport.mailbox.rearm %mb[%stage, %slot, %row, %col] stride %stride count 4
      : !mb
  // CHECK: lamport.mailbox.rearm %[[MB]][%[[S]], %[[SL]], %[[R]], %[[C]]] offsets [0, 128, 8192] : [[MBT]]
  lamport.mailbox.rearm %mb[%stage, %slot, %row, %col] offsets [0, 128, 8192]
      : !mb
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 1024>

// CHECK: !mailbox_tp8_c16_w1024 = !lamport.mailbox<tp = 8, capacity = 16, width = 1024>
// CHECK-LABEL: func.func @poll_owned
// CHECK-SAME: (%[[MB:[a-z0-9]+]]: !mailbox_tp8_c16_w1024, %[[S:[a-z0-9]+]]: i32, %[[T:[a-z0-9]+]]: index, %[[F:[a-z0-9]+]]: index)
func.func @poll_owned(%mb: !mb, %stage: i32, %token: index, %fragment: index)
    -> (vector<1x8xbf16>, vector<1x8xbf16>) {
  // CHECK: %[[A:.*]] = lamport.mailbox.poll_owned %[[MB]][%[[S]], %[[T]], %[[F]]] : !mailbox_tp8_c16_w1024 -> vector<1x8xbf16>
  %a = lamport.mailbox.poll_owned %mb[%stage, %token, %fragment]
      : !mb -> vector<1x8xbf16>
  // The last fragment of the gathered row: 8 ranks x 128 fragments.
  // CHECK: %[[LAST:.*]] = arith.constant 1023 : index
  // CHECK: %[[B:.*]] = lamport.mailbox.poll_owned %[[MB]][%[[S]], %[[T]], %[[LAST]]] {timeout_ns = 20000 : i64} : !mailbox_tp8_c16_w1024 -> vector<1x8xbf16>
  %last = arith.constant 1023 : index
  %b = lamport.mailbox.poll_owned %mb[%stage, %token, %last]
      {timeout_ns = 20000 : i64} : !mb -> vector<1x8xbf16>
  // CHECK: return %[[A]], %[[B]]
  return %a, %b : vector<1x8xbf16>, vector<1x8xbf16>
}
