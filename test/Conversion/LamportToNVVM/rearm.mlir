// RUN: lamport-opt %s -convert-lamport-to-nvvm | FileCheck %s
// RUN: lamport-opt %s -lamport-lower-to-nvvm | %python %S/../Inputs/extract_ptx.py > %t.sm90.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.sm90.ptx
// RUN: %ptxas -arch=sm_90 %t.sm90.ptx -o /dev/null
// RUN: lamport-opt %s -lamport-lower-to-nvvm=chip=sm_100a | %python %S/../Inputs/extract_ptx.py > %t.sm100a.ptx
// RUN: %ptxas -arch=sm_100a %t.sm100a.ptx -o /dev/null
// REQUIRES: ptxas

// lamport.mailbox.rearm stores eight sentinels (0x80008000 in each 32-bit
// word) over fragments of this rank's own copy: one fragment, `count`
// fragments `stride` apart, or the fragments at `offsets`.

!mb = !lamport.mailbox<tp = 4, capacity = 8, width = 512>

gpu.module @rearm {
  // CHECK-LABEL: gpu.func @single
  // CHECK-SAME: (%[[MB:.*]]: !llvm.struct<{{.*}}>,
  // CHECK: %[[LOCAL:.*]] = llvm.extractvalue %[[MB]][0]
  // CHECK: %[[ADDRESS:.*]] = llvm.getelementptr inbounds %[[LOCAL]][%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i16
  // CHECK: %[[SENTINEL:.*]] = llvm.mlir.constant(dense<-2147450880> : vector<4xi32>) : vector<4xi32>
  // CHECK: llvm.store %[[SENTINEL]], %[[ADDRESS]] {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<1>
  // CHECK-NOT: llvm.store
  // CHECK: gpu.return
  gpu.func @single(%mb: !mb, %stage: i32, %slot: i32) kernel {
    %row = gpu.block_id x
    %tid = gpu.thread_id x
    %c8 = arith.constant 8 : index
    %col = arith.muli %tid, %c8 : index
    lamport.mailbox.rearm %mb[%stage, %slot, %row, %col] : !mb
    gpu.return
  }

  // CHECK-LABEL: gpu.func @strided
  // CHECK-SAME: (%[[MB:.*]]: !llvm.struct<{{.*}}>, %{{.*}}: i32, %{{.*}}: i32, %[[STRIDE_INDEX:.*]]: index)
  // CHECK: %[[STRIDE:.*]] = builtin.unrealized_conversion_cast %[[STRIDE_INDEX]] : index to i64
  // CHECK: %[[BASE:.*]] = llvm.getelementptr inbounds %{{.*}}[%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i16
  // CHECK: %[[SENTINEL:.*]] = llvm.mlir.constant(dense<-2147450880> : vector<4xi32>)
  // CHECK: llvm.store %[[SENTINEL]], %[[BASE]] {alignment = 16 : i64}
  // CHECK: %[[ONE:.*]] = llvm.mlir.constant(1 : i64)
  // CHECK: %[[OFFSET1:.*]] = llvm.mul %[[STRIDE]], %[[ONE]] : i64
  // CHECK: %[[ADDRESS1:.*]] = llvm.getelementptr inbounds %[[BASE]][%[[OFFSET1]]]
  // CHECK: llvm.store %[[SENTINEL]], %[[ADDRESS1]] {alignment = 16 : i64}
  // CHECK: %[[TWO:.*]] = llvm.mlir.constant(2 : i64)
  // CHECK: %[[OFFSET2:.*]] = llvm.mul %[[STRIDE]], %[[TWO]] : i64
  // CHECK: %[[ADDRESS2:.*]] = llvm.getelementptr inbounds %[[BASE]][%[[OFFSET2]]]
  // CHECK: llvm.store %[[SENTINEL]], %[[ADDRESS2]] {alignment = 16 : i64}
  // CHECK-NOT: llvm.store
  // CHECK: gpu.return
  gpu.func @strided(%mb: !mb, %stage: i32, %slot: i32, %stride: index) kernel {
    %row = gpu.block_id x
    %tid = gpu.thread_id x
    %c8 = arith.constant 8 : index
    %col = arith.muli %tid, %c8 : index
    lamport.mailbox.rearm %mb[%stage, %slot, %row, %col] stride %stride count 3
        : !mb
    gpu.return
  }

  // CHECK-LABEL: gpu.func @at_offsets
  // CHECK: %[[BASE:.*]] = llvm.getelementptr inbounds %{{.*}}[%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i16
  // CHECK: %[[SENTINEL:.*]] = llvm.mlir.constant(dense<-2147450880> : vector<4xi32>)
  // CHECK: llvm.store %[[SENTINEL]], %[[BASE]] {alignment = 16 : i64}
  // CHECK: %[[SECOND:.*]] = llvm.getelementptr inbounds %[[BASE]][4096]
  // CHECK: llvm.store %[[SENTINEL]], %[[SECOND]] {alignment = 16 : i64}
  // CHECK-NOT: llvm.store
  // CHECK: gpu.return
  gpu.func @at_offsets(%mb: !mb, %stage: i32, %slot: i32) kernel {
    %row = gpu.block_id x
    %c0 = arith.constant 0 : index
    lamport.mailbox.rearm %mb[%stage, %slot, %row, %c0] offsets [0, 4096] : !mb
    gpu.return
  }
}

// PTX-LABEL: .visible .entry single(
// The sentinel fragment: 0x80008000 = -2147450880 in every word.
// PTX: st.global.v4.b32 [%rd{{[0-9]+}}], {-2147450880, -2147450880, -2147450880, -2147450880};
// PTX-NOT: st.global
// PTX: ret;

// PTX-LABEL: .visible .entry strided(
// PTX-COUNT-3: st.global.v4.b32
// PTX-NOT: st.global
// PTX: ret;

// PTX-LABEL: .visible .entry at_offsets(
// PTX: st.global.v4.b32 [%rd[[BASE:[0-9]+]]],
// PTX-NEXT: st.global.v4.b32 [%rd[[BASE]]+8192],
// PTX-NOT: st.global
// PTX: ret;
