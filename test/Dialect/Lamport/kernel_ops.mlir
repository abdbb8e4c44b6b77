// RUN: lamport-opt %s -split-input-file | FileCheck %s
// RUN: lamport-opt %s -split-input-file -mlir-print-op-generic | lamport-opt -split-input-file | FileCheck %s

// The mechanisms the generated kernels share print and parse back: cluster
// exchanges, the guarded PDL wait and the L2-policy loads.

// CHECK-LABEL: gpu.func @cluster_exchange
// CHECK: lamport.cluster.expect_bytes %{{.*}}, 3072 : !llvm.ptr<3>
// CHECK: lamport.cluster.send %{{.*}} to %{{.*}} of %{{.*}} completing %{{.*}} : f32
// CHECK: lamport.cluster.send %{{.*}} to %{{.*}} of %{{.*}} completing %{{.*}} : i32
// CHECK: lamport.cluster.wait %{{.*}} : !llvm.ptr<3>
gpu.module @kernels {
  gpu.func @cluster_exchange(%barrier: !llvm.ptr<3>, %slot: !llvm.ptr<3>,
                             %sum: f32, %bits: i32, %rank: i32) kernel {
    lamport.cluster.expect_bytes %barrier, 3072 : !llvm.ptr<3>
    lamport.cluster.send %sum to %slot of %rank completing %barrier : f32
    lamport.cluster.send %bits to %slot of %rank completing %barrier : i32
    lamport.cluster.wait %barrier : !llvm.ptr<3>
    gpu.return
  }
}

// -----

// CHECK-LABEL: gpu.func @streaming_loads
// CHECK: %[[POLICY:.*]] = lamport.l2.evict_first_policy
// CHECK: lamport.l2.load_fragment %{{.*}}, %[[POLICY]] : !llvm.ptr<1> -> vector<4xi32>
// CHECK: lamport.pdl.wait %{{.*}}, %{{.*}} : memref<16x1024xbf16, 1>
// CHECK: lamport.pdl.wait %{{.*}}, %{{.*}}, %{{.*}} : memref<16x1024xbf16, 1>
gpu.module @kernels {
  gpu.func @streaming_loads(%weights: !llvm.ptr<1>, %tokens: i32,
                            %y: memref<16x1024xbf16, 1>, %digest: i64) kernel {
    %policy = lamport.l2.evict_first_policy
    %words = lamport.l2.load_fragment %weights, %policy
        : !llvm.ptr<1> -> vector<4xi32>
    lamport.pdl.wait %tokens, %y : memref<16x1024xbf16, 1>
    lamport.pdl.wait %tokens, %y, %digest : memref<16x1024xbf16, 1>
    gpu.return
  }
}

// -----

// The ring of shared-memory stages the bulk-copy engine fills.
// CHECK-LABEL: gpu.func @stage_ring
// CHECK: lamport.ring.init %{{.*}}, 1 : !llvm.ptr<3>
// CHECK: lamport.ring.init %{{.*}}, 256 : !llvm.ptr<3>
// CHECK: lamport.ring.wait %{{.*}}, 1 : !llvm.ptr<3>
// CHECK: lamport.ring.expect %{{.*}}, 2048 : !llvm.ptr<3>
// CHECK: lamport.bulk.copy 1024 from %{{.*}} into %{{.*}} completing %{{.*}}, %{{.*}} : !llvm.ptr<1>
// CHECK: lamport.ring.wait %{{.*}}, 0 : !llvm.ptr<3>
// CHECK: lamport.ring.release %{{.*}} : !llvm.ptr<3>
gpu.module @kernels {
  gpu.func @stage_ring(%full: !llvm.ptr<3>, %empty: !llvm.ptr<3>,
                       %stage: !llvm.ptr<3>, %weight: !llvm.ptr<1>) kernel {
    lamport.ring.init %full, 1 : !llvm.ptr<3>
    lamport.ring.init %empty, 256 : !llvm.ptr<3>
    %policy = lamport.l2.evict_first_policy
    lamport.ring.wait %empty, 1 : !llvm.ptr<3>
    lamport.ring.expect %full, 2048 : !llvm.ptr<3>
    lamport.bulk.copy 1024 from %weight into %stage completing %full, %policy
        : !llvm.ptr<1>
    lamport.ring.wait %full, 0 : !llvm.ptr<3>
    lamport.ring.release %empty : !llvm.ptr<3>
    gpu.return
  }
}

// -----

// A box of a 2-D tensor by its tensor map: element (inner, outer) first.
// CHECK-LABEL: gpu.func @tensor_stage
// CHECK: lamport.bulk.copy_tensor 8192 from %{{.*}}[%{{.*}}, %{{.*}}] into %{{.*}} completing %{{.*}}, %{{.*}} : !llvm.ptr
gpu.module @kernels {
  gpu.func @tensor_stage(%full: !llvm.ptr<3>, %stage: !llvm.ptr<3>,
                         %map: !llvm.ptr, %k: i32, %row: i32) kernel {
    %policy = lamport.l2.evict_first_policy
    lamport.bulk.copy_tensor 8192 from %map[%k, %row] into %stage
        completing %full, %policy : !llvm.ptr
    gpu.return
  }
}
