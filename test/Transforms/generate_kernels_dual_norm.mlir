// RUN: lamport-opt %s --lamport-generate-kernels --split-input-file | FileCheck %s

// The standalone dual norm after an external all-reduce: no mailbox, r is the
// BF16 `reduced` row widened; everything else is the fused kernel's body
// (test/Transforms/generate_kernels_all_reduce_dual_norm.mlir), with the same
// launch shape for the same H: at H = 8192 a cluster of 8 CTAs of 128 threads
// per token, 16 rows when M is dynamic; the old stream loads before r.

// CHECK-LABEL: func.func @attention_boundary_unfused
//  CHECK-SAME: (%[[REDUCED:[a-z0-9_]+]]: memref<?x8192xbf16>
//       CHECK: %[[M:.*]] = memref.dim %[[REDUCED]], %{{.*}} : memref<?x8192xbf16>
//       CHECK: %[[TOKENS:.*]] = arith.index_castui %[[M]] : index to i32
//   CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : index
//   CHECK-DAG: %[[EIGHT:.*]] = arith.constant 8 : index
//   CHECK-DAG: %[[ROWS:.*]] = arith.constant 16 : index
//   CHECK-DAG: %[[THREADS:.*]] = arith.constant 128 : index
//       CHECK: gpu.launch_func @dual_norm_0::@dual_norm_0
//  CHECK-SAME: clusters in (%[[ONE]], %[[EIGHT]], %[[ONE]])
//  CHECK-SAME: blocks in (%[[ROWS]], %[[EIGHT]], %[[ONE]])
//  CHECK-SAME: threads in (%[[THREADS]], %[[ONE]], %[[ONE]])
//  CHECK-SAME: args(%{{.*}} : memref<16x8192xbf16, 1>, %{{.*}} : memref<16x8192xf32, 1>, %{{.*}} : memref<1xf32, 1>, %{{.*}} : memref<1xf32, 1>, %{{.*}} : memref<8192xbf16, 1>, %{{.*}} : memref<8192xbf16, 1>, %{{.*}} : memref<16x8192xbf16, 1>, %[[TOKENS]] : i32)

