// RUN: lamport-opt %s --lamport-generate-kernels --split-input-file | FileCheck %s

// The plain consumer: each thread polls one fragment column of every rank's
// slot of the ACTIVE stage (one poll, slots capacity * width apart), writes
// the tp fragments to out [tp, M, width] through a flat view, re-arms them;
// block 0, thread 0 advances NEXT.

!mb = !lamport.mailbox<tp = 4, capacity = 16, width = 1024>

// CHECK: !mailbox_tp4_c16_w1024 = !lamport.mailbox<tp = 4, capacity = 16, width = 1024>
// CHECK-LABEL: func.func @poll
//  CHECK-SAME: (%[[MB:[a-z0-9_]+]]: !mailbox_tp4_c16_w1024, %[[OUT:[a-z0-9_]+]]: memref<4x?x1024xbf16>)
//       CHECK: %[[VIEW:.*]] = memref.reinterpret_cast %[[OUT]] to offset: [0], sizes: [65536], strides: [1] : memref<4x?x1024xbf16> to memref<65536xbf16>
//       CHECK: %[[GLOBAL:.*]] = memref.memory_space_cast %[[VIEW]] : memref<65536xbf16> to memref<65536xbf16, 1>
//       CHECK: %[[M:.*]] = memref.dim %[[OUT]], %{{.*}} : memref<4x?x1024xbf16>
//       CHECK: %[[M32:.*]] = arith.index_castui %[[M]] : index to i32
//       CHECK: gpu.launch_func @poll_rows_0::@poll_rows_0
//  CHECK-SAME: args(%[[MB]] : !mailbox_tp4_c16_w1024, %[[GLOBAL]] : memref<65536xbf16, 1>, %[[M32]] : i32)

//       CHECK: gpu.func @poll_rows_0(
//  CHECK-SAME: %[[KMB:[a-z0-9_]+]]: !mailbox_tp4_c16_w1024 {lamport.param = "mailbox"}
//  CHECK-SAME: %[[KOUT:[a-z0-9_]+]]: memref<65536xbf16, 1> {lamport.io = "out", lamport.param = "buffer", lamport.role = "out"}
//  CHECK-SAME: %[[KM:[a-z0-9_]+]]: i32 {lamport.param = "tokens"}
//  CHECK-SAME: known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 16, 1, 1>
//  CHECK-SAME: lamport.attributes = {}, lamport.op = "poll_rows"
//       CHECK: %[[STAGE:.*]] = lamport.stage.active %[[KMB]]
//       CHECK: %[[M:.*]] = arith.index_castui %[[KM]] : i32 to index
//       CHECK: %[[CAPACITY:.*]] = arith.constant 16 : index
//       CHECK: %[[TOKENS:.*]] = arith.minui %[[M]], %[[CAPACITY]] : index
//       CHECK: %[[ITEMS:.*]] = arith.muli %[[TOKENS]], %{{.*}} : index
//       CHECK: %[[WIDTH:.*]] = arith.constant 1024 : index
//       CHECK: %[[SLOTROWS:.*]] = arith.muli %[[TOKENS]], %[[WIDTH]] : index
//       CHECK: scf.for %[[ITEM:[a-z0-9_]+]] = %{{.*}} to %[[ITEMS]]
//       CHECK:   %[[ROW:.*]] = arith.divui %[[ITEM]]
//       CHECK:   %[[COL:.*]] = arith.muli
//       CHECK:   %[[SLOTSTRIDE:.*]] = arith.constant 16384 : index
//       CHECK:   %[[SLOT0:.*]] = arith.constant 0 : i32
//       CHECK:   %[[F:.*]] = lamport.mailbox.poll %[[KMB]][%[[STAGE]], %[[SLOT0]], %[[ROW]], %[[COL]]] stride %[[SLOTSTRIDE]] : !mailbox_tp4_c16_w1024 -> vector<4x8xbf16>
//       CHECK:   %[[F0:.*]] = vector.extract %[[F]][0]
//       CHECK:   %[[F1:.*]] = vector.extract %[[F]][1]
//       CHECK:   %[[F2:.*]] = vector.extract %[[F]][2]
//       CHECK:   %[[F3:.*]] = vector.extract %[[F]][3]
//       CHECK:   vector.store %[[F0]], %[[KOUT]]
//       CHECK:   vector.store %[[F1]], %[[KOUT]]
//       CHECK:   vector.store %[[F2]], %[[KOUT]]
//       CHECK:   %[[S3:.*]] = arith.constant 3 : index
//       CHECK:   %[[BASE3:.*]] = arith.muli %[[S3]], %[[SLOTROWS]] : index
//       CHECK:   %[[AT3:.*]] = arith.addi %[[BASE3]], %{{.*}} : index
//       CHECK:   vector.store %[[F3]], %[[KOUT]][%[[AT3]]] {alignment = 16 : i64} : memref<65536xbf16, 1>, vector<8xbf16>
//       CHECK:   lamport.mailbox.rearm %[[KMB]][%[[STAGE]], %{{.*}}, %[[ROW]], %[[COL]]] stride %{{.*}} count 4
//       CHECK: }
//       CHECK: %[[TID:.*]] = gpu.thread_id x
//       CHECK: %[[T0:.*]] = arith.cmpi eq, %[[TID]]
//       CHECK: %[[CTA:.*]] = gpu.block_id x
//       CHECK: %[[C0:.*]] = arith.cmpi eq, %[[CTA]]
//       CHECK: %[[LEAD:.*]] = arith.andi %[[T0]], %[[C0]] : i1
//       CHECK: scf.if %[[LEAD]] {
//       CHECK:   lamport.stage.advance %[[KMB]], %[[STAGE]]
//   CHECK-NOT: nvvm.griddepcontrol
//       CHECK: gpu.return
func.func @poll(%mb: !mb, %out: memref<4x?x1024xbf16>) {
  lamport.poll_rows %mb into %out : !mb, memref<4x?x1024xbf16>
  return
}

