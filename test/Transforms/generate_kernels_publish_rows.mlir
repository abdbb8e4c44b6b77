// RUN: lamport-opt %s --lamport-generate-kernels --split-input-file | FileCheck %s

// The shared-only publisher: one fragment per thread and trip, published at
// slot [NEXT, rank]; thread 0 of each CTA sets ACTIVE after the barrier.

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

// CHECK: !mailbox_tp8_c16_w8192 = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>
// CHECK: module attributes {gpu.container_module}
// CHECK-LABEL: func.func @publish
//  CHECK-SAME: (%[[ROWS:[a-zA-Z0-9_]+]]: memref<?x8192xbf16>, %[[MB:[a-zA-Z0-9_]+]]: !mailbox_tp8_c16_w8192)
//       CHECK: %[[VIEW:[a-zA-Z0-9_]+]] = memref.reinterpret_cast %[[ROWS]] to offset: [0], sizes: [16, 8192], strides: [8192, 1] : memref<?x8192xbf16> to memref<16x8192xbf16>
//       CHECK: %[[GLOBAL:[a-zA-Z0-9_]+]] = memref.memory_space_cast %[[VIEW]] : memref<16x8192xbf16> to memref<16x8192xbf16, 1>
//       CHECK: %[[M:[a-zA-Z0-9_]+]] = memref.dim %[[ROWS]], %{{.*}} : memref<?x8192xbf16>
//       CHECK: %[[M32:[a-zA-Z0-9_]+]] = arith.index_castui %[[M]] : index to i32
//   CHECK-DAG: %[[ONE:[a-zA-Z0-9_]+]] = arith.constant 1 : index
//   CHECK-DAG: %[[CTAS:[a-zA-Z0-9_]+]] = arith.constant 128 : index
//   CHECK-DAG: %[[THREADS:[a-zA-Z0-9_]+]] = arith.constant 128 : index
//       CHECK: gpu.launch_func @publish_rows_0::@publish_rows_0
//  CHECK-SAME: blocks in (%[[CTAS]], %[[ONE]], %[[ONE]]) threads in (%[[THREADS]], %[[ONE]], %[[ONE]])
//  CHECK-SAME: args(%[[MB]] : !mailbox_tp8_c16_w8192, %[[GLOBAL]] : memref<16x8192xbf16, 1>, %[[M32]] : i32)
//   CHECK-NOT: lamport.publish_rows
//       CHECK: return

//       CHECK: gpu.module @publish_rows_0
//       CHECK: gpu.func @publish_rows_0(
//  CHECK-SAME: %[[KMB:[a-zA-Z0-9_]+]]: !mailbox_tp8_c16_w8192 {lamport.param = "mailbox"}
//  CHECK-SAME: %[[KROWS:[a-zA-Z0-9_]+]]: memref<16x8192xbf16, 1> {lamport.io = "in", lamport.param = "buffer", lamport.role = "rows"}
//  CHECK-SAME: %[[KM:[a-zA-Z0-9_]+]]: i32 {lamport.param = "tokens"}
//  CHECK-SAME: kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 128, 1, 1>
//  CHECK-SAME: lamport.attributes = {transport = #lamport.transport<unicast>}, lamport.op = "publish_rows"}
//   CHECK-NOT: nvvm.griddepcontrol
//       CHECK: %[[STAGE:[a-zA-Z0-9_]+]] = lamport.stage.next %[[KMB]]
//       CHECK: %[[M:[a-zA-Z0-9_]+]] = arith.index_castui %[[KM]] : i32 to index
//       CHECK: %[[CAPACITY:[a-zA-Z0-9_]+]] = arith.constant 16 : index
//       CHECK: %[[TOKENS:[a-zA-Z0-9_]+]] = arith.minui %[[M]], %[[CAPACITY]] : index
//       CHECK: %[[FRAGMENTS:[a-zA-Z0-9_]+]] = arith.muli %[[TOKENS]], %{{.*}} : index
//       CHECK: scf.for %[[ITEM:[a-zA-Z0-9_]+]] = %{{.*}} to %[[FRAGMENTS]] step %{{.*}} {
//       CHECK:   %[[ROW:[a-zA-Z0-9_]+]] = arith.divui %[[ITEM]]
//       CHECK:   %[[FRAG:[a-zA-Z0-9_]+]] = arith.remui %[[ITEM]]
//       CHECK:   %[[COL:[a-zA-Z0-9_]+]] = arith.muli %[[FRAG]]
//       CHECK:   %[[V:[a-zA-Z0-9_]+]] = vector.load %[[KROWS]][%[[ROW]], %[[COL]]] {alignment = 16 : i64} : memref<16x8192xbf16, 1>, vector<8xbf16>
//       CHECK:   lamport.mailbox.publish %[[V]], %[[KMB]][%[[STAGE]], %[[ROW]], %[[COL]]] {transport = #lamport.transport<unicast>}
//       CHECK: }
//       CHECK: gpu.barrier
//       CHECK: %[[TID:[a-zA-Z0-9_]+]] = gpu.thread_id x
//       CHECK: %[[LEAD:[a-zA-Z0-9_]+]] = arith.cmpi eq, %[[TID]], %{{.*}} : index
//   CHECK-NOT: gpu.block_id
//       CHECK: scf.if %[[LEAD]] {
//       CHECK:   lamport.stage.set_active %[[KMB]], %[[STAGE]]
//       CHECK: }
//   CHECK-NOT: nvvm.griddepcontrol
//       CHECK: gpu.return
func.func @publish(%rows: memref<?x8192xbf16>, %mb: !mb) {
  lamport.publish_rows %rows into %mb : memref<?x8192xbf16>, !mb
  return
}

