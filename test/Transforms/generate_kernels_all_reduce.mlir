// RUN: lamport-opt %s --lamport-generate-kernels --split-input-file | FileCheck %s

// The one-shot all-reduce: per (token, fragment) one poll of the tp
// partials, an FP32 sum in the op's order, one rounding to BF16.

!mb = !lamport.mailbox<tp = 4, capacity = 16, width = 8192>

// CHECK: !mailbox_tp4_c16_w8192 = !lamport.mailbox<tp = 4, capacity = 16, width = 8192>
// CHECK-LABEL: func.func @rank_ascending
//  CHECK-SAME: (%[[MB:[a-z0-9_]+]]: !mailbox_tp4_c16_w8192, %[[OUT:[a-z0-9_]+]]: memref<?x8192xbf16>)
//       CHECK: %[[VIEW:.*]] = memref.reinterpret_cast %[[OUT]] to offset: [0], sizes: [16, 8192], strides: [8192, 1]
//       CHECK: %[[GLOBAL:.*]] = memref.memory_space_cast %[[VIEW]] : memref<16x8192xbf16> to memref<16x8192xbf16, 1>
//       CHECK: gpu.launch_func @all_reduce_0::@all_reduce_0
//  CHECK-SAME: args(%[[MB]] : !mailbox_tp4_c16_w8192, %[[GLOBAL]] : memref<16x8192xbf16, 1>, %{{.*}} : i32)

//       CHECK: gpu.func @all_reduce_0(
//  CHECK-SAME: %[[KMB:[a-z0-9_]+]]: !mailbox_tp4_c16_w8192 {lamport.param = "mailbox"}
//  CHECK-SAME: %[[KOUT:[a-z0-9_]+]]: memref<16x8192xbf16, 1> {lamport.io = "out", lamport.param = "buffer", lamport.role = "out"}
//  CHECK-SAME: lamport.attributes = {sum_order = #lamport.sum_order<rank_ascending>}, lamport.op = "all_reduce"
//       CHECK: %[[STAGE:.*]] = lamport.stage.active %[[KMB]]
//       CHECK: scf.for
//       CHECK:   %[[ROW:.*]] = arith.divui
//       CHECK:   %[[COL:.*]] = arith.muli
//       CHECK:   %[[F:.*]] = lamport.mailbox.poll %[[KMB]][%[[STAGE]], %{{.*}}, %[[ROW]], %[[COL]]] stride %{{.*}} -> vector<4x8xbf16>
//       CHECK:   %[[P0:.*]] = vector.extract %[[F]][0]
//       CHECK:   %[[P1:.*]] = vector.extract %[[F]][1]
//       CHECK:   %[[P2:.*]] = vector.extract %[[F]][2]
//       CHECK:   %[[P3:.*]] = vector.extract %[[F]][3]
//       CHECK:   %[[W0:.*]] = arith.extf %[[P0]] : vector<8xbf16> to vector<8xf32>
//       CHECK:   %[[W1:.*]] = arith.extf %[[P1]]
//       CHECK:   %[[W2:.*]] = arith.extf %[[P2]]
//       CHECK:   %[[W3:.*]] = arith.extf %[[P3]]
//       CHECK:   %[[S01:.*]] = arith.addf %[[W0]], %[[W1]] : vector<8xf32>
//       CHECK:   %[[S012:.*]] = arith.addf %[[S01]], %[[W2]] : vector<8xf32>
//       CHECK:   %[[S0123:.*]] = arith.addf %[[S012]], %[[W3]] : vector<8xf32>
//       CHECK:   %[[R:.*]] = arith.truncf %[[S0123]] : vector<8xf32> to vector<8xbf16>
//       CHECK:   vector.store %[[R]], %[[KOUT]][%[[ROW]], %[[COL]]] {alignment = 16 : i64}
//       CHECK:   lamport.mailbox.rearm %[[KMB]][%[[STAGE]], %{{.*}}, %[[ROW]], %[[COL]]] stride %{{.*}} count 4
//       CHECK: }
//       CHECK: scf.if
//       CHECK:   lamport.stage.advance %[[KMB]], %[[STAGE]]
//       CHECK: gpu.return
func.func @rank_ascending(%mb: !mb, %out: memref<?x8192xbf16>) {
  lamport.all_reduce %mb into %out : !mb, memref<?x8192xbf16>
  return
}

