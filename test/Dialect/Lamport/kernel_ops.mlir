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