// -----

// The op's timeout reaches the poll; PDL waits before reading ACTIVE.

!mb = !lamport.mailbox<tp = 2, capacity = 4, width = 64>

// CHECK: !mailbox_tp2_c4_w64 = !lamport.mailbox<tp = 2, capacity = 4, width = 64>
// CHECK-LABEL: func.func @timeout_pdl
//       CHECK: gpu.func @poll_rows_0(
//  CHECK-SAME: lamport.pdl
//  CHECK-NEXT: nvvm.griddepcontrol wait
//  CHECK-NEXT: lamport.stage.active
//       CHECK: lamport.mailbox.poll {{.*}} {timeout_ns = 5000 : i64} : !mailbox_tp2_c4_w64 -> vector<2x8xbf16>
//       CHECK: lamport.stage.advance
//       CHECK: nvvm.griddepcontrol launch_dependents
//  CHECK-NEXT: gpu.return
func.func @timeout_pdl(%mb: !mb, %out: memref<2x?x64xbf16>) {
  lamport.poll_rows %mb into %out {timeout_ns = 5000 : i64, pdl}
      : !mb, memref<2x?x64xbf16>
  return
}

// -----

// More than 32 ranks: one poll (and one re-arm) per 32 slots.

!mb = !lamport.mailbox<tp = 40, capacity = 1, width = 8>

// CHECK-LABEL: func.func @wide_group
//       CHECK: gpu.func @poll_rows_0(
//       CHECK: %[[S0:.*]] = arith.constant 0 : i32
//       CHECK: lamport.mailbox.poll %{{.*}}[%{{.*}}, %[[S0]], %{{.*}}, %{{.*}}] stride %{{.*}} : {{.*}} -> vector<32x8xbf16>
//       CHECK: %[[S32:.*]] = arith.constant 32 : i32
//       CHECK: lamport.mailbox.poll %{{.*}}[%{{.*}}, %[[S32]], %{{.*}}, %{{.*}}] stride %{{.*}} : {{.*}} -> vector<8x8xbf16>
//   CHECK-COUNT-40: vector.store
//       CHECK: lamport.mailbox.rearm {{.*}} count 32
//       CHECK: lamport.mailbox.rearm {{.*}} count 8
func.func @wide_group(%mb: !mb, %out: memref<40x?x8xbf16>) {
  lamport.poll_rows %mb into %out : !mb, memref<40x?x8xbf16>
  return
}
