// RUN: lamport-opt %s --lamport-generate-kernels --split-input-file | FileCheck %s

// The fused boundary consumer at H = 4096: 512 fragments a row, so a cluster
// of C = 4 CTAs of 128 threads per token, one fragment per thread. Weights
// (and scalar gates) before griddepcontrol.wait, ACTIVE after it; tokens past
// M skip the row as a whole cluster; the old stream is loaded before the
// poll; the tp partials are polled with the op's timeout, summed rank by rank
// and re-armed; each row sum goes lanes
// (butterfly 16, 8, 4, 2, 1) -> warps (shared memory, warp order) -> CTAs
// (threads 0..3 each send the CTA's sum into one CTA's slot with st.async,
// which completes that CTA's mbarrier; every thread waits on its own and
// adds the slots in cluster rank order); the mbarriers are initialized before the
// wait and published by one cluster barrier (arrive before the PDL wait,
// wait after it); both
// norms use sqrt.rn and a division; one thread of the grid advances NEXT.

!mb = !lamport.mailbox<tp = 4, capacity = 16, width = 4096>

// CHECK: !mailbox_tp4_c16_w4096 = !lamport.mailbox<tp = 4, capacity = 16, width = 4096>
// CHECK-LABEL: func.func @boundary
//  CHECK-SAME: (%[[MB:[a-z0-9_]+]]: !mailbox_tp4_c16_w4096, %[[STREAM:[a-z0-9_]+]]: memref<?x4096xf32>
//       CHECK: %[[M:.*]] = memref.dim %[[STREAM]], %{{.*}} : memref<?x4096xf32>
//       CHECK: %[[TOKENS:.*]] = arith.index_castui %[[M]] : index to i32
//   CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : index
//   CHECK-DAG: %[[FOUR:.*]] = arith.constant 4 : index
//   CHECK-DAG: %[[ROWS:.*]] = arith.constant 16 : index
//   CHECK-DAG: %[[THREADS:.*]] = arith.constant 128 : index
//       CHECK: gpu.launch_func @all_reduce_dual_norm_0::@all_reduce_dual_norm_0
//  CHECK-SAME: clusters in (%[[ONE]], %[[FOUR]], %[[ONE]])
//  CHECK-SAME: blocks in (%[[ROWS]], %[[FOUR]], %[[ONE]])
//  CHECK-SAME: threads in (%[[THREADS]], %[[ONE]], %[[ONE]])
//  CHECK-SAME: args(%[[MB]] : !mailbox_tp4_c16_w4096, %{{.*}} : memref<16x4096xf32, 1>, %{{.*}} : memref<1xf32, 1>, %{{.*}} : memref<1xf32, 1>, %{{.*}} : memref<4096xbf16, 1>, %{{.*}} : memref<4096xbf16, 1>, %{{.*}} : memref<16x4096xbf16, 1>, %[[TOKENS]] : i32)

//       CHECK: gpu.module @all_reduce_dual_norm_0
//   CHECK-DAG: llvm.mlir.global internal @warp_sums() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<8 x f32>
//   CHECK-DAG: llvm.mlir.global internal @cta_sums() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<8 x f32>
//   CHECK-DAG: llvm.mlir.global internal @sum_barriers() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<2 x i64>
//       CHECK: gpu.func @all_reduce_dual_norm_0(
//  CHECK-SAME: %[[KMB:[a-z0-9_]+]]: !mailbox_tp4_c16_w4096 {lamport.param = "mailbox"}
//  CHECK-SAME: %[[KSTREAM:[a-z0-9_]+]]: memref<16x4096xf32, 1> {lamport.io = "inout", lamport.param = "buffer", lamport.role = "stream"}
//  CHECK-SAME: %[[KALPHA:[a-z0-9_]+]]: memref<1xf32, 1> {lamport.io = "in", lamport.param = "buffer", lamport.role = "alpha"}
//  CHECK-SAME: %[[KBETA:[a-z0-9_]+]]: memref<1xf32, 1> {lamport.io = "in", lamport.param = "buffer", lamport.role = "beta"}
//  CHECK-SAME: %[[KPW:[a-z0-9_]+]]: memref<4096xbf16, 1> {lamport.io = "in", lamport.param = "buffer", lamport.role = "post_weight"}
//  CHECK-SAME: %[[KNW:[a-z0-9_]+]]: memref<4096xbf16, 1> {lamport.io = "in", lamport.param = "buffer", lamport.role = "next_weight"}
//  CHECK-SAME: %[[KOUT:[a-z0-9_]+]]: memref<16x4096xbf16, 1> {lamport.io = "out", lamport.param = "buffer", lamport.role = "out"}
//  CHECK-SAME: %[[KTOKENS:[a-z0-9_]+]]: i32 {lamport.param = "tokens"}) kernel
//  CHECK-SAME: known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 16, 4, 1>
//  CHECK-SAME: lamport.attributes = {eps = 9.99999974E-6 : f32, sum_order = #lamport.sum_order<rank_ascending>, timeout_ns = 2000000 : i64}
//  CHECK-SAME: lamport.op = "all_reduce_dual_norm", lamport.pdl

