// RUN: lamport-opt %s --lamport-generate-kernels --split-input-file | FileCheck %s

// The column all-gather: per (token, global fragment g) of the gathered row
// [tp * width], one lamport.mailbox.poll_owned of the ACTIVE stage (owner
// rank g / (width / 8); the op re-arms what it read), one 16-byte store to
// out[token][8g, 8g + 8); then one thread of the grid advances NEXT.

// The unpooler at tp = 8: 128 fragments per rank, 1024 per gathered row;
// 16 x 1024 work items at capacity, so 128 CTAs of 128 threads.
!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 1024>

// CHECK: !mailbox_tp8_c16_w1024 = !lamport.mailbox<tp = 8, capacity = 16, width = 1024>
// CHECK-LABEL: func.func @unpooler
//  CHECK-SAME: (%[[MB:[a-z0-9_]+]]: !mailbox_tp8_c16_w1024, %[[OUT:[a-z0-9_]+]]: memref<?x8192xbf16>)
//       CHECK: %[[VIEW:.*]] = memref.reinterpret_cast %[[OUT]] to offset: [0], sizes: [16, 8192], strides: [8192, 1]
//       CHECK: %[[GLOBAL:.*]] = memref.memory_space_cast %[[VIEW]] : memref<16x8192xbf16> to memref<16x8192xbf16, 1>
//       CHECK: %[[M:.*]] = memref.dim %[[OUT]], %c0
//       CHECK: %[[TOKENS:.*]] = arith.index_castui %[[M]] : index to i32
//       CHECK: gpu.launch_func @all_gather_0::@all_gather_0 blocks in (%c128, %c1, %c1) threads in (%c128_0, %c1, %c1)
//  CHECK-SAME: args(%[[MB]] : !mailbox_tp8_c16_w1024, %[[GLOBAL]] : memref<16x8192xbf16, 1>, %[[TOKENS]] : i32)
//  CHECK-NEXT: return

//       CHECK: gpu.module @all_gather_0
//       CHECK: gpu.func @all_gather_0(
//  CHECK-SAME: %[[KMB:[a-z0-9_]+]]: !mailbox_tp8_c16_w1024 {lamport.param = "mailbox"}
//  CHECK-SAME: %[[KOUT:[a-z0-9_]+]]: memref<16x8192xbf16, 1> {lamport.io = "out", lamport.param = "buffer", lamport.role = "out"}
//  CHECK-SAME: %{{[a-z0-9_]+}}: i32 {lamport.param = "tokens"}
//  CHECK-SAME: known_block_size = array<i32: 128, 1, 1>
//  CHECK-SAME: known_grid_size = array<i32: 128, 1, 1>
//  CHECK-SAME: lamport.attributes = {}, lamport.op = "all_gather"
//   CHECK-NOT: lamport.pdl
//   CHECK-NOT: nvvm.griddepcontrol
//       CHECK: %[[STAGE:.*]] = lamport.stage.active %[[KMB]] : !mailbox_tp8_c16_w1024
//       CHECK: %[[ROW_FRAGMENTS:.*]] = arith.constant 1024 : index
//       CHECK: %[[ITEMS:.*]] = arith.muli %{{.*}}, %[[ROW_FRAGMENTS]] : index
//       CHECK: %[[LANES:.*]] = arith.constant 8 : index
//       CHECK: scf.for %[[ITEM:.*]] = %{{.*}} to %[[ITEMS]] step %{{.*}} {
//  CHECK-NEXT:   %[[TOKEN:.*]] = arith.divui %[[ITEM]], %[[ROW_FRAGMENTS]] : index
//  CHECK-NEXT:   %[[FRAGMENT:.*]] = arith.remui %[[ITEM]], %[[ROW_FRAGMENTS]] : index
//  CHECK-NEXT:   %[[POLLED:.*]] = lamport.mailbox.poll_owned %[[KMB]][%[[STAGE]], %[[TOKEN]], %[[FRAGMENT]]] : !mailbox_tp8_c16_w1024 -> vector<1x8xbf16>
//  CHECK-NEXT:   %[[VALUE:.*]] = vector.extract %[[POLLED]][0] : vector<8xbf16> from vector<1x8xbf16>
//  CHECK-NEXT:   %[[COL:.*]] = arith.muli %[[FRAGMENT]], %[[LANES]] : index
//  CHECK-NEXT:   vector.store %[[VALUE]], %[[KOUT]][%[[TOKEN]], %[[COL]]] {alignment = 16 : i64} : memref<16x8192xbf16, 1>, vector<8xbf16>
//  CHECK-NEXT: }
// poll_owned re-arms exactly the fragment it read: no other re-arm.
//   CHECK-NOT: lamport.mailbox.rearm
//       CHECK: scf.if
//  CHECK-NEXT:   lamport.stage.advance %[[KMB]], %[[STAGE]]
//       CHECK: gpu.return
func.func @unpooler(%mb: !mb, %out: memref<?x8192xbf16>) {
  lamport.all_gather %mb into %out : !mb, memref<?x8192xbf16>
  return
}

