// RUN: lamport-opt %s -convert-lamport-to-nvvm | FileCheck %s
// RUN: lamport-opt %s -lamport-lower-to-nvvm | %python %S/../Inputs/extract_ptx.py > %t.sm90.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.sm90.ptx
// RUN: %ptxas -arch=sm_90 %t.sm90.ptx -o /dev/null
// RUN: lamport-opt %s -lamport-lower-to-nvvm=chip=sm_100a | %python %S/../Inputs/extract_ptx.py > %t.sm100a.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.sm100a.ptx
// RUN: %ptxas -arch=sm_100a %t.sm100a.ptx -o /dev/null
// REQUIRES: ptxas

// A multicast publish: one multimem.st of 16 bytes per fragment to the
// multicast address of slot [stage, rank], every operand in a register.

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 1024>

gpu.module @publish_multicast {
  // CHECK-LABEL: gpu.func @one_fragment
  // CHECK-SAME: (%[[MB:.*]]: !llvm.struct<{{.*}}>, %{{.*}}: memref<16x1024xbf16, 1>, %[[STAGE:.*]]: i32)
  // CHECK: %[[VALUE:.*]] = vector.load
  // CHECK: %[[WORDS:.*]] = llvm.bitcast %[[VALUE]] : vector<8xbf16> to vector<4xi32>
  // The -0.0 lanes become +0.0 (sentinel.mlir checks the integer ops).
  // CHECK: %[[CLEAN:.*]] = llvm.xor %[[WORDS]], %{{.*}} : vector<4xi32>
  // Element ((stage * 8 + rank) * 16 + row) * 1024 + col of the multicast copy.
  // CHECK: %[[RANK:.*]] = llvm.extractvalue %[[MB]][4]
  // CHECK: %[[RANK64:.*]] = llvm.zext %[[RANK]] : i32 to i64
  // CHECK: %[[STAGE64:.*]] = llvm.zext %[[STAGE]] : i32 to i64
  // CHECK: %[[TP:.*]] = llvm.mlir.constant(8 : i64)
  // CHECK: %[[S:.*]] = llvm.mul %[[STAGE64]], %[[TP]] overflow<nuw>
  // CHECK: %[[SLOT:.*]] = llvm.add %[[S]], %[[RANK64]] overflow<nuw>
  // CHECK: %[[CAP:.*]] = llvm.mlir.constant(16 : i64)
  // CHECK: %[[R:.*]] = llvm.mul %[[SLOT]], %[[CAP]] overflow<nuw>
  // CHECK: %[[ROW:.*]] = llvm.add %[[R]], %{{.*}} overflow<nuw>
  // CHECK: %[[WIDTH:.*]] = llvm.mlir.constant(1024 : i64)
  // CHECK: %[[C:.*]] = llvm.mul %[[ROW]], %[[WIDTH]] overflow<nuw>
  // CHECK: %[[ELEMENT:.*]] = llvm.add %[[C]], %{{.*}} overflow<nuw>
  // CHECK: %[[MULTICAST:.*]] = llvm.extractvalue %[[MB]][1]
  // CHECK: %[[ADDRESS:.*]] = llvm.getelementptr inbounds %[[MULTICAST]][%[[ELEMENT]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i16
  // CHECK: %[[W0:.*]] = llvm.extractelement %[[CLEAN]]
  // CHECK: %[[W1:.*]] = llvm.extractelement %[[CLEAN]]
  // CHECK: %[[W2:.*]] = llvm.extractelement %[[CLEAN]]
  // CHECK: %[[W3:.*]] = llvm.extractelement %[[CLEAN]]
  // CHECK: llvm.inline_asm has_side_effects "multimem.st.relaxed.sys.global.v4.f32 [$0], {$1, $2, $3, $4};", "l,r,r,r,r,~{memory}" %[[ADDRESS]], %[[W0]], %[[W1]], %[[W2]], %[[W3]]
  // CHECK-NOT: llvm.store
  // CHECK: gpu.return
  gpu.func @one_fragment(%mb: !mb, %src: memref<16x1024xbf16, 1>, %stage: i32)
      kernel {
    %row = gpu.block_id x
    %tid = gpu.thread_id x
    %c8 = arith.constant 8 : index
    %col = arith.muli %tid, %c8 : index
    %v = vector.load %src[%row, %col] {alignment = 16}
        : memref<16x1024xbf16, 1>, vector<8xbf16>
    lamport.mailbox.publish %v, %mb[%stage, %row, %col]
        {transport = #lamport.transport<multicast>} : vector<8xbf16>, !mb
    gpu.return
  }

  // Two fragments: the words are split into two 16-byte halves, each stored
  // one fragment (8 BF16, 16 bytes) further.
  // CHECK-LABEL: gpu.func @two_fragments
  // CHECK: %[[WORDS:.*]] = llvm.bitcast %{{.*}} : vector<16xbf16> to vector<8xi32>
  // CHECK: %[[CLEAN:.*]] = llvm.xor %[[WORDS]], %{{.*}} : vector<8xi32>
  // CHECK: %[[LOW:.*]] = llvm.shufflevector %[[CLEAN]], %[[CLEAN]] [0, 1, 2, 3]
  // CHECK: %[[HIGH:.*]] = llvm.shufflevector %[[CLEAN]], %[[CLEAN]] [4, 5, 6, 7]
  // CHECK: %[[MULTICAST:.*]] = llvm.extractvalue %{{.*}}[1]
  // CHECK: %[[FIRST:.*]] = llvm.getelementptr inbounds %[[MULTICAST]][%{{.*}}]
  // CHECK: llvm.extractelement %[[LOW]]
  // CHECK: llvm.inline_asm has_side_effects "multimem.st.relaxed.sys.global.v4.f32 {{.*}}" %[[FIRST]],
  // CHECK: %[[SECOND:.*]] = llvm.getelementptr inbounds %[[FIRST]][8] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i16
  // CHECK: llvm.extractelement %[[HIGH]]
  // CHECK: llvm.inline_asm has_side_effects "multimem.st.relaxed.sys.global.v4.f32 {{.*}}" %[[SECOND]],
  // CHECK-NOT: llvm.inline_asm
  // CHECK: gpu.return
  gpu.func @two_fragments(%mb: !mb, %src: memref<16x1024xbf16, 1>, %stage: i32)
      kernel {
    %row = gpu.block_id x
    %tid = gpu.thread_id x
    %c16 = arith.constant 16 : index
    %col = arith.muli %tid, %c16 : index
    %v = vector.load %src[%row, %col] {alignment = 16}
        : memref<16x1024xbf16, 1>, vector<16xbf16>
    lamport.mailbox.publish %v, %mb[%stage, %row, %col]
        {transport = #lamport.transport<multicast>} : vector<16xbf16>, !mb
    gpu.return
  }
}

// PTX-LABEL: .visible .entry one_fragment(
// The multicast address is the descriptor's second field.
// PTX: ld.param.b64 %rd{{[0-9]+}}, [one_fragment_param_0+8];
// PTX: multimem.st.relaxed.sys.global.v4.f32 [%rd{{[0-9]+}}], {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}};
// PTX-NOT: multimem.st
// PTX-NOT: st.global
// PTX: ret;

// PTX-LABEL: .visible .entry two_fragments(
// PTX: multimem.st.relaxed.sys.global.v4.f32 [%rd{{[0-9]+}}], {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}};
// PTX: multimem.st.relaxed.sys.global.v4.f32 [%rd{{[0-9]+}}], {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}};
// PTX-NOT: multimem.st
// PTX-NOT: st.global
// PTX: ret;