// The token, M clamped to the 16 rows, fragment f = cta * 128 + thread.
//       CHECK: %[[MIDX:.*]] = arith.index_castui %[[KTOKENS]] : i32 to index
//       CHECK: %[[CLAMPED:.*]] = arith.minui %[[MIDX]]
//       CHECK: %[[TOKEN:.*]] = gpu.block_id x
//       CHECK: %[[CTA:.*]] = gpu.block_id y
//       CHECK: %[[RANK:.*]] = arith.index_castui %[[CTA]] : index to i32
//       CHECK: %[[THREAD:.*]] = gpu.thread_id x
//       CHECK: %[[THREAD32:.*]] = arith.index_castui %[[THREAD]] : index to i32
//       CHECK: %[[ACTIVE:.*]] = arith.cmpi ult, %[[TOKEN]], %[[CLAMPED]] : index
//       CHECK: arith.muli %[[CTA]], %{{.*}} : index
//       CHECK: %[[COL:.*]] = arith.muli %{{.*}}, %{{.*}} : index

// Before the wait: thread 0 initializes the two sums' mbarriers (each
// expects the 4 CTA sums' 16 bytes) and fences them for the cluster; every
// thread arrives on the cluster barrier; then the scalar gates and weights.
//       CHECK: %[[B0:.*]] = llvm.getelementptr inbounds %{{.*}}[%c0_i32{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i64
//       CHECK: %[[B1:.*]] = llvm.getelementptr inbounds %{{.*}}[%c1_i32{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i64
//       CHECK: scf.if
//  CHECK-NEXT:   lamport.cluster.expect_bytes %[[B0]], 16 : !llvm.ptr<3>
//  CHECK-NEXT:   lamport.cluster.expect_bytes %[[B1]], 16 : !llvm.ptr<3>
//  CHECK-NEXT:   nvvm.fence.mbarrier.init
//  CHECK-NEXT: }
//  CHECK-NEXT: nvvm.cluster.arrive
//   CHECK-NOT: nvvm.cluster.wait
//       CHECK: %[[A:.*]] = memref.load %[[KALPHA]]
//       CHECK: %[[ALPHA:.*]] = vector.broadcast %[[A]] : f32 to vector<8xf32>
//       CHECK: %[[B:.*]] = memref.load %[[KBETA]]
//       CHECK: %[[BETA:.*]] = vector.broadcast %[[B]] : f32 to vector<8xf32>
//       CHECK: %[[W:.*]]:2 = scf.if %[[ACTIVE]] -> (vector<8xbf16>, vector<8xbf16>)
//       CHECK:   vector.load %[[KNW]][%[[COL]]] {alignment = 16 : i64} : memref<4096xbf16, 1>, vector<8xbf16>
//       CHECK:   vector.load %[[KPW]][%[[COL]]] {alignment = 16 : i64} : memref<4096xbf16, 1>, vector<8xbf16>
//       CHECK: lamport.pdl.wait %{{.*}}, %[[KOUT]] : memref<16x4096xbf16, 1>
//  CHECK-NEXT: %[[STAGE:.*]] = lamport.stage.active %[[KMB]]
//  CHECK-NEXT: nvvm.cluster.wait
//       CHECK: scf.if %[[ACTIVE]] {

