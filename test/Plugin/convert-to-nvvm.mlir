// RUN: %mlir_opt_lamport %s --pass-pipeline='builtin.module(gpu.module(convert-lamport-to-nvvm))' | FileCheck %s

// convert-lamport-to-nvvm, registered by the pass plugin, lowers the
// kernel-level primitives of a gpu.module: the mailbox argument becomes the
// descriptor struct and the stage words are volatile loads and stores.

!mb = !lamport.mailbox<tp = 2, capacity = 8, width = 512>

gpu.module @stage {
  // CHECK-LABEL: gpu.func @advance
  // CHECK-SAME: (%[[MB:.*]]: !llvm.struct<(ptr<1>, ptr<1>, ptr<1>, ptr<1>, i32, i32, array<2 x ptr<1>>)>)
  // CHECK: %[[WORDS:.*]] = llvm.extractvalue %[[MB]][2]
  // CHECK: llvm.load volatile %[[WORDS]] {alignment = 4 : i64} : !llvm.ptr<1> -> i32
  // CHECK: llvm.fence acq_rel
  // CHECK: llvm.store volatile
  // CHECK-NOT: lamport.
  // CHECK: gpu.return
  gpu.func @advance(%mb: !mb) kernel {
    %active = lamport.stage.active %mb : !mb
    lamport.stage.set_active %mb, %active : !mb
    gpu.return
  }
}
