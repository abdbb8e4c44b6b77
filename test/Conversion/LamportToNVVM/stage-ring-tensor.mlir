// RUN: lamport-opt %s -convert-lamport-to-nvvm | FileCheck %s
// RUN: lamport-opt %s -lamport-lower-to-nvvm | %python %S/../Inputs/extract_ptx.py > %t.sm90.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.sm90.ptx
// RUN: %ptxas -arch=sm_90 %t.sm90.ptx -o /dev/null
// RUN: lamport-opt %s -lamport-lower-to-nvvm="chip=sm_100a" | %python %S/../Inputs/extract_ptx.py > %t.sm100a.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.sm100a.ptx
// RUN: %ptxas -arch=sm_100a %t.sm100a.ptx -o /dev/null
// REQUIRES: ptxas

// A stage filled by a tensor copy: the upstream NVVM op with the L2
// policy, and the kernel's tensor map parameter (listed in
// lamport.tensor_map_args) made a 64-byte aligned byval grid constant, which
// the kernel addresses in place.

module attributes {gpu.container_module} {
  gpu.module @kernels {
    llvm.mlir.global internal @full() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<1 x i64>
    llvm.mlir.global internal @stage() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<4096 x i8>

    // CHECK-LABEL: gpu.func @tensor_stage
    // PTX-LABEL: .entry tensor_stage
    // PTX: .param .align 64 .b8 tensor_stage_param_1[128]
    gpu.func @tensor_stage(%weight: !llvm.ptr<1>,
                           %map: !llvm.ptr {llvm.align = 64 : i64},
                           %k: i32) kernel
        attributes {lamport.tensor_map_args = array<i64: 1>} {
      %full = llvm.mlir.addressof @full : !llvm.ptr<3>
      %stage = llvm.mlir.addressof @stage : !llvm.ptr<3>
      %row = arith.constant 32 : i32
      %policy = lamport.l2.evict_first_policy
      // CHECK: %[[CLUSTER:.*]] = llvm.addrspacecast %{{.*}} : !llvm.ptr<3> to !llvm.ptr<7>
      // CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %[[CLUSTER]], %{{.*}}, %{{.*}}, box[%{{.*}}, %{{.*}}] l2_cache_hint = %{{.*}} : !llvm.ptr<7>, !llvm.ptr
      // PTX: cvta.param.u64
      // PTX: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.L2::cache_hint
      lamport.bulk.copy_tensor 4096 from %map[%k, %row] into %stage
          completing %full, %policy : !llvm.ptr
      // A consumer's release of a slot tensor copies refill: the proxy
      // fence, then the arrival.
      // CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
      // CHECK-NEXT: nvvm.mbarrier.arrive
      // PTX: fence.proxy.async.shared::cta;
      // PTX-NEXT: mbarrier.arrive.shared.b64
      lamport.ring.release %full fenced : !llvm.ptr<3>
      gpu.return
    }
  }
}