// The old stream, in flight during the poll.
//       CHECK:   %[[OLD:.*]] = vector.load %[[KSTREAM]][%[[TOKEN]], %[[COL]]] {alignment = 16 : i64} : memref<16x4096xf32, 1>, vector<8xf32>

// r: the polled partials summed in rank order, then re-armed.
//       CHECK:   %[[POLLED:.*]] = lamport.mailbox.poll %[[KMB]][%[[STAGE]], %{{.*}}, %[[TOKEN]], %[[COL]]] stride %{{.*}} {timeout_ns = 2000000 : i64} {{.*}} -> vector<4x8xbf16>
//       CHECK:   %[[W0:.*]] = arith.extf
//       CHECK:   %[[W1:.*]] = arith.extf
//       CHECK:   %[[W2:.*]] = arith.extf
//       CHECK:   %[[W3:.*]] = arith.extf
//       CHECK:   %[[S01:.*]] = arith.addf %[[W0]], %[[W1]] : vector<8xf32>
//       CHECK:   %[[S012:.*]] = arith.addf %[[S01]], %[[W2]] : vector<8xf32>
//       CHECK:   %[[R:.*]] = arith.addf %[[S012]], %[[W3]] : vector<8xf32>
//       CHECK:   lamport.mailbox.rearm %[[KMB]][%[[STAGE]], %{{.*}}, %[[TOKEN]], %[[COL]]] stride %{{.*}} count 4
// r is in registers: the next kernel may start (PDL) during the norms.
//       CHECK:   nvvm.griddepcontrol launch_dependents

// First row sum: squares in lane order, the warp butterfly, the warps, the
// CTAs of the cluster.
//       CHECK:   %[[SQ:.*]] = arith.mulf %[[R]], %[[R]] : vector<8xf32>
//       CHECK:   vector.extract %[[SQ]][0]
//       CHECK:   vector.extract %[[SQ]][7]
//       CHECK:   %[[LANESUM:.*]] = arith.addf
//       CHECK:   %[[X16:.*]] = nvvm.shfl.sync bfly %{{.*}}, %[[LANESUM]], %c16_i32, %{{.*}} : f32 -> f32
//       CHECK:   arith.addf %[[LANESUM]], %[[X16]] : f32
//       CHECK:   nvvm.shfl.sync bfly %{{.*}}, %{{.*}}, %c8_i32
//       CHECK:   nvvm.shfl.sync bfly %{{.*}}, %{{.*}}, %c4_i32
//       CHECK:   nvvm.shfl.sync bfly %{{.*}}, %{{.*}}, %c2_i32
//       CHECK:   nvvm.shfl.sync bfly %{{.*}}, %{{.*}}, %c1_i32
//       CHECK:   %[[WARPSUM:.*]] = arith.addf
//       CHECK:   scf.if
//       CHECK:     llvm.mlir.addressof @warp_sums
//       CHECK:     llvm.store %[[WARPSUM]]
//       CHECK:   nvvm.barrier0
//       CHECK:   %[[SENDER:.*]] = arith.cmpi ult, %[[THREAD32]], %c4_i32{{.*}} : i32
//       CHECK:   %[[BAR:.*]] = llvm.getelementptr inbounds %{{.*}}[%c0_i32{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i64
//       CHECK:   scf.if %[[SENDER]] {
//       CHECK:     %[[SLOTINDEX:.*]] = arith.addi %c0_i32{{.*}}, %[[RANK]] : i32
//       CHECK:     %[[OWN:.*]] = llvm.getelementptr inbounds %{{.*}}[%[[SLOTINDEX]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
// CHECK-COUNT-4:     llvm.load %{{.*}} : !llvm.ptr<3> -> f32
//       CHECK:     %[[CTASUM:.*]] = arith.addf
//  CHECK-NEXT:     lamport.cluster.send %[[CTASUM]] to %[[OWN]] of %[[THREAD32]] completing %[[BAR]] : f32
//  CHECK-NEXT:   }
//  CHECK-NEXT:   lamport.cluster.wait %[[BAR]] : !llvm.ptr<3>
//   CHECK-NOT:   nvvm.cluster
//       CHECK:   %[[S0:.*]] = llvm.getelementptr inbounds %{{.*}}[%c0_i32{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
//  CHECK-NEXT:   %[[C0:.*]] = llvm.load %[[S0]] : !llvm.ptr<3> -> f32
//       CHECK:   %[[S1:.*]] = llvm.getelementptr inbounds %{{.*}}[%c1_i32{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
//  CHECK-NEXT:   %[[C1:.*]] = llvm.load %[[S1]] : !llvm.ptr<3> -> f32
//  CHECK-NEXT:   %[[C01:.*]] = arith.addf %[[C0]], %[[C1]] : f32
//       CHECK:   %[[C2:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> f32
//  CHECK-NEXT:   %[[C012:.*]] = arith.addf %[[C01]], %[[C2]] : f32
//       CHECK:   %[[C3:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> f32
//  CHECK-NEXT:   %[[TOTAL:.*]] = arith.addf %[[C012]], %[[C3]] : f32

