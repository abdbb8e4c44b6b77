// RUN: %mlir-opt %s --load-dialect-plugin=%lamport_plugin | FileCheck %s
// RUN: %mlir-opt %s --load-dialect-plugin=%lamport_plugin | %mlir-opt --load-dialect-plugin=%lamport_plugin | FileCheck %s
// RUN: %mlir-opt %s --load-dialect-plugin=%lamport_plugin --mlir-print-op-generic | %mlir-opt --load-dialect-plugin=%lamport_plugin | FileCheck %s

// The stock mlir-opt parses, verifies and prints lamport IR once the
// dialect plugin is loaded: the custom assembly of the mailbox type, a
// program-level op, the kernel-level primitives and the stage ops, in the
// pretty form and through the generic form. The printer names the mailbox
// type once and the ops use the name.

!mb = !lamport.mailbox<tp = 4, capacity = 16, width = 4096>

// CHECK: !mailbox_tp4_c16_w4096 = !lamport.mailbox<tp = 4, capacity = 16, width = 4096>
// CHECK-LABEL: func.func @boundary
// CHECK-SAME: (%[[ROWS:.*]]: memref<?x4096xbf16>, %[[MB:.*]]: !mailbox_tp4_c16_w4096, %[[OUT:.*]]: memref<4x?x4096xbf16>)
// CHECK: lamport.publish_rows %[[ROWS]] into %[[MB]] {pdl} : memref<?x4096xbf16>, !mailbox_tp4_c16_w4096
// CHECK: lamport.poll_rows %[[MB]] into %[[OUT]] : !mailbox_tp4_c16_w4096, memref<4x?x4096xbf16>
func.func @boundary(%rows: memref<?x4096xbf16>, %mb: !mb,
                    %out: memref<4x?x4096xbf16>) {
  lamport.publish_rows %rows into %mb {pdl} : memref<?x4096xbf16>, !mb
  lamport.poll_rows %mb into %out : !mb, memref<4x?x4096xbf16>
  return
}

// CHECK-LABEL: func.func @primitives
// CHECK: %[[STAGE:.*]] = lamport.stage.next %{{.*}} : !mailbox_tp4_c16_w4096
// CHECK: lamport.mailbox.publish %{{.*}}, %{{.*}}[%[[STAGE]], %{{.*}}, %{{.*}}] {transport = #lamport.transport<multicast>} : vector<8xbf16>, !mailbox_tp4_c16_w4096
// CHECK: lamport.mailbox.rearm %{{.*}}[%[[STAGE]], %{{.*}}, %{{.*}}, %{{.*}}] : !mailbox_tp4_c16_w4096
// CHECK: lamport.stage.set_active %{{.*}}, %[[STAGE]] : !mailbox_tp4_c16_w4096
func.func @primitives(%mb: !mb, %v: vector<8xbf16>, %slot: i32,
                      %row: index, %col: index) {
  %stage = lamport.stage.next %mb : !mb
  lamport.mailbox.publish %v, %mb[%stage, %row, %col]
      {transport = #lamport.transport<multicast>} : vector<8xbf16>, !mb
  lamport.mailbox.rearm %mb[%stage, %slot, %row, %col] : !mb
  lamport.stage.set_active %mb, %stage : !mb
  return
}
