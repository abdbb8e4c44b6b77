// RUN: lamport-opt %s --lamport-generate-kernels=transport=multicast | FileCheck %s --check-prefix=TRANSPORT
// RUN: lamport-opt %s --lamport-generate-kernels="threads-per-cta=256 max-ctas=8" | FileCheck %s --check-prefix=SHAPE

// Pass options: the transport of publishes whose op sets none, and the
// launch shape limits. 16 x 8192 / 8 = 16384 fragments need 128 CTAs of 128
// threads; capped at 8 CTAs of 256 threads, each thread loops 8 times.

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

// TRANSPORT-LABEL: gpu.func @publish_rows_0(
//  TRANSPORT-SAME: lamport.attributes = {transport = #lamport.transport<multicast>}
//       TRANSPORT: lamport.mailbox.publish {{.*}} {transport = #lamport.transport<multicast>}

// SHAPE-LABEL: func.func @options
//   SHAPE-DAG: %[[CTAS:[a-zA-Z0-9_]+]] = arith.constant 8 : index
//   SHAPE-DAG: %[[THREADS:[a-zA-Z0-9_]+]] = arith.constant 256 : index
//       SHAPE: gpu.launch_func @publish_rows_0::@publish_rows_0 blocks in (%[[CTAS]], %{{.*}}, %{{.*}}) threads in (%[[THREADS]], %{{.*}}, %{{.*}})
//       SHAPE: gpu.func @publish_rows_0(
//  SHAPE-SAME: known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 8, 1, 1>
//       SHAPE: %[[BLOCK:[a-zA-Z0-9_]+]] = arith.constant 256 : index
//       SHAPE: %[[STEP:[a-zA-Z0-9_]+]] = arith.constant 2048 : index
//       SHAPE: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[STEP]]
func.func @options(%rows: memref<?x8192xbf16>, %mb: !mb) {
  lamport.publish_rows %rows into %mb : memref<?x8192xbf16>, !mb
  return
}
