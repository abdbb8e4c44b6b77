// RUN: lamport-opt %s -convert-lamport-to-nvvm | FileCheck %s
// RUN: lamport-opt %s -lamport-lower-to-nvvm | %python %S/../Inputs/extract_ptx.py > %t.sm90.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.sm90.ptx
// RUN: %ptxas -arch=sm_90 %t.sm90.ptx -o /dev/null
// RUN: lamport-opt %s -lamport-lower-to-nvvm=chip=sm_100a | %python %S/../Inputs/extract_ptx.py > %t.sm100a.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.sm100a.ptx
// RUN: %ptxas -arch=sm_100a %t.sm100a.ptx -o /dev/null
// REQUIRES: ptxas

// `release_before` orders this thread's earlier reads and re-arms before the
// published data with a system-scope release fence ahead of the stores;
// without it a publish has no fence at all.

!mb = !lamport.mailbox<tp = 2, capacity = 8, width = 512>

gpu.module @publish_release {
  // CHECK-LABEL: gpu.func @release_before
  // CHECK: llvm.fence acq_rel
  // CHECK-NOT: syncscope
  // CHECK: llvm.store
  // CHECK: llvm.store
  // CHECK: llvm.fence acq_rel
  // CHECK: llvm.inline_asm has_side_effects "multimem.st
  // CHECK: gpu.return
  gpu.func @release_before(%mb: !mb, %src: memref<8x512xbf16, 1>, %stage: i32)
      kernel {
    %row = gpu.block_id x
    %tid = gpu.thread_id x
    %c8 = arith.constant 8 : index
    %col = arith.muli %tid, %c8 : index
    %v = vector.load %src[%row, %col] {alignment = 16}
        : memref<8x512xbf16, 1>, vector<8xbf16>
    lamport.mailbox.publish %v, %mb[%stage, %row, %col]
        {release_before, transport = #lamport.transport<unicast>}
        : vector<8xbf16>, !mb
    lamport.mailbox.publish %v, %mb[%stage, %row, %col]
        {release_before, transport = #lamport.transport<multicast>}
        : vector<8xbf16>, !mb
    gpu.return
  }

  // CHECK-LABEL: gpu.func @no_release
  // CHECK-NOT: llvm.fence
  // CHECK: gpu.return
  gpu.func @no_release(%mb: !mb, %src: memref<8x512xbf16, 1>, %stage: i32)
      kernel {
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

// PTX-LABEL: .visible .entry release_before(
// PTX-NOT: st.global
// PTX: fence.acq_rel.sys;
// PTX: st.global
// PTX: fence.acq_rel.sys;
// PTX-NOT: st.global
// PTX: multimem.st.relaxed.sys.global.v4.f32

// PTX-LABEL: .visible .entry no_release(
// PTX-NOT: fence
// PTX: ret;