// -----

// pairwise at tp = 8: ((p0 + p1) + (p2 + p3)) + ((p4 + p5) + (p6 + p7)).

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

// CHECK-LABEL: func.func @pairwise
//       CHECK: gpu.func @all_reduce_0(
//  CHECK-SAME: lamport.attributes = {sum_order = #lamport.sum_order<pairwise>}
//       CHECK: %[[W0:.*]] = arith.extf
//       CHECK: %[[W1:.*]] = arith.extf
//       CHECK: %[[W2:.*]] = arith.extf
//       CHECK: %[[W3:.*]] = arith.extf
//       CHECK: %[[W4:.*]] = arith.extf
//       CHECK: %[[W5:.*]] = arith.extf
//       CHECK: %[[W6:.*]] = arith.extf
//       CHECK: %[[W7:.*]] = arith.extf
//       CHECK: %[[A01:.*]] = arith.addf %[[W0]], %[[W1]]
//       CHECK: %[[A23:.*]] = arith.addf %[[W2]], %[[W3]]
//       CHECK: %[[A45:.*]] = arith.addf %[[W4]], %[[W5]]
//       CHECK: %[[A67:.*]] = arith.addf %[[W6]], %[[W7]]
//       CHECK: %[[A0123:.*]] = arith.addf %[[A01]], %[[A23]]
//       CHECK: %[[A4567:.*]] = arith.addf %[[A45]], %[[A67]]
//       CHECK: %[[SUM:.*]] = arith.addf %[[A0123]], %[[A4567]]
//       CHECK: arith.truncf %[[SUM]]
func.func @pairwise(%mb: !mb, %out: memref<?x8192xbf16>) {
  lamport.all_reduce %mb into %out {sum_order = #lamport.sum_order<pairwise>}
      : !mb, memref<?x8192xbf16>
  return
}

// -----

// pairwise with an odd rank count: the last partial joins the next level.
// tp = 3: (p0 + p1) + p2.

!mb = !lamport.mailbox<tp = 3, capacity = 2, width = 64>

// CHECK-LABEL: func.func @pairwise_odd
//       CHECK: %[[W0:.*]] = arith.extf
//       CHECK: %[[W1:.*]] = arith.extf
//       CHECK: %[[W2:.*]] = arith.extf
//       CHECK: %[[A01:.*]] = arith.addf %[[W0]], %[[W1]]
//       CHECK: %[[SUM:.*]] = arith.addf %[[A01]], %[[W2]]
//       CHECK: arith.truncf %[[SUM]]
func.func @pairwise_odd(%mb: !mb, %out: memref<?x64xbf16>) {
  lamport.all_reduce %mb into %out {sum_order = #lamport.sum_order<pairwise>}
      : !mb, memref<?x64xbf16>
  return
}

// -----

// Timeout and PDL.

!mb = !lamport.mailbox<tp = 2, capacity = 4, width = 64>

// CHECK-LABEL: func.func @timeout_pdl
//       CHECK: gpu.func @all_reduce_0(
//  CHECK-SAME: lamport.pdl
//  CHECK-NEXT: nvvm.griddepcontrol wait
//  CHECK-NEXT: lamport.stage.active
//       CHECK: lamport.mailbox.poll {{.*}} {timeout_ns = 2000000 : i64}
//       CHECK: nvvm.griddepcontrol launch_dependents
//  CHECK-NEXT: gpu.return
func.func @timeout_pdl(%mb: !mb, %out: memref<?x64xbf16>) {
  lamport.all_reduce %mb into %out {timeout_ns = 2000000 : i64, pdl}
      : !mb, memref<?x64xbf16>
  return
}