// inv1 = 1 / sqrt(total / H + eps); h, and the gated stream update.
//       CHECK:   %[[MEAN:.*]] = arith.divf %[[TOTAL]], %{{.*}} : f32
//       CHECK:   %[[SHIFTED:.*]] = arith.addf %[[MEAN]], %{{.*}} : f32
//       CHECK:   %[[ROOT:.*]] = llvm.call_intrinsic "llvm.nvvm.sqrt.rn.f"(%[[SHIFTED]]) : (f32) -> f32
//       CHECK:   %[[INV:.*]] = arith.divf %{{.*}}, %[[ROOT]] : f32
//       CHECK:   %[[INV1:.*]] = vector.broadcast %[[INV]]
//       CHECK:   %[[H0:.*]] = arith.mulf %[[R]], %[[INV1]] : vector<8xf32>
//       CHECK:   %[[PW:.*]] = arith.extf %[[W]]#1 : vector<8xbf16> to vector<8xf32>
//       CHECK:   %[[H:.*]] = arith.mulf %[[H0]], %[[PW]] : vector<8xf32>
//       CHECK:   %[[AS:.*]] = arith.mulf %[[ALPHA]], %[[OLD]] : vector<8xf32>
//       CHECK:   %[[BH:.*]] = arith.mulf %[[BETA]], %[[H]] : vector<8xf32>
//       CHECK:   %[[NEW:.*]] = arith.addf %[[AS]], %[[BH]] : vector<8xf32>

// Second row sum over the new stream: its own mbarrier and slots 4..7; no
// cluster barrier before the exit (no CTA reads another's shared memory).
//       CHECK:   arith.mulf %[[NEW]], %[[NEW]] : vector<8xf32>
// CHECK-COUNT-5:   nvvm.shfl.sync bfly
//       CHECK:   nvvm.barrier0
//       CHECK:   %[[BAR2:.*]] = llvm.getelementptr inbounds %{{.*}}[%c1_i32{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i64
//       CHECK:     arith.addi %c4_i32{{.*}}, %[[RANK]] : i32
//       CHECK:     lamport.cluster.send %{{.*}} completing %[[BAR2]] : f32
//       CHECK:   lamport.cluster.wait %[[BAR2]] : !llvm.ptr<3>
//       CHECK:   llvm.getelementptr inbounds %{{.*}}[%c4_i32{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
//       CHECK:   llvm.getelementptr inbounds %{{.*}}[%c7_i32{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
//       CHECK:   %[[TOTAL2:.*]] = arith.addf
//   CHECK-NOT:   nvvm.cluster
//       CHECK:   llvm.call_intrinsic "llvm.nvvm.sqrt.rn.f"
//       CHECK:   %[[INV2:.*]] = vector.broadcast
//       CHECK:   vector.store %[[NEW]], %[[KSTREAM]][%[[TOKEN]], %[[COL]]] {alignment = 16 : i64} : memref<16x4096xf32, 1>, vector<8xf32>
//       CHECK:   %[[SCALED:.*]] = arith.mulf %[[NEW]], %[[INV2]] : vector<8xf32>
//       CHECK:   %[[NW:.*]] = arith.extf %[[W]]#0 : vector<8xbf16> to vector<8xf32>
//       CHECK:   %[[WEIGHTED:.*]] = arith.mulf %[[SCALED]], %[[NW]] : vector<8xf32>
//       CHECK:   %[[ROUNDED:.*]] = arith.truncf %[[WEIGHTED]] : vector<8xf32> to vector<8xbf16>
//       CHECK:   vector.store %[[ROUNDED]], %[[KOUT]][%[[TOKEN]], %[[COL]]] {alignment = 16 : i64} : memref<16x4096xbf16, 1>, vector<8xbf16>
//  CHECK-NEXT: }

