// RUN: lamport-opt %s --lamport-generate-kernels --split-input-file | FileCheck %s

// The o_proj shape at tp = 8 with no mailbox: grid (N / 16, splits) =
// (512, 1), K / (splits * kw) = 16 warps, no cluster; static M = 4 takes the
// 8-token tile, so each warp does 2 chunks x 2 steps x 1 token block = 4 MMAs.

// CHECK-LABEL: func.func @oproj_tp8
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[CTAS:.*]] = arith.constant 512 : index
// CHECK: gpu.launch_func @gemm_publish_0::@gemm_publish_0
// CHECK-SAME: blocks in (%[[CTAS]], %[[ONE]], %[[ONE]]) threads in (%{{.*}}, %[[ONE]], %[[ONE]])
// CHECK-SAME: args(%{{.*}} : memref<8192x1024xbf16, 1>, %{{.*}} : memref<4x1024xbf16, 1>, %{{.*}} : memref<4x8192xbf16, 1>, %{{.*}} : i32)
// CHECK-NOT: clusters in
// CHECK: gpu.module @gemm_publish_0
// CHECK-DAG: llvm.mlir.global internal @warp_partials() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<2048 x f32>
// CHECK-DAG: llvm.mlir.global internal @split_sums() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<128 x f32>
// CHECK: gpu.func @gemm_publish_0(%{{.*}}: memref<8192x1024xbf16, 1> {lamport.io = "in", lamport.param = "buffer", lamport.role = "weight"}, %{{.*}}: memref<4x1024xbf16, 1> {lamport.io = "in", lamport.param = "buffer", lamport.role = "x"}, %{{.*}}: memref<4x8192xbf16, 1> {lamport.io = "out", lamport.param = "buffer", lamport.role = "y"}, %{{.*}}: i32 {lamport.param = "tokens"}) kernel
// CHECK-SAME: known_block_size = array<i32: 512, 1, 1>
// CHECK-SAME: known_grid_size = array<i32: 512, 1, 1>
// CHECK-SAME: lamport.attributes = {token_tile = 8 : i64}
// CHECK-SAME: lamport.op = "gemm_publish"
// CHECK-SAME: lamport.pdl
// Weights: two rows of 2 chunks, evict-first in L2, before the wait, which
// the never-taken store on the launch's raw M keeps after them.
// CHECK: %[[POLICY:.*]] = lamport.l2.evict_first_policy
// CHECK-COUNT-4: lamport.l2.load_fragment %{{.*}}, %[[POLICY]] : !llvm.ptr<1> -> vector<4xi32>
// CHECK: lamport.pdl.wait %arg{{[0-9]+}}, %arg{{[0-9]+}} : memref<4x8192xbf16, 1>
// CHECK-COUNT-2: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xi32>
// CHECK-COUNT-4: nvvm.mma.sync
// CHECK-NOT: nvvm.mma.sync
// CHECK: nvvm.griddepcontrol launch_dependents
// CHECK: nvvm.barrier0
// CHECK-NOT: lamport.cluster.send
// CHECK-NOT: lamport.mailbox.publish
// CHECK-NOT: lamport.stage
// CHECK: gpu.return
func.func @oproj_tp8(%x: memref<4x1024xbf16>, %w: memref<8192x1024xbf16>,
                     %y: memref<4x8192xbf16>) {
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 64, accs = 2,
          token_tiles = [8, 8, 8, 8, 8, 8, 8, 8,
                         16, 16, 16, 16, 16, 16, 16, 16]>) {pdl}
      : memref<4x1024xbf16>, memref<8192x1024xbf16>, memref<4x8192xbf16>
  return
}

// -----

// The unpooler's column block at tp = 8, publishing into the next boundary's
// mailbox: a cluster of 4 CTAs along y sums its split-K partials on rank 0
// through distributed shared memory; rank 0 publishes each fragment of y at
// slot [NEXT, rank] and sets ACTIVE. Dynamic M up to the capacity of 16 is
// chosen at launch: M <= 8 runs the 8-token kernel gemm_publish_0
// (generate_kernels_gemm_publish_dispatch.mlir), M > 8 the 16-token kernel
// gemm_publish_1 (two MMA token blocks) checked here; both launch alike.

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 1024>

