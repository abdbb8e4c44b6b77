// RUN: lamport-opt %s -convert-lamport-to-nvvm | FileCheck %s
// RUN: lamport-opt %s -lamport-lower-to-nvvm | %python %S/../Inputs/extract_ptx.py > %t.sm90.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.sm90.ptx
// RUN: %ptxas -arch=sm_90 %t.sm90.ptx -o /dev/null
// RUN: lamport-opt %s -lamport-lower-to-nvvm=chip=sm_100a | %python %S/../Inputs/extract_ptx.py > %t.sm100a.ptx
// RUN: %ptxas -arch=sm_100a %t.sm100a.ptx -o /dev/null
// REQUIRES: ptxas

// A routed publish (`to %rank`) stores each fragment once, into slot
// [stage, rank of the publisher] of one rank's copy, through its peer
// address; never through the multicast address, whatever the pass option.

!mb = !lamport.mailbox<tp = 4, capacity = 8, width = 512>

gpu.module @publish_route {
  // A constant target reads that one peer address.
  // CHECK-LABEL: gpu.func @constant_target
  // CHECK-SAME: (%[[MB:.*]]: !llvm.struct<{{.*}}>,
  // CHECK: %[[RANK:.*]] = llvm.extractvalue %[[MB]][4]
  // CHECK: %[[PEER:.*]] = llvm.extractvalue %[[MB]][6, 2]
  // CHECK: %[[ADDRESS:.*]] = llvm.getelementptr inbounds %[[PEER]][%{{.*}}]
  // CHECK: llvm.store %{{.*}}, %[[ADDRESS]] {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<1>
  // CHECK-NOT: llvm.store
  // CHECK-NOT: llvm.inline_asm
  // CHECK: gpu.return
  gpu.func @constant_target(%mb: !mb, %src: memref<8x512xbf16, 1>, %stage: i32)
      kernel {
    %row = gpu.block_id x
    %tid = gpu.thread_id x
    %c8 = arith.constant 8 : index
    %col = arith.muli %tid, %c8 : index
    %to = arith.constant 2 : i32
    %v = vector.load %src[%row, %col] {alignment = 16}
        : memref<8x512xbf16, 1>, vector<8xbf16>
    lamport.mailbox.publish %v, %mb[%stage, %row, %col] to %to
        : vector<8xbf16>, !mb
    gpu.return
  }

  // A target known at run time selects among the peers in registers; the
  // descriptor is never indexed through local memory.
  // CHECK-LABEL: gpu.func @dynamic_target
  // CHECK-SAME: (%[[MB:.*]]: !llvm.struct<{{.*}}>, %{{.*}}: memref<8x512xbf16, 1>, %{{.*}}: i32, %[[TO:.*]]: i32)
  // CHECK: %[[P0:.*]] = llvm.extractvalue %[[MB]][6, 0]
  // CHECK: %[[IS1:.*]] = llvm.icmp "eq" %[[TO]], %{{.*}} : i32
  // CHECK: %[[P1:.*]] = llvm.extractvalue %[[MB]][6, 1]
  // CHECK: %[[S1:.*]] = llvm.select %[[IS1]], %[[P1]], %[[P0]]
  // CHECK: %[[IS2:.*]] = llvm.icmp "eq" %[[TO]], %{{.*}} : i32
  // CHECK: %[[P2:.*]] = llvm.extractvalue %[[MB]][6, 2]
  // CHECK: %[[S2:.*]] = llvm.select %[[IS2]], %[[P2]], %[[S1]]
  // CHECK: %[[IS3:.*]] = llvm.icmp "eq" %[[TO]], %{{.*}} : i32
  // CHECK: %[[P3:.*]] = llvm.extractvalue %[[MB]][6, 3]
  // CHECK: %[[PEER:.*]] = llvm.select %[[IS3]], %[[P3]], %[[S2]]
  // CHECK: %[[FIRST:.*]] = llvm.getelementptr inbounds %[[PEER]][%{{.*}}]
  // CHECK: llvm.store %{{.*}}, %[[FIRST]] {alignment = 16 : i64}
  // CHECK: %[[SECOND:.*]] = llvm.getelementptr inbounds %[[FIRST]][8]
  // CHECK: llvm.store %{{.*}}, %[[SECOND]] {alignment = 16 : i64}
  // CHECK-NOT: llvm.store
  // CHECK-NOT: llvm.inline_asm
  // CHECK: gpu.return
  gpu.func @dynamic_target(%mb: !mb, %src: memref<8x512xbf16, 1>, %stage: i32,
                           %to: i32) kernel {
    %row = gpu.block_id x
    %tid = gpu.thread_id x
    %c16 = arith.constant 16 : index
    %col = arith.muli %tid, %c16 : index
    %v = vector.load %src[%row, %col] {alignment = 16}
        : memref<8x512xbf16, 1>, vector<16xbf16>
    lamport.mailbox.publish %v, %mb[%stage, %row, %col] to %to
        : vector<16xbf16>, !mb
    gpu.return
  }
}

// PTX-LABEL: .visible .entry constant_target(
// The third peer sits at byte 40 + 2 * 8.
// PTX: ld.param.b64 %rd{{[0-9]+}}, [constant_target_param_0+56];
// PTX-NOT: ld.param.b64 %rd{{[0-9]+}}, [constant_target_param_0+{{40|48|64}}];
// PTX: st.global.v4.b32
// PTX-NOT: st.global
// PTX-NOT: multimem
// PTX: ret;

// PTX-LABEL: .visible .entry dynamic_target(
// PTX-NOT: .local
// PTX-COUNT-3: selp.b64
// PTX-COUNT-2: st.global.v4.b32
// PTX-NOT: st.global
// PTX-NOT: multimem
// PTX: ret;
