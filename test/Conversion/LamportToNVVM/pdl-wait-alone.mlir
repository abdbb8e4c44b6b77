// RUN: lamport-opt %s -convert-lamport-to-nvvm | FileCheck %s

// The PDL wait takes its guard's address through memref ops: the pass loads
// the memref dialect itself, so a kernel that uses no other memref op (its
// only memref the wait's guard) lowers as well as one that does.

gpu.module @kernels {
  // CHECK-LABEL: gpu.func @wait_only
  // CHECK: %[[ADDRESS:.*]] = memref.extract_aligned_pointer_as_index %{{.*}} : memref<16x1024xbf16, 1> -> index
  // CHECK: %[[WORD:.*]] = arith.index_castui %[[ADDRESS]] : index to i64
  // CHECK: %[[GUARD:.*]] = llvm.inttoptr %[[WORD]] : i64 to !llvm.ptr<1>
  // CHECK: llvm.inline_asm has_side_effects {{.*}}setp.gt.u32 never, $0, 2147483647{{.*}} %{{.*}}, %[[GUARD]]
  // CHECK-NEXT: nvvm.griddepcontrol wait
  gpu.func @wait_only(%tokens: i32, %y: memref<16x1024xbf16, 1>) kernel {
    lamport.pdl.wait %tokens, %y : memref<16x1024xbf16, 1>
    gpu.return
  }
}
