// RUN: lamport-opt %s -convert-lamport-to-nvvm | FileCheck %s
// RUN: lamport-opt %s -lamport-lower-to-nvvm | %python %S/../Inputs/extract_ptx.py > %t.sm90.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.sm90.ptx
// RUN: %ptxas -arch=sm_90 %t.sm90.ptx -o /dev/null
// RUN: lamport-opt %s -lamport-lower-to-nvvm="chip=sm_100a" | %python %S/../Inputs/extract_ptx.py > %t.sm100a.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.sm100a.ptx
// RUN: %ptxas -arch=sm_100a %t.sm100a.ptx -o /dev/null
// REQUIRES: ptxas

// The ring of shared-memory stages, lowered to upstream NVVM ops: mbarrier
// set-up (with the init fence for the bulk-copy engine), the producer's
// arrival expecting the stage's bytes, the bulk copy under the L2 policy,
// the parity wait and the consumer's release.

module attributes {gpu.container_module} {
  gpu.module @kernels {
    llvm.mlir.global internal @full() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<1 x i64>
    llvm.mlir.global internal @empty() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<1 x i64>
    llvm.mlir.global internal @stage() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<256 x i32>

    // CHECK-LABEL: gpu.func @one_stage
    // PTX-LABEL: .entry one_stage
    gpu.func @one_stage(%weight: !llvm.ptr<1>, %out: !llvm.ptr<1>) kernel {
      %full = llvm.mlir.addressof @full : !llvm.ptr<3>
      %empty = llvm.mlir.addressof @empty : !llvm.ptr<3>
      %stage = llvm.mlir.addressof @stage : !llvm.ptr<3>
      // CHECK: %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
      // CHECK: nvvm.mbarrier.init %{{.*}}, %[[ONE]] : !llvm.ptr<3>, i32
      // CHECK-NEXT: nvvm.fence.mbarrier.init
      // CHECK: %[[THREADS:.*]] = llvm.mlir.constant(128 : i32) : i32
      // CHECK: nvvm.mbarrier.init %{{.*}}, %[[THREADS]] : !llvm.ptr<3>, i32
      // PTX: mbarrier.init.shared.b64 [full], %r{{[0-9]+}};
      // PTX: fence.mbarrier_init.release.cluster;
      // PTX: mbarrier.init.shared.b64 [empty], %r{{[0-9]+}};
      lamport.ring.init %full, 1 : !llvm.ptr<3>
      lamport.ring.init %empty, 128 : !llvm.ptr<3>
      nvvm.barrier0
      %policy = lamport.l2.evict_first_policy
      // CHECK: %[[BYTES:.*]] = llvm.mlir.constant(1024 : i32) : i32
      // CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %[[BYTES]] : !llvm.ptr<3>, i32
      // PTX: mbarrier.arrive.expect_tx.shared.b64 %rd{{[0-9]+}}, [full], %r{{[0-9]+}};
      lamport.ring.expect %full, 1024 : !llvm.ptr<3>
      // CHECK: %[[INTO:.*]] = llvm.addrspacecast %{{.*}} : !llvm.ptr<3> to !llvm.ptr<7>
      // CHECK: %[[SIZE:.*]] = llvm.mlir.constant(1024 : i32) : i32
      // CHECK: nvvm.cp.async.bulk.shared.cluster.global %[[INTO]], %{{.*}}, %{{.*}}, %[[SIZE]] l2_cache_hint = %{{.*}} : !llvm.ptr<7>, <1>
      // PTX: cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint [%{{.*}}], [%rd{{[0-9]+}}], %r{{[0-9]+}}, [full], %rd{{[0-9]+}};
      lamport.bulk.copy 1024 from %weight into %stage completing %full, %policy
          : !llvm.ptr<1>
      // CHECK: %[[PARITY:.*]] = llvm.mlir.constant(0 : i32) : i32
      // CHECK: nvvm.mbarrier.try_wait.parity %{{.*}}, %[[PARITY]], %{{.*}} : !llvm.ptr<3>, i32, i32
      // PTX: mbarrier.try_wait.parity.shared.b64
      lamport.ring.wait %full, 0 : !llvm.ptr<3>
      %words = llvm.load %stage {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xi32>
      // CHECK: nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<3>
      // PTX: mbarrier.arrive.shared.b64
      lamport.ring.release %empty : !llvm.ptr<3>
      // CHECK: %[[ODD:.*]] = llvm.mlir.constant(1 : i32) : i32
      // CHECK: nvvm.mbarrier.try_wait.parity %{{.*}}, %[[ODD]], %{{.*}} : !llvm.ptr<3>, i32, i32
      lamport.ring.wait %empty, 1 : !llvm.ptr<3>
      llvm.store %words, %out {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<1>
      gpu.return
    }
  }
}
