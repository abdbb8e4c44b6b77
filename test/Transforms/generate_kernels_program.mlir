// RUN: lamport-opt %s --lamport-generate-kernels | FileCheck %s --implicit-check-not=lamport.all_gather

// A decode step of several ops: one kernel per op, launches in program
// order, kernel names unique per family; no program-level op stays in the
// program.

!mb = !lamport.mailbox<tp = 2, capacity = 4, width = 64>
!wide = !lamport.mailbox<tp = 2, capacity = 4, width = 32>

// CHECK: !mailbox_tp2_c4_w32 = !lamport.mailbox<tp = 2, capacity = 4, width = 32>
// CHECK-LABEL: func.func @step
//  CHECK-SAME: %[[WIDE:[a-z0-9_]+]]: !mailbox_tp2_c4_w32)
//       CHECK: gpu.launch_func @publish_rows_0::@publish_rows_0
//       CHECK: gpu.launch_func @all_reduce_0::@all_reduce_0
//       CHECK: gpu.launch_func @publish_rows_1::@publish_rows_1
//       CHECK: gpu.launch_func @poll_rows_0::@poll_rows_0
//       CHECK: gpu.launch_func @all_gather_0::@all_gather_0
//  CHECK-SAME: args(%[[WIDE]] : !mailbox_tp2_c4_w32
//       CHECK: return
//   CHECK-DAG: gpu.module @publish_rows_0
//   CHECK-DAG: gpu.module @all_reduce_0
//   CHECK-DAG: gpu.module @publish_rows_1
//   CHECK-DAG: gpu.module @poll_rows_0
//   CHECK-DAG: gpu.module @all_gather_0
func.func @step(%rows: memref<?x64xbf16>, %mb: !mb, %sum: memref<?x64xbf16>,
                %out: memref<2x?x64xbf16>, %gathered: memref<?x64xbf16>,
                %wide: !wide) {
  lamport.publish_rows %rows into %mb : memref<?x64xbf16>, !mb
  lamport.all_reduce %mb into %sum : !mb, memref<?x64xbf16>
  lamport.publish_rows %sum into %mb : memref<?x64xbf16>, !mb
  lamport.poll_rows %mb into %out : !mb, memref<2x?x64xbf16>
  lamport.all_gather %wide into %gathered : !wide, memref<?x64xbf16>
  return
}