// NEXT advanced by thread 0 of CTA (0, 0) alone.
//       CHECK: %[[T:.*]] = gpu.thread_id x
//       CHECK: arith.cmpi eq, %[[T]]
//       CHECK: %[[X:.*]] = gpu.block_id x
//       CHECK: arith.cmpi eq, %[[X]]
//       CHECK: %[[Y:.*]] = gpu.block_id y
//       CHECK: %[[FIRSTY:.*]] = arith.cmpi eq, %[[Y]]
//       CHECK: %[[LEAD:.*]] = arith.andi %{{.*}}, %[[FIRSTY]] : i1
//       CHECK: scf.if %[[LEAD]] {
//  CHECK-NEXT:   lamport.stage.advance %[[KMB]], %[[STAGE]]
//  CHECK-NEXT: }
//  CHECK-NEXT: gpu.return
func.func @boundary(%mb: !mb, %stream: memref<?x4096xf32>,
                    %alpha: memref<1xf32>, %beta: memref<1xf32>,
                    %pw: memref<4096xbf16>, %nw: memref<4096xbf16>,
                    %out: memref<?x4096xbf16>) {
  lamport.all_reduce_dual_norm %mb, %stream gates(%alpha, %beta)
      post_weight %pw : memref<4096xbf16> next_weight %nw into %out
      {eps = 1.0e-05 : f32, timeout_ns = 2000000 : i64, pdl}
      : !mb, memref<?x4096xf32>, memref<1xf32>, memref<1xf32>,
        memref<4096xbf16>, memref<?x4096xbf16>
  return
}

// -----

// The attention boundary's shape, tp = 8 and H = 8192: clusters of 8 CTAs
// of 128 threads. Per-channel gates are loaded with the old stream, before
// the poll; no post_weight
// and no pdl: no griddepcontrol, h = r * inv1. A static M of 4 sizes the
// grid (4 tokens) and is passed as a constant. The pairwise order at tp = 8:
// ((p0 + p1) + (p2 + p3)) + ((p4 + p5) + (p6 + p7)).

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

