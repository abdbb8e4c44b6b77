// RUN: lamport-opt %s -convert-lamport-to-nvvm | FileCheck %s
// RUN: lamport-opt %s -lamport-lower-to-nvvm | %python %S/../Inputs/extract_ptx.py > %t.sm90.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.sm90.ptx
// RUN: %ptxas -arch=sm_90 %t.sm90.ptx -o /dev/null
// RUN: lamport-opt %s -lamport-lower-to-nvvm=chip=sm_100a | %python %S/../Inputs/extract_ptx.py > %t.sm100a.ptx
// RUN: FileCheck %s --check-prefix=PTX100 < %t.sm100a.ptx
// RUN: %ptxas -arch=sm_100a %t.sm100a.ptx -o /dev/null
// REQUIRES: ptxas

// A unicast publish: one 16-byte store per peer (tp of them), each into
// slot [stage, rank] of that peer's copy through the descriptor's peers
// array. Never a multimem store.

!mb = !lamport.mailbox<tp = 4, capacity = 8, width = 512>

gpu.module @publish_unicast {
  // CHECK-LABEL: gpu.func @unicast
  // CHECK-SAME: (%[[MB:.*]]: !llvm.struct<{{.*}}array<4 x ptr<1>>)>,
  // CHECK: %[[WORDS:.*]] = llvm.bitcast %{{.*}} : vector<8xbf16> to vector<4xi32>
  // CHECK: %[[CLEAN:.*]] = llvm.xor %[[WORDS]], %{{.*}} : vector<4xi32>
  // CHECK: %[[PEER0:.*]] = llvm.extractvalue %[[MB]][6, 0]
  // CHECK: %[[ADDRESS0:.*]] = llvm.getelementptr inbounds %[[PEER0]][%[[ELEMENT:.*]]] :
  // CHECK: llvm.store %[[CLEAN]], %[[ADDRESS0]] {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<1>
  // CHECK: %[[PEER1:.*]] = llvm.extractvalue %[[MB]][6, 1]
  // CHECK: %[[ADDRESS1:.*]] = llvm.getelementptr inbounds %[[PEER1]][%[[ELEMENT]]]
  // CHECK: llvm.store %[[CLEAN]], %[[ADDRESS1]] {alignment = 16 : i64}
  // CHECK: %[[PEER2:.*]] = llvm.extractvalue %[[MB]][6, 2]
  // CHECK: %[[ADDRESS2:.*]] = llvm.getelementptr inbounds %[[PEER2]][%[[ELEMENT]]]
  // CHECK: llvm.store %[[CLEAN]], %[[ADDRESS2]] {alignment = 16 : i64}
  // CHECK: %[[PEER3:.*]] = llvm.extractvalue %[[MB]][6, 3]
  // CHECK: %[[ADDRESS3:.*]] = llvm.getelementptr inbounds %[[PEER3]][%[[ELEMENT]]]
  // CHECK: llvm.store %[[CLEAN]], %[[ADDRESS3]] {alignment = 16 : i64}
  // CHECK-NOT: llvm.store
  // CHECK-NOT: llvm.inline_asm
  // CHECK: gpu.return
  gpu.func @unicast(%mb: !mb, %src: memref<8x512xbf16, 1>, %stage: i32) kernel {
    %row = gpu.block_id x
    %tid = gpu.thread_id x
    %c8 = arith.constant 8 : index
    %col = arith.muli %tid, %c8 : index
    %v = vector.load %src[%row, %col] {alignment = 16}
        : memref<8x512xbf16, 1>, vector<8xbf16>
    lamport.mailbox.publish %v, %mb[%stage, %row, %col]
        {transport = #lamport.transport<unicast>} : vector<8xbf16>, !mb
    gpu.return
  }
}

// PTX-LABEL: .visible .entry unicast(
// PTX-NOT: multimem
// PTX-COUNT-4: st.global.v4.b32 [%rd{{[0-9]+}}], {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}};
// PTX-NOT: st.global
// PTX-NOT: multimem
// PTX: ret;

// sm_100a moves the same 16 bytes as two 64-bit halves.
// PTX100-LABEL: .visible .entry unicast(
// PTX100-NOT: multimem
// PTX100-COUNT-4: st.global.v2.b64 [%rd{{[0-9]+}}], {%rd{{[0-9]+}}, %rd{{[0-9]+}}};
// PTX100-NOT: st.global
// PTX100-NOT: multimem
// PTX100: ret;