// CHECK: !mailbox_tp8_c16_w1024 = !lamport.mailbox<tp = 8, capacity = 16, width = 1024>
// CHECK-LABEL: func.func @unpooler_tp8
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[FOUR:.*]] = arith.constant 4 : index
// CHECK: gpu.launch_func @gemm_publish_0::@gemm_publish_0
// CHECK-SAME: clusters in (%[[ONE]], %[[FOUR]], %[[ONE]])
// CHECK-SAME: blocks in (%{{.*}}, %[[FOUR]], %[[ONE]])
// CHECK-SAME: args(%{{.*}} : !mailbox_tp8_c16_w1024, %{{.*}} : memref<1024x4096xbf16, 1>, %{{.*}} : memref<16x4096xbf16, 1>, %{{.*}} : memref<16x1024xbf16, 1>, %{{.*}} : i32)
// CHECK: gpu.launch_func @gemm_publish_1::@gemm_publish_1
// CHECK-SAME: clusters in (%[[ONE]], %[[FOUR]], %[[ONE]])
// CHECK-SAME: blocks in (%{{.*}}, %[[FOUR]], %[[ONE]])
// CHECK: gpu.func @gemm_publish_1(%{{.*}}: !mailbox_tp8_c16_w1024 {lamport.param = "mailbox"}
// CHECK-SAME: lamport.attributes = {token_tile = 16 : i64, transport = #lamport.transport<multicast>}
// Before the weight loads, rank 0's split barrier expects the other three
// splits' [16 tokens, 16 features] FP32 sums: 3 x 16 x 16 x 4 bytes.
// CHECK: %[[POLICY:.*]] = lamport.l2.evict_first_policy
// CHECK: nvvm.read.ptx.sreg.cluster.ctarank
// CHECK: lamport.cluster.expect_bytes %{{.*}}, 3072 : !llvm.ptr<3>
// CHECK: nvvm.fence.mbarrier.init
// CHECK: nvvm.cluster.arrive
// CHECK: lamport.l2.load_fragment %{{.*}}, %[[POLICY]] : !llvm.ptr<1> -> vector<4xi32>
// The guard store writes the digest of the publish's addresses, so that
// they are read from the descriptor before the wait, not on the tail.
// CHECK: %[[DIGEST:.*]] = lamport.mailbox.address_digest %{{.*}} : !mailbox_tp8_c16_w1024
// NEXT is read by thread 0 as soon as the previous kernel is done, not in
// the epilogue, and handed to the epilogue through shared memory.
// CHECK-NEXT: lamport.pdl.wait %{{.*}}, %{{.*}}, %[[DIGEST]] : memref<16x1024xbf16, 1>
// CHECK: %[[EARLY:.*]] = scf.if %{{.*}} -> (i32) {
// CHECK-NEXT: %[[NEXT:.*]] = lamport.stage.next %{{.*}}
// CHECK-NEXT: scf.yield %[[NEXT]] : i32
// CHECK-COUNT-8: nvvm.mma.sync
// CHECK-NOT: nvvm.mma.sync
// CHECK: nvvm.griddepcontrol launch_dependents
// CHECK: %[[BITS:.*]] = arith.bitcast %[[EARLY]] : i32 to f32
// CHECK: %[[SLOT:.*]] = llvm.mlir.addressof @publish_stage : !llvm.ptr<3>
// CHECK: llvm.store %[[BITS]], %{{.*}} : f32, !llvm.ptr<3>
// CHECK: nvvm.cluster.wait
// CHECK: lamport.cluster.send %{{.*}} to %{{.*}} of %c0_i32{{.*}} completing %{{.*}} : f32
// CHECK: lamport.cluster.wait %{{.*}} : !llvm.ptr<3>
// CHECK-NOT: lamport.stage.next
// CHECK: llvm.mlir.addressof @publish_stage : !llvm.ptr<3>
// CHECK: %[[LOADED:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: %[[STAGE:.*]] = arith.bitcast %[[LOADED]] : f32 to i32
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: lamport.mailbox.publish %{{.*}}, %{{.*}}[%[[STAGE]], %{{.*}}, %{{.*}}] {transport = #lamport.transport<multicast>} : vector<8xbf16>
// CHECK: nvvm.barrier0
// CHECK: lamport.stage.set_active %{{.*}}, %[[STAGE]]
func.func @unpooler_tp8(%x: memref<?x4096xbf16>, %w: memref<1024x4096xbf16>,
                        %y: memref<?x1024xbf16>, %mb: !mb) {
  lamport.gemm_publish %x, %w into %y mailbox %mb : !mb
      tactic(#lamport.tactic<splits = 4, kw = 64, accs = 2,
          token_tiles = [8, 8, 8, 8, 8, 8, 8, 8,
                         16, 16, 16, 16, 16, 16, 16, 16]>)
      {pdl, transport = #lamport.transport<multicast>}
      : memref<?x4096xbf16>, memref<1024x4096xbf16>, memref<?x1024xbf16>
  return
}

// -----

// With a ticket the stage is the ticket's upper half and no stage word is
// written.

!mb = !lamport.mailbox<tp = 4, capacity = 8, width = 2048>

// CHECK-LABEL: func.func @ticketed
// CHECK: gpu.func @gemm_publish_0
// CHECK-SAME: %{{.*}}: memref<1xi32, 1> {lamport.io = "in", lamport.param = "buffer", lamport.role = "ticket"}
// CHECK: %[[TICKET:.*]] = memref.load %{{.*}}[%{{.*}}] : memref<1xi32, 1>
// CHECK: lamport.stage.from_ticket %[[TICKET]]
// CHECK: nvvm.mma.sync
// CHECK: lamport.cluster.wait
// CHECK: %[[STAGE:.*]] = arith.bitcast %{{.*}} : f32 to i32
// CHECK: lamport.mailbox.publish %{{.*}}, %{{.*}}[%[[STAGE]], %{{.*}}, %{{.*}}] {transport = #lamport.transport<unicast>}
// CHECK-NOT: lamport.stage.set_active
// CHECK-NOT: lamport.stage.next
// CHECK: gpu.return
func.func @ticketed(%x: memref<?x4096xbf16>, %w: memref<2048x4096xbf16>,
                    %y: memref<?x2048xbf16>, %mb: !mb, %t: memref<1xi32>) {
  lamport.gemm_publish %x, %w into %y mailbox %mb : !mb
      ticket %t : memref<1xi32>
      tactic(#lamport.tactic<splits = 4, kw = 64, accs = 2,
                             token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>)
      : memref<?x4096xbf16>, memref<2048x4096xbf16>, memref<?x2048xbf16>
  return
}