// -----

// The op's transport wins over the pass option; release_before reaches
// every publish.

!mb = !lamport.mailbox<tp = 4, capacity = 8, width = 1024>

// CHECK-LABEL: func.func @multicast
//       CHECK: gpu.func @publish_rows_0(
//  CHECK-SAME: lamport.attributes = {transport = #lamport.transport<multicast>}
//       CHECK: lamport.mailbox.publish {{.*}} {release_before, transport = #lamport.transport<multicast>}
func.func @multicast(%rows: memref<?x1024xbf16>, %mb: !mb) {
  lamport.publish_rows %rows into %mb
      {transport = #lamport.transport<multicast>, release_before}
      : memref<?x1024xbf16>, !mb
  return
}

// -----

// PDL: wait before the stage word and the rows are read, let dependents
// launch once every store is issued.

!mb = !lamport.mailbox<tp = 2, capacity = 4, width = 64>

// CHECK-LABEL: func.func @pdl
//       CHECK: gpu.func @publish_rows_0(
//  CHECK-SAME: lamport.pdl
//  CHECK-NEXT: nvvm.griddepcontrol wait
//  CHECK-NEXT: lamport.stage.next
//       CHECK: vector.load
//       CHECK: lamport.mailbox.publish
//       CHECK: lamport.stage.set_active
//       CHECK: nvvm.griddepcontrol launch_dependents
//  CHECK-NEXT: gpu.return
func.func @pdl(%rows: memref<?x64xbf16>, %mb: !mb) {
  lamport.publish_rows %rows into %mb {pdl} : memref<?x64xbf16>, !mb
  return
}

// -----

// A static token count is passed as a constant; the kernel still takes M.

!mb = !lamport.mailbox<tp = 2, capacity = 4, width = 64>

// CHECK-LABEL: func.func @static_tokens
//       CHECK: %[[VIEW:[a-zA-Z0-9_]+]] = memref.reinterpret_cast %{{.*}} sizes: [4, 64]
//       CHECK: %[[GLOBAL:[a-zA-Z0-9_]+]] = memref.memory_space_cast %[[VIEW]]
//       CHECK: %[[M:[a-zA-Z0-9_]+]] = arith.constant 2 : i32
//       CHECK: gpu.launch_func @publish_rows_0::@publish_rows_0 {{.*}} args({{.*}}, %[[GLOBAL]] : memref<4x64xbf16, 1>, %[[M]] : i32)
func.func @static_tokens(%rows: memref<2x64xbf16>, %mb: !mb) {
  lamport.publish_rows %rows into %mb : memref<2x64xbf16>, !mb
  return
}