// CHECK-LABEL: func.func @per_channel_pairwise
//   CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : index
//   CHECK-DAG: %[[FOUR:.*]] = arith.constant 4 : index
//   CHECK-DAG: %[[EIGHT:.*]] = arith.constant 8 : index
//   CHECK-DAG: %[[THREADS:.*]] = arith.constant 128 : index
//   CHECK-DAG: %[[M:.*]] = arith.constant 4 : i32
//       CHECK: gpu.launch_func @all_reduce_dual_norm_0::@all_reduce_dual_norm_0
//  CHECK-SAME: clusters in (%[[ONE]], %[[EIGHT]], %[[ONE]])
//  CHECK-SAME: blocks in (%[[FOUR]], %[[EIGHT]], %[[ONE]])
//  CHECK-SAME: threads in (%[[THREADS]], %[[ONE]], %[[ONE]])
//  CHECK-SAME: %{{.*}} : memref<4x8192xf32, 1>, %{{.*}} : memref<8192xf32, 1>, %{{.*}} : memref<8192xf32, 1>, %{{.*}} : memref<8192xbf16, 1>, %{{.*}} : memref<4x8192xbf16, 1>, %[[M]] : i32)
//       CHECK: gpu.func @all_reduce_dual_norm_0(
//  CHECK-SAME: %[[KSTREAM:[a-z0-9_]+]]: memref<4x8192xf32, 1> {{{.*}}lamport.role = "stream"}
//  CHECK-SAME: %[[KALPHA:[a-z0-9_]+]]: memref<8192xf32, 1> {{{.*}}lamport.role = "alpha"}
//  CHECK-SAME: %[[KBETA:[a-z0-9_]+]]: memref<8192xf32, 1> {{{.*}}lamport.role = "beta"}
//  CHECK-SAME: memref<8192xbf16, 1> {{{.*}}lamport.role = "next_weight"}
//  CHECK-SAME: memref<4x8192xbf16, 1> {{{.*}}lamport.role = "out"}
//  CHECK-SAME: known_grid_size = array<i32: 4, 8, 1>
//  CHECK-SAME: lamport.attributes = {eps = 9.99999997E-7 : f32, sum_order = #lamport.sum_order<pairwise>}
//   CHECK-NOT: lamport.pdl
//   CHECK-NOT: griddepcontrol
//       CHECK: scf.if %{{.*}} -> (vector<8xbf16>) {
//       CHECK: lamport.stage.active
//       CHECK: %[[OLD:.*]] = vector.load %[[KSTREAM]]
//       CHECK: %[[ALPHA:.*]] = vector.load %[[KALPHA]][%{{.*}}] {alignment = 16 : i64} : memref<8192xf32, 1>, vector<8xf32>
//       CHECK: %[[BETA:.*]] = vector.load %[[KBETA]][%{{.*}}] {alignment = 16 : i64} : memref<8192xf32, 1>, vector<8xf32>
//       CHECK: lamport.mailbox.poll {{.*}} -> vector<8x8xbf16>
//       CHECK: %[[W0:.*]] = arith.extf
//       CHECK: %[[W1:.*]] = arith.extf
//       CHECK: %[[W2:.*]] = arith.extf
//       CHECK: %[[W3:.*]] = arith.extf
//       CHECK: %[[W4:.*]] = arith.extf
//       CHECK: %[[W5:.*]] = arith.extf
//       CHECK: %[[W6:.*]] = arith.extf
//       CHECK: %[[W7:.*]] = arith.extf
//       CHECK: %[[A01:.*]] = arith.addf %[[W0]], %[[W1]]
//       CHECK: %[[A23:.*]] = arith.addf %[[W2]], %[[W3]]
//       CHECK: %[[A45:.*]] = arith.addf %[[W4]], %[[W5]]
//       CHECK: %[[A67:.*]] = arith.addf %[[W6]], %[[W7]]
//       CHECK: %[[A0123:.*]] = arith.addf %[[A01]], %[[A23]]
//       CHECK: %[[A4567:.*]] = arith.addf %[[A45]], %[[A67]]
//       CHECK: %[[R:.*]] = arith.addf %[[A0123]], %[[A4567]]
//       CHECK: lamport.mailbox.rearm {{.*}} count 8
//       CHECK: lamport.cluster.send
//       CHECK: %[[INV1:.*]] = vector.broadcast
//       CHECK: %[[H:.*]] = arith.mulf %[[R]], %[[INV1]] : vector<8xf32>
//  CHECK-NEXT: %[[AS:.*]] = arith.mulf %[[ALPHA]], %[[OLD]] : vector<8xf32>
//  CHECK-NEXT: %[[BH:.*]] = arith.mulf %[[BETA]], %[[H]] : vector<8xf32>
//  CHECK-NEXT: arith.addf %[[AS]], %[[BH]] : vector<8xf32>
//       CHECK: lamport.cluster.send
//       CHECK: lamport.stage.advance
//   CHECK-NOT: griddepcontrol
//       CHECK: gpu.return
func.func @per_channel_pairwise(%mb: !mb, %stream: memref<4x8192xf32>,
                                %alpha: memref<8192xf32>,
                                %beta: memref<8192xf32>,
                                %nw: memref<8192xbf16>,
                                %out: memref<4x8192xbf16>) {
  lamport.all_reduce_dual_norm %mb, %stream gates(%alpha, %beta)
      next_weight %nw into %out {sum_order = #lamport.sum_order<pairwise>}
      : !mb, memref<4x8192xf32>, memref<8192xf32>, memref<8192xf32>,
        memref<8192xbf16>, memref<4x8192xbf16>
  return
}

// -----

// tp = 16 polls its 16 slots with one poll. A row of 1024 channels is 128
// fragments: one CTA of 128 threads per token, no cluster: the CTA's sum is
// the row's, read from the warps' slots by every thread after the barrier,
// with no cluster barrier and no distributed shared memory. A capacity of
// 2 gives a grid of 2 tokens.

!mb = !lamport.mailbox<tp = 16, capacity = 2, width = 1024>

// CHECK-LABEL: func.func @one_cta
//   CHECK-NOT: clusters in
//       CHECK: gpu.launch_func @all_reduce_dual_norm_0::@all_reduce_dual_norm_0 blocks in (%{{.*}}, %{{.*}}, %{{.*}}) threads in (%{{.*}}, %{{.*}}, %{{.*}})
//       CHECK: llvm.mlir.global internal @warp_sums() {{.*}} : !llvm.array<8 x f32>
//       CHECK: gpu.func @all_reduce_dual_norm_0(
//  CHECK-SAME: known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 2, 1, 1>
//       CHECK: lamport.mailbox.poll {{.*}} -> vector<16x8xbf16>
//       CHECK: lamport.mailbox.rearm {{.*}} count 16
//       CHECK: nvvm.barrier0
// CHECK-COUNT-4: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
//       CHECK: llvm.call_intrinsic "llvm.nvvm.sqrt.rn.f"
//       CHECK: nvvm.barrier0
// CHECK-COUNT-4: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
//       CHECK: llvm.call_intrinsic "llvm.nvvm.sqrt.rn.f"
//   CHECK-NOT: nvvm.cluster
//   CHECK-NOT: lamport.cluster.send
//   CHECK-NOT: gpu.block_id y
//       CHECK: lamport.stage.advance
//       CHECK: gpu.return
func.func @one_cta(%mb: !mb, %stream: memref<?x1024xf32>,
                   %alpha: memref<1xf32>, %beta: memref<1xf32>,
                   %nw: memref<1024xbf16>, %out: memref<?x1024xbf16>) {
  lamport.all_reduce_dual_norm %mb, %stream gates(%alpha, %beta)
      next_weight %nw into %out
      : !mb, memref<?x1024xf32>, memref<1xf32>, memref<1xf32>,
        memref<1024xbf16>, memref<?x1024xbf16>
  return
}

// -----

// With `publishing`, the boundary in one kernel: the partial is a kernel
// buffer (role partial, after out); right after the wait each thread loads
// its fragment of the partial (it needs no stage), then reads the stage
// from NEXT; every thread of the CTA passes a barrier after its read of
// NEXT, then the CTA counts itself out of the grid's 64 (16 rows x 4) at
// once, before it publishes; each thread publishes the fragment it loaded
// (the op's transport) and loads the old stream before it polls that
// fragment of every slot; at the end the thread that saw 63 earlier
// arrivals (the last) acquires, sets ACTIVE and advances NEXT. The store
// that keeps the parameter loads before the wait writes the digest of the
// publish's addresses, which reads them from the descriptor there.

!mb = !lamport.mailbox<tp = 4, capacity = 16, width = 4096>

// CHECK-LABEL: func.func @publishing
//  CHECK-SAME: (%[[MB:[a-z0-9_]+]]: !mailbox_tp4_c16_w4096, %[[PARTIAL:[a-z0-9_]+]]: memref<?x4096xbf16>
//       CHECK: %[[PCAST:.*]] = memref.reinterpret_cast %[[PARTIAL]] to offset: [0], sizes: [16, 4096]
//  CHECK-NEXT: %[[P:.*]] = memref.memory_space_cast %[[PCAST]]
//       CHECK: gpu.launch_func @all_reduce_dual_norm_0::@all_reduce_dual_norm_0
//  CHECK-SAME: args(%[[MB]] : !mailbox_tp4_c16_w4096, %{{.*}} : memref<16x4096xf32, 1>, %{{.*}} : memref<1xf32, 1>, %{{.*}} : memref<1xf32, 1>, %{{.*}} : memref<4096xbf16, 1>, %{{.*}} : memref<16x4096xbf16, 1>, %[[P]] : memref<16x4096xbf16, 1>, %{{.*}} : i32)
//       CHECK: gpu.func @all_reduce_dual_norm_0
//  CHECK-SAME: %[[KMB:[a-z0-9_]+]]: !mailbox_tp4_c16_w4096 {lamport.param = "mailbox"}
//  CHECK-SAME: %[[KP:[a-z0-9_]+]]: memref<16x4096xbf16, 1> {lamport.io = "in", lamport.param = "buffer", lamport.role = "partial"}
//  CHECK-SAME: lamport.attributes = {eps = 9.99999997E-7 : f32, sum_order = #lamport.sum_order<rank_ascending>, transport = #lamport.transport<unicast>}
//       CHECK: %[[DIGEST:.*]] = lamport.mailbox.address_digest %[[KMB]]
//       CHECK: lamport.pdl.wait %{{.*}}, %{{.*}}, %[[DIGEST]] : memref<16x4096xbf16, 1>
//  CHECK-NEXT: %[[FRAGMENT:.*]] = scf.if %[[LIVE:.*]] -> (vector<8xbf16>) {
//  CHECK-NEXT: %[[LOADED:.*]] = vector.load %[[KP]][%[[ROW:.*]], %[[COL:.*]]] {alignment = 16 : i64} : memref<16x4096xbf16, 1>, vector<8xbf16>
//  CHECK-NEXT: scf.yield %[[LOADED]]
//       CHECK: %[[STAGE:.*]] = lamport.stage.next %[[KMB]]
//  CHECK-NEXT: gpu.barrier
//  CHECK-NEXT: %[[BEFORE:.*]] = lamport.stage.arrive %[[KMB]] {ctas = 64 : i64}
//   CHECK-NOT: lamport.stage.active
//   CHECK-NOT: vector.load %[[KP]]
//       CHECK: lamport.mailbox.publish %[[FRAGMENT]], %[[KMB]][%[[STAGE]], %[[ROW]], %[[COL]]] {transport = #lamport.transport<unicast>}
//       CHECK: vector.load %{{.*}}[%[[ROW]], %[[COL]]] {alignment = 16 : i64} : memref<16x4096xf32, 1>, vector<8xf32>
//       CHECK: lamport.mailbox.poll %[[KMB]][%[[STAGE]], %{{.*}}, %[[ROW]], %[[COL]]]
//       CHECK: lamport.mailbox.rearm %[[KMB]][%[[STAGE]], %{{.*}}, %[[ROW]], %[[COL]]] stride %{{.*}} count 4
//  CHECK-NEXT: nvvm.griddepcontrol launch_dependents
//   CHECK-NOT: lamport.stage.arrive
//       CHECK: %[[LAST_COUNT:.*]] = arith.constant 63 : i32
//  CHECK-NEXT: %[[LAST:.*]] = arith.cmpi eq, %[[BEFORE]], %[[LAST_COUNT]] : i32
//  CHECK-NEXT: scf.if %[[LAST]] {
//  CHECK-NEXT: llvm.fence syncscope("device") acq_rel
//  CHECK-NEXT: lamport.stage.set_active %[[KMB]], %[[STAGE]]
//  CHECK-NEXT: lamport.stage.advance %[[KMB]], %[[STAGE]]
//   CHECK-NOT: nvvm.griddepcontrol
//       CHECK: gpu.return
func.func @publishing(%mb: !mb, %partial: memref<?x4096xbf16>,
                      %stream: memref<?x4096xf32>, %alpha: memref<1xf32>,
                      %beta: memref<1xf32>, %next: memref<4096xbf16>,
                      %out: memref<?x4096xbf16>) {
  lamport.all_reduce_dual_norm %mb publishing(%partial : memref<?x4096xbf16>),
      %stream gates(%alpha, %beta) next_weight %next into %out {pdl}
      : !mb, memref<?x4096xf32>, memref<1xf32>, memref<1xf32>,
        memref<4096xbf16>, memref<?x4096xbf16>
  return
}
