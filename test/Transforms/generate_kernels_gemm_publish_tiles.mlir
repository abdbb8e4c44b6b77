// RUN: lamport-opt %s --lamport-generate-kernels --split-input-file | FileCheck %s

// Several tiles of 16 features per CTA (`tiles` = R): the CTA owns 16 R
// features, each warp loads R tiles' weight rows and the activations once,
// and the R tiles' MMAs of one step share the B operand.

// o_proj at tp = 8 with 2 tiles: grid (8192 / 32, 1) = 256 CTAs of 16 warps;
// M = 4 takes the 8-token tile. Each lane loads 2 tiles x 2 rows x 2 chunks
// of weights and 2 chunks of x; 2 chunks x 2 steps x 2 tiles = 8 MMAs, two
// per B operand and side by side. The reduction's arrays hold 32 features:
// warp_partials 16 warps x 8 tokens x 32, split_sums 1 x 8 x 32.

// CHECK-LABEL: func.func @oproj_tp8_two_tiles
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[CTAS:.*]] = arith.constant 256 : index
// CHECK-DAG: %[[THREADS:.*]] = arith.constant 512 : index
// CHECK: gpu.launch_func @gemm_publish_0::@gemm_publish_0
// CHECK-SAME: blocks in (%[[CTAS]], %[[ONE]], %[[ONE]]) threads in (%[[THREADS]], %[[ONE]], %[[ONE]])
// CHECK: gpu.module @gemm_publish_0
// CHECK-DAG: llvm.mlir.global internal @warp_partials() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<4096 x f32>
// CHECK-DAG: llvm.mlir.global internal @split_sums() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<256 x f32>
// CHECK: gpu.func @gemm_publish_0
// CHECK-SAME: known_block_size = array<i32: 512, 1, 1>
// CHECK-SAME: known_grid_size = array<i32: 256, 1, 1>
// CHECK: %[[POLICY:.*]] = lamport.l2.evict_first_policy
// CHECK-COUNT-8: lamport.l2.load_fragment %{{.*}}, %[[POLICY]] : !llvm.ptr<1> -> vector<4xi32>
// CHECK-NOT: llvm.load
// CHECK: lamport.pdl.wait
// CHECK-COUNT-2: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xi32>
// CHECK-NOT: llvm.load
// Chunk 0, step 0: tile 0 then tile 1 on the same B, nothing loaded or
// extracted between them.
// CHECK: nvvm.mma.sync A[%{{.*}}]  B[%[[B0:[0-9]+]], %[[B1:[0-9]+]]]  C[%[[ZERO:[a-z0-9_]+]],
// CHECK-NOT: llvm.extractelement
// CHECK: nvvm.mma.sync A[%{{.*}}]  B[%[[B0]], %[[B1]]]  C[%[[ZERO]],
// Chunk 0, step 1 (the second accumulator): the same pairing.
// CHECK: nvvm.mma.sync A[%{{.*}}]  B[%[[B2:[0-9]+]], %[[B3:[0-9]+]]]  C[%[[ZERO]],
// CHECK-NOT: llvm.extractelement
// CHECK: nvvm.mma.sync A[%{{.*}}]  B[%[[B2]], %[[B3]]]  C[%[[ZERO]],
// Chunk 1 accumulates into them.
// CHECK-COUNT-4: nvvm.mma.sync
// CHECK-NOT: nvvm.mma.sync
// CHECK: nvvm.griddepcontrol launch_dependents
// Each lane's partials: 2 tiles x 4 values.
// CHECK-COUNT-8: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// The epilogue: 8 tokens x 4 fragments fit in one pass of the 512 threads.
// CHECK-COUNT-1: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<8xbf16>, !llvm.ptr<1>
// CHECK-NOT: vector<8xbf16>, !llvm.ptr<1>
// CHECK: gpu.return
func.func @oproj_tp8_two_tiles(%x: memref<4x1024xbf16>,
                               %w: memref<8192x1024xbf16>,
                               %y: memref<4x8192xbf16>) {
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 64, accs = 2, tiles = 2,
          token_tiles = [8, 8, 8, 8, 8, 8, 8, 8,
                         16, 16, 16, 16, 16, 16, 16, 16]>) {pdl}
      : memref<4x1024xbf16>, memref<8192x1024xbf16>, memref<4x8192xbf16>
  return
}