//       CHECK: gpu.module @dual_norm_0
//       CHECK: gpu.func @dual_norm_0(
//  CHECK-SAME: %[[KREDUCED:[a-z0-9_]+]]: memref<16x8192xbf16, 1> {lamport.io = "in", lamport.param = "buffer", lamport.role = "reduced"}
//  CHECK-SAME: %[[KSTREAM:[a-z0-9_]+]]: memref<16x8192xf32, 1> {lamport.io = "inout", lamport.param = "buffer", lamport.role = "stream"}
//  CHECK-SAME: memref<1xf32, 1> {lamport.io = "in", lamport.param = "buffer", lamport.role = "alpha"}
//  CHECK-SAME: memref<1xf32, 1> {lamport.io = "in", lamport.param = "buffer", lamport.role = "beta"}
//  CHECK-SAME: memref<8192xbf16, 1> {lamport.io = "in", lamport.param = "buffer", lamport.role = "post_weight"}
//  CHECK-SAME: memref<8192xbf16, 1> {lamport.io = "in", lamport.param = "buffer", lamport.role = "next_weight"}
//  CHECK-SAME: %[[KOUT:[a-z0-9_]+]]: memref<16x8192xbf16, 1> {lamport.io = "out", lamport.param = "buffer", lamport.role = "out"}
//  CHECK-SAME: %{{.*}}: i32 {lamport.param = "tokens"}) kernel
//  CHECK-SAME: known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 16, 8, 1>
//  CHECK-SAME: lamport.attributes = {eps = 9.99999997E-7 : f32}
//  CHECK-SAME: lamport.op = "dual_norm", lamport.pdl
//   CHECK-NOT: lamport.stage
//   CHECK-NOT: lamport.mailbox
//       CHECK: %[[TOKEN:.*]] = gpu.block_id x
//       CHECK: %[[CTA:.*]] = gpu.block_id y
//       CHECK: %[[ACTIVE:.*]] = arith.cmpi ult, %[[TOKEN]]
//       CHECK: arith.muli %[[CTA]], %{{.*}} : index
//       CHECK: %[[COL:.*]] = arith.muli %{{.*}}, %{{.*}} : index
//       CHECK: scf.if %[[ACTIVE]] -> (vector<8xbf16>, vector<8xbf16>)
//       CHECK: lamport.pdl.wait %{{.*}}, %{{.*}} : memref<16x8192xbf16, 1>
//  CHECK-NEXT: nvvm.cluster.wait
//  CHECK-NEXT: scf.if %[[ACTIVE]] {
//       CHECK:   vector.load %[[KSTREAM]][%[[TOKEN]], %[[COL]]]
//       CHECK:   %[[NARROW:.*]] = vector.load %[[KREDUCED]][%[[TOKEN]], %[[COL]]] {alignment = 16 : i64} : memref<16x8192xbf16, 1>, vector<8xbf16>
//  CHECK-NEXT:   %[[R:.*]] = arith.extf %[[NARROW]] : vector<8xbf16> to vector<8xf32>
//  CHECK-NEXT:   nvvm.griddepcontrol launch_dependents
//       CHECK:   arith.mulf %[[R]], %[[R]] : vector<8xf32>
// CHECK-COUNT-5:   nvvm.shfl.sync bfly
//       CHECK:   nvvm.barrier0
//       CHECK:   lamport.cluster.send
//       CHECK:   lamport.cluster.wait
//       CHECK:   llvm.call_intrinsic "llvm.nvvm.sqrt.rn.f"
//       CHECK:   arith.mulf %[[R]], %{{.*}} : vector<8xf32>
// CHECK-COUNT-5:   nvvm.shfl.sync bfly
//       CHECK:   lamport.cluster.send
//       CHECK:   lamport.cluster.wait
//   CHECK-NOT:   nvvm.cluster
//       CHECK:   llvm.call_intrinsic "llvm.nvvm.sqrt.rn.f"
//       CHECK:   vector.store %{{.*}}, %[[KSTREAM]][%[[TOKEN]], %[[COL]]]
//       CHECK:   arith.truncf %{{.*}} : vector<8xf32> to vector<8xbf16>
//       CHECK:   vector.store %{{.*}}, %[[KOUT]][%[[TOKEN]], %[[COL]]] {{.*}}
//  CHECK-NEXT: }
//  CHECK-NEXT: gpu.return
func.func @attention_boundary_unfused(
    %reduced: memref<?x8192xbf16>, %stream: memref<?x8192xf32>,
    %alpha: memref<1xf32>, %beta: memref<1xf32>,
    %post_weight: memref<8192xbf16>, %next_weight: memref<8192xbf16>,
    %out: memref<?x8192xbf16>) {
  lamport.dual_norm %reduced, %stream gates(%alpha, %beta)
      post_weight %post_weight : memref<8192xbf16>
      next_weight %next_weight into %out {pdl}
      : memref<?x8192xbf16>, memref<?x8192xf32>, memref<1xf32>,
        memref<1xf32>, memref<8192xbf16>, memref<?x8192xbf16>
  return
}

// -----

// A hidden size that is no whole multiple of the cluster's threads:
// H = 9216 is 1152 fragments, clusters of 8 CTAs of 128 threads take 1024
// at a time, so each thread has 2 fragments and the second one is guarded
// (f < 1152): outside the row it loads nothing, squares to nothing and
// stores nothing. A static M of 3 (stream's) sizes the grid.