// -----

// PDL and the op's timeout; the lead thread that advances NEXT is thread 0
// of CTA 0 alone. 4 x 8 work items: one CTA of one warp.

!mb = !lamport.mailbox<tp = 2, capacity = 4, width = 32>

// CHECK-LABEL: func.func @timeout_pdl
//       CHECK: gpu.func @all_gather_0(
//  CHECK-SAME: known_block_size = array<i32: 32, 1, 1>
//  CHECK-SAME: known_grid_size = array<i32: 1, 1, 1>
//  CHECK-SAME: lamport.pdl
//  CHECK-NEXT: nvvm.griddepcontrol wait
//  CHECK-NEXT: %[[STAGE:.*]] = lamport.stage.active
//       CHECK: arith.constant 8 : index
//       CHECK: lamport.mailbox.poll_owned %{{.*}}[%[[STAGE]], %{{.*}}, %{{.*}}] {timeout_ns = 2000000 : i64}
//       CHECK: %[[THREAD:.*]] = gpu.thread_id x
//       CHECK: %[[LEAD:.*]] = arith.cmpi eq, %[[THREAD]], %c0
//       CHECK: %[[CTA:.*]] = gpu.block_id x
//       CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[CTA]], %c0
//       CHECK: %[[ONE:.*]] = arith.andi %[[LEAD]], %[[FIRST]] : i1
//       CHECK: scf.if %[[ONE]] {
//  CHECK-NEXT:   lamport.stage.advance %{{.*}}, %[[STAGE]]
//       CHECK: nvvm.griddepcontrol launch_dependents
//  CHECK-NEXT: gpu.return
func.func @timeout_pdl(%mb: !mb, %out: memref<?x64xbf16>) {
  lamport.all_gather %mb into %out {timeout_ns = 2000000 : i64, pdl}
      : !mb, memref<?x64xbf16>
  return
}

// -----

// A column block that is no power of two (6 fragments a rank, 18 a
// gathered row) and a static M: the token count is a constant, and the
// kernel views the 2 rows as capacity rows.

!mb = !lamport.mailbox<tp = 3, capacity = 8, width = 48>

// CHECK-LABEL: func.func @odd_width
//       CHECK: %[[VIEW:.*]] = memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [8, 144], strides: [144, 1] : memref<2x144xbf16> to memref<8x144xbf16>
//       CHECK: %[[TOKENS:.*]] = arith.constant 2 : i32
//       CHECK: gpu.launch_func @all_gather_0::@all_gather_0
//  CHECK-SAME: %[[TOKENS]] : i32
//       CHECK: gpu.func @all_gather_0(
//  CHECK-SAME: memref<8x144xbf16, 1>
//  CHECK-SAME: known_block_size = array<i32: 128, 1, 1>
//  CHECK-SAME: known_grid_size = array<i32: 2, 1, 1>
//       CHECK: %[[ROW_FRAGMENTS:.*]] = arith.constant 18 : index
//       CHECK: arith.divui %{{.*}}, %[[ROW_FRAGMENTS]]
//       CHECK: arith.remui %{{.*}}, %[[ROW_FRAGMENTS]]
//       CHECK: lamport.mailbox.poll_owned
func.func @odd_width(%mb: !mb, %out: memref<2x144xbf16>) {
  lamport.all_gather %mb into %out : !mb, memref<2x144xbf16>
  return
}