// -----

// Four tiles and a single warp: 16 tokens x 8 fragments = 128 (token,
// fragment) slots for 32 threads, so the epilogue takes 4 passes, each
// storing and publishing one fragment per thread. 2 chunks x 2 steps x
// 2 token blocks x 4 tiles = 32 MMAs.

!mb = !lamport.mailbox<tp = 4, capacity = 16, width = 64>

// CHECK-LABEL: func.func @four_tiles_one_warp
// CHECK: gpu.launch_func @gemm_publish_0::@gemm_publish_0
// CHECK-DAG: llvm.mlir.global internal @warp_partials() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<1024 x f32>
// CHECK-DAG: llvm.mlir.global internal @split_sums() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<1024 x f32>
// CHECK: gpu.func @gemm_publish_0
// CHECK-SAME: known_block_size = array<i32: 32, 1, 1>
// CHECK-SAME: known_grid_size = array<i32: 1, 1, 1>
// CHECK-SAME: lamport.attributes = {token_tile = 16 : i64, transport = #lamport.transport<unicast>}
// CHECK: %[[POLICY:.*]] = lamport.l2.evict_first_policy
// CHECK-COUNT-16: lamport.l2.load_fragment %{{.*}}, %[[POLICY]] : !llvm.ptr<1> -> vector<4xi32>
// CHECK: lamport.stage.next
// CHECK-COUNT-4: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xi32>
// CHECK-COUNT-32: nvvm.mma.sync
// CHECK-NOT: nvvm.mma.sync
// CHECK-NOT: lamport.stage.next
// CHECK: %[[STAGE:.*]] = arith.bitcast %{{.*}} : f32 to i32
// CHECK-COUNT-4: lamport.mailbox.publish %{{.*}}, %{{.*}}[%[[STAGE]], %{{.*}}, %{{.*}}] {transport = #lamport.transport<unicast>} : vector<8xbf16>
// CHECK-NOT: lamport.mailbox.publish
// CHECK: nvvm.barrier0
// CHECK: lamport.stage.set_active %{{.*}}, %[[STAGE]]
func.func @four_tiles_one_warp(%x: memref<?x64xbf16>, %w: memref<64x64xbf16>,
                               %y: memref<?x64xbf16>, %mb: !mb) {
  lamport.gemm_publish %x, %w into %y mailbox %mb : !mb
      tactic(#lamport.tactic<splits = 1, kw = 64, accs = 2, tiles = 4,
          token_tiles = [16, 16, 16, 16, 16, 16, 16, 16,
                         16, 16, 16, 16, 16, 16, 16, 16]>)
      {transport = #lamport.transport<unicast>}
      : memref<?x64xbf16>, memref<64x64xbf16>, memref<?x64xbf16>
  return
}

// -----

// The most shared memory the reduction may take: (15 warps + 8 splits) x 16
// tokens x 32 features x 4 bytes = 46 KiB, plus 32 bytes for the stage word
// and the split barrier, within the 48 KiB a kernel may declare statically
// (one warp more is past it: generate_kernels_gemm_publish_errors.mlir).

// CHECK-LABEL: func.func @shared_memory_edge
// CHECK-DAG: %[[EIGHT:.*]] = arith.constant 8 : index
// CHECK: gpu.launch_func @gemm_publish_0::@gemm_publish_0
// CHECK-SAME: clusters in (%{{.*}}, %[[EIGHT]], %{{.*}})
// CHECK-DAG: llvm.mlir.global internal @warp_partials() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<7680 x f32>
// CHECK-DAG: llvm.mlir.global internal @split_sums() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<4096 x f32>
// CHECK-DAG: llvm.mlir.global internal @split_barrier() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<1 x i64>
func.func @shared_memory_edge(%x: memref<16x3840xbf16>,
                              %w: memref<32x3840xbf16>,
                              %y: memref<16x32xbf16>) {
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 8, kw = 32, accs = 1, tiles = 2,
          token_tiles = [16, 16, 16, 16, 16, 16, 16, 16,
                         16, 16, 16, 16, 16, 16, 16, 16]>)
      : memref<16x3840xbf16>, memref<32x3840xbf16>, memref<16x32xbf16>
  return
}