// CHECK-LABEL: func.func @two_fragments
//       CHECK: gpu.launch_func @dual_norm_0::@dual_norm_0
//  CHECK-SAME: %{{.*}} : memref<3x9216xbf16, 1>, %{{.*}} : memref<3x9216xf32, 1>, %{{.*}} : memref<9216xf32, 1>, %{{.*}} : memref<1xf32, 1>, %{{.*}} : memref<9216xbf16, 1>, %{{.*}} : memref<3x9216xbf16, 1>, %{{.*}} : i32)
//       CHECK: gpu.func @dual_norm_0(
//  CHECK-SAME: known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 3, 8, 1>
//       CHECK: %[[FIRST:.*]] = arith.addi %{{.*}}, %{{.*}} : index
//       CHECK: %[[F0:.*]] = arith.addi %[[FIRST]], %c0 : index
//       CHECK: %[[COL0:.*]] = arith.muli %[[F0]], %{{.*}} : index
//       CHECK: %[[F1:.*]] = arith.addi %[[FIRST]], %c1024 : index
//       CHECK: %[[IN:.*]] = arith.cmpi ult, %[[F1]], %c1152 : index
//       CHECK: %[[COL1:.*]] = arith.muli %[[F1]], %{{.*}} : index
//       CHECK: vector.load %{{.*}}[%[[COL0]]]
//       CHECK: %[[BOTH:.*]] = arith.andi %{{.*}}, %[[IN]] : i1
//       CHECK: scf.if %[[BOTH]] -> (vector<8xbf16>)
//       CHECK:   vector.load %{{.*}}[%[[COL1]]]
//       CHECK: scf.if
//       CHECK:   vector.load %{{.*}}[%{{.*}}, %[[COL0]]] {{.*}} vector<8xbf16>
//       CHECK:   scf.if %[[IN]] -> (vector<8xf32>) {
//  CHECK-NEXT:     vector.load %{{.*}}[%{{.*}}, %[[COL1]]] {{.*}} vector<8xbf16>
//       CHECK:   } else {
//       CHECK:   arith.select %[[IN]]
//       CHECK:   nvvm.shfl.sync bfly
//       CHECK:   arith.select %[[IN]]
//       CHECK:   nvvm.shfl.sync bfly
//       CHECK:   vector.store %{{.*}}[%{{.*}}, %[[COL0]]]
//       CHECK:   scf.if %[[IN]] {
//       CHECK:     vector.store %{{.*}}[%{{.*}}, %[[COL1]]]
func.func @two_fragments(
    %reduced: memref<?x9216xbf16>, %stream: memref<3x9216xf32>,
    %alpha: memref<9216xf32>, %beta: memref<1xf32>,
    %next_weight: memref<9216xbf16>, %out: memref<?x9216xbf16>) {
  lamport.dual_norm %reduced, %stream gates(%alpha, %beta)
      next_weight %next_weight into %out
      : memref<?x9216xbf16>, memref<3x9216xf32>, memref<9216xf32>,
        memref<1xf32>, memref<9216xbf16>, memref<?x9216xbf16>
  return
}

// -----

// The smallest row: H = 256 is one warp's 32 fragments, one CTA of 32
// threads per token, no cluster.

// CHECK-LABEL: func.func @one_warp
//       CHECK: gpu.launch_func @dual_norm_0::@dual_norm_0 blocks in
//       CHECK: llvm.mlir.global internal @warp_sums() {{.*}} : !llvm.array<2 x f32>
//       CHECK: gpu.func @dual_norm_0(
//  CHECK-SAME: known_block_size = array<i32: 32, 1, 1>, known_grid_size = array<i32: 16, 1, 1>
//   CHECK-NOT: nvvm.cluster
//   CHECK-NOT: lamport.cluster.send
//       CHECK: gpu.return
func.func @one_warp(%reduced: memref<?x256xbf16>, %stream: memref<?x256xf32>,
                    %alpha: memref<1xf32>, %beta: memref<1xf32>,
                    %next_weight: memref<256xbf16>,
                    %out: memref<?x256xbf16>) {
  lamport.dual_norm %reduced, %stream gates(%alpha, %beta)
      next_weight %next_weight into %out
      : memref<?x256xbf16>, memref<?x256xf32>, memref<1xf32>, memref<1xf32>,
        memref<256xbf16>, memref<?x256xbf16>
  return
}
