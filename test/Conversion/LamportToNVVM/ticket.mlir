// RUN: lamport-opt %s -split-input-file -convert-lamport-to-nvvm | FileCheck %s

// A ticket is an int32 word whose upper 16 bits hold a stage.

// CHECK-LABEL: gpu.func @from_ticket
// CHECK-SAME: (%[[TICKET:.*]]: i32,
// CHECK: %[[SIXTEEN:.*]] = llvm.mlir.constant(16 : i32) : i32
// CHECK: %[[STAGE:.*]] = llvm.lshr %[[TICKET]], %[[SIXTEEN]] : i32
// CHECK: memref.store %[[STAGE]]
gpu.module @from_ticket_module {
  gpu.func @from_ticket(%ticket: i32, %out: memref<1xi32, 1>) kernel {
    %stage = lamport.stage.from_ticket %ticket
    %c0 = arith.constant 0 : index
    memref.store %stage, %out[%c0] : memref<1xi32, 1>
    gpu.return
  }
}

// -----

// CHECK-LABEL: gpu.func @to_ticket
// CHECK-SAME: (%[[STAGE:.*]]: i32,
// CHECK: %[[SIXTEEN:.*]] = llvm.mlir.constant(16 : i32) : i32
// CHECK: %[[TICKET:.*]] = llvm.shl %[[STAGE]], %[[SIXTEEN]] : i32
// CHECK: memref.store %[[TICKET]]
gpu.module @to_ticket_module {
  gpu.func @to_ticket(%stage: i32, %out: memref<1xi32, 1>) kernel {
    %ticket = lamport.stage.to_ticket %stage
    %c0 = arith.constant 0 : index
    memref.store %ticket, %out[%c0] : memref<1xi32, 1>
    gpu.return
  }
}

// -----

// A ticket's stage addresses a mailbox like any other stage.
!mb = !lamport.mailbox<tp = 2, capacity = 8, width = 512>

// CHECK-LABEL: gpu.func @ticket_stage_publish
// CHECK-SAME: (%[[MB:.*]]: !llvm.struct<{{.*}}>, %[[TICKET:.*]]: i32,
// CHECK: %[[STAGE:.*]] = llvm.lshr %[[TICKET]], %{{.*}} : i32
// CHECK: %[[STAGE64:.*]] = llvm.zext %[[STAGE]] : i32 to i64
// CHECK: llvm.mul %[[STAGE64]], %{{.*}} overflow<nuw> : i64
gpu.module @ticket_stage_publish_module {
  gpu.func @ticket_stage_publish(%mb: !mb, %ticket: i32, %v: vector<8xbf16>)
      kernel {
    %stage = lamport.stage.from_ticket %ticket
    %c0 = arith.constant 0 : index
    lamport.mailbox.publish %v, %mb[%stage, %c0, %c0]
        {transport = #lamport.transport<unicast>} : vector<8xbf16>, !mb
    gpu.return
  }
}
