// RUN: lamport-opt %s -split-input-file | FileCheck %s -DMBT='!mailbox_tp8_c16_w8192'
// RUN: lamport-opt %s -split-input-file | lamport-opt -split-input-file | FileCheck %s -DMBT='!mailbox_tp8_c16_w8192'
// RUN: lamport-opt %s -split-input-file --mlir-print-op-generic | lamport-opt -split-input-file | FileCheck %s -DMBT='!mailbox_tp8_c16_w8192'

// Round trip of the program-level publishers and consumers of a boundary:
// publish_rows, poll_rows, all_reduce, all_reduce_dual_norm, dual_norm and
// all_gather.

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

// The printer names the mailbox type once and the ops use the name.
// CHECK: [[MBT]] = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>
// CHECK-LABEL: func.func @publish_rows
// CHECK-SAME: (%[[ROWS:[a-z0-9]+]]: memref<?x8192xbf16>, %[[FULL:[a-z0-9]+]]: memref<16x8192xbf16>, %[[MB:[a-z0-9]+]]: [[MBT]])
func.func @publish_rows(%rows: memref<?x8192xbf16>,
                        %full: memref<16x8192xbf16>, %mb: !mb) {
  // CHECK: lamport.publish_rows %[[ROWS]] into %[[MB]] : memref<?x8192xbf16>, [[MBT]]
  lamport.publish_rows %rows into %mb : memref<?x8192xbf16>, !mb
  // CHECK: lamport.publish_rows %[[FULL]] into %[[MB]] {pdl, release_before, transport = #lamport.transport<unicast>} : memref<16x8192xbf16>, [[MBT]]
  lamport.publish_rows %full into %mb
      {transport = #lamport.transport<unicast>, release_before, pdl}
      : memref<16x8192xbf16>, !mb
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

// CHECK-LABEL: func.func @poll_rows
// CHECK-SAME: (%[[MB:[a-z0-9]+]]: [[MBT]], %[[OUT:[a-z0-9]+]]: memref<8x?x8192xbf16>, %[[ONE:[a-z0-9]+]]: memref<8x1x8192xbf16>)
func.func @poll_rows(%mb: !mb, %out: memref<8x?x8192xbf16>,
                     %one: memref<8x1x8192xbf16>) {
  // CHECK: lamport.poll_rows %[[MB]] into %[[OUT]] : [[MBT]], memref<8x?x8192xbf16>
  lamport.poll_rows %mb into %out : !mb, memref<8x?x8192xbf16>
  // CHECK: lamport.poll_rows %[[MB]] into %[[ONE]] {pdl, timeout_ns = 2000000 : i64} : [[MBT]], memref<8x1x8192xbf16>
  lamport.poll_rows %mb into %one {timeout_ns = 2000000 : i64, pdl}
      : !mb, memref<8x1x8192xbf16>
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

// The default sum order is not printed; pairwise is.
// CHECK-LABEL: func.func @all_reduce
// CHECK-SAME: (%[[MB:[a-z0-9]+]]: [[MBT]], %[[OUT:[a-z0-9]+]]: memref<?x8192xbf16>)
func.func @all_reduce(%mb: !mb, %out: memref<?x8192xbf16>) {
  // CHECK: lamport.all_reduce %[[MB]] into %[[OUT]] : [[MBT]], memref<?x8192xbf16>
  lamport.all_reduce %mb into %out
      {sum_order = #lamport.sum_order<rank_ascending>}
      : !mb, memref<?x8192xbf16>
  // CHECK: lamport.all_reduce %[[MB]] into %[[OUT]] {pdl, sum_order = #lamport.sum_order<pairwise>, timeout_ns = 1000 : i64} : [[MBT]], memref<?x8192xbf16>
  lamport.all_reduce %mb into %out
      {sum_order = #lamport.sum_order<pairwise>, timeout_ns = 1000 : i64, pdl}
      : !mb, memref<?x8192xbf16>
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

// CHECK-LABEL: func.func @all_reduce_dual_norm
// CHECK-SAME: (%[[MB:[a-z0-9]+]]: [[MBT]], %[[ST:[a-z0-9]+]]: memref<?x8192xf32>, %[[A1:[a-z0-9]+]]: memref<1xf32>, %[[B1:[a-z0-9]+]]: memref<1xf32>, %[[AH:[a-z0-9]+]]: memref<8192xf32>, %[[BH:[a-z0-9]+]]: memref<8192xf32>, %[[PW:[a-z0-9]+]]: memref<8192xbf16>, %[[NW:[a-z0-9]+]]: memref<8192xbf16>, %[[OUT:[a-z0-9]+]]: memref<?x8192xbf16>)
func.func @all_reduce_dual_norm(%mb: !mb, %stream: memref<?x8192xf32>,
                                %alpha: memref<1xf32>, %beta: memref<1xf32>,
                                %alpha_h: memref<8192xf32>,
                                %beta_h: memref<8192xf32>,
                                %post: memref<8192xbf16>,
                                %next: memref<8192xbf16>,
                                %out: memref<?x8192xbf16>) {
  // Scalar gates, no post-attention weight, the default eps.
  // CHECK: lamport.all_reduce_dual_norm %[[MB]], %[[ST]] gates(%[[A1]], %[[B1]]) next_weight %[[NW]] into %[[OUT]] : [[MBT]], memref<?x8192xf32>, memref<1xf32>, memref<1xf32>, memref<8192xbf16>, memref<?x8192xbf16>
  lamport.all_reduce_dual_norm %mb, %stream gates(%alpha, %beta)
      next_weight %next into %out
      : !mb, memref<?x8192xf32>, memref<1xf32>, memref<1xf32>,
        memref<8192xbf16>, memref<?x8192xbf16>
  // Per-channel gates, a post-attention weight, every attribute set.
  // CHECK: lamport.all_reduce_dual_norm %[[MB]], %[[ST]] gates(%[[AH]], %[[BH]]) post_weight %[[PW]] : memref<8192xbf16> next_weight %[[NW]] into %[[OUT]] {eps = 9.99999974E-6 : f32, pdl, sum_order = #lamport.sum_order<pairwise>, timeout_ns = 50000 : i64} : [[MBT]], memref<?x8192xf32>, memref<8192xf32>, memref<8192xf32>, memref<8192xbf16>, memref<?x8192xbf16>
  lamport.all_reduce_dual_norm %mb, %stream gates(%alpha_h, %beta_h)
      post_weight %post : memref<8192xbf16> next_weight %next into %out
      {eps = 1.0e-05 : f32, sum_order = #lamport.sum_order<pairwise>,
       timeout_ns = 50000 : i64, pdl}
      : !mb, memref<?x8192xf32>, memref<8192xf32>, memref<8192xf32>,
        memref<8192xbf16>, memref<?x8192xbf16>
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

// The boundary in one kernel: the op publishes its partial first.
// CHECK-LABEL: func.func @all_reduce_dual_norm_publishing
// CHECK-SAME: (%[[MB:[a-z0-9]+]]: [[MBT]], %[[P:[a-z0-9]+]]: memref<?x8192xbf16>, %[[ST:[a-z0-9]+]]: memref<?x8192xf32>, %[[A:[a-z0-9]+]]: memref<1xf32>, %[[B:[a-z0-9]+]]: memref<1xf32>, %[[NW:[a-z0-9]+]]: memref<8192xbf16>, %[[OUT:[a-z0-9]+]]: memref<?x8192xbf16>)
func.func @all_reduce_dual_norm_publishing(%mb: !mb,
    %partial: memref<?x8192xbf16>, %stream: memref<?x8192xf32>,
    %alpha: memref<1xf32>, %beta: memref<1xf32>, %next: memref<8192xbf16>,
    %out: memref<?x8192xbf16>) {
  // CHECK: lamport.all_reduce_dual_norm %[[MB]] publishing(%[[P]] : memref<?x8192xbf16>), %[[ST]] gates(%[[A]], %[[B]]) next_weight %[[NW]] into %[[OUT]] : [[MBT]], memref<?x8192xf32>, memref<1xf32>, memref<1xf32>, memref<8192xbf16>, memref<?x8192xbf16>
  lamport.all_reduce_dual_norm %mb publishing(%partial : memref<?x8192xbf16>),
      %stream gates(%alpha, %beta) next_weight %next into %out
      : !mb, memref<?x8192xf32>, memref<1xf32>, memref<1xf32>,
        memref<8192xbf16>, memref<?x8192xbf16>
  // CHECK: lamport.all_reduce_dual_norm %[[MB]] publishing(%[[P]] : memref<?x8192xbf16>), {{.*}} {pdl, transport = #lamport.transport<multicast>}
  lamport.all_reduce_dual_norm %mb publishing(%partial : memref<?x8192xbf16>),
      %stream gates(%alpha, %beta) next_weight %next into %out
      {transport = #lamport.transport<multicast>, pdl}
      : !mb, memref<?x8192xf32>, memref<1xf32>, memref<1xf32>,
        memref<8192xbf16>, memref<?x8192xbf16>
  return
}

// -----

// CHECK-LABEL: func.func @dual_norm
// CHECK-SAME: (%[[R:[a-z0-9]+]]: memref<?x4096xbf16>, %[[ST:[a-z0-9]+]]: memref<?x4096xf32>, %[[A:[a-z0-9]+]]: memref<1xf32>, %[[B:[a-z0-9]+]]: memref<4096xf32>, %[[PW:[a-z0-9]+]]: memref<4096xbf16>, %[[NW:[a-z0-9]+]]: memref<4096xbf16>, %[[OUT:[a-z0-9]+]]: memref<?x4096xbf16>)
func.func @dual_norm(%reduced: memref<?x4096xbf16>,
                     %stream: memref<?x4096xf32>, %alpha: memref<1xf32>,
                     %beta: memref<4096xf32>, %post: memref<4096xbf16>,
                     %next: memref<4096xbf16>, %out: memref<?x4096xbf16>) {
  // CHECK: lamport.dual_norm %[[R]], %[[ST]] gates(%[[A]], %[[B]]) next_weight %[[NW]] into %[[OUT]] : memref<?x4096xbf16>, memref<?x4096xf32>, memref<1xf32>, memref<4096xf32>, memref<4096xbf16>, memref<?x4096xbf16>
  lamport.dual_norm %reduced, %stream gates(%alpha, %beta)
      next_weight %next into %out
      : memref<?x4096xbf16>, memref<?x4096xf32>, memref<1xf32>,
        memref<4096xf32>, memref<4096xbf16>, memref<?x4096xbf16>
  // CHECK: lamport.dual_norm %[[R]], %[[ST]] gates(%[[A]], %[[B]]) post_weight %[[PW]] : memref<4096xbf16> next_weight %[[NW]] into %[[OUT]] {eps = 1.000000e-03 : f32, pdl} : memref<?x4096xbf16>, memref<?x4096xf32>, memref<1xf32>, memref<4096xf32>, memref<4096xbf16>, memref<?x4096xbf16>
  lamport.dual_norm %reduced, %stream gates(%alpha, %beta)
      post_weight %post : memref<4096xbf16> next_weight %next into %out
      {eps = 1.0e-03 : f32, pdl}
      : memref<?x4096xbf16>, memref<?x4096xf32>, memref<1xf32>,
        memref<4096xf32>, memref<4096xbf16>, memref<?x4096xbf16>
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 1024>

// CHECK: !mailbox_tp8_c16_w1024 = !lamport.mailbox<tp = 8, capacity = 16, width = 1024>
// CHECK-LABEL: func.func @all_gather
// CHECK-SAME: (%[[MB:[a-z0-9]+]]: !mailbox_tp8_c16_w1024, %[[OUT:[a-z0-9]+]]: memref<?x8192xbf16>)
func.func @all_gather(%mb: !mb, %out: memref<?x8192xbf16>) {
  // CHECK: lamport.all_gather %[[MB]] into %[[OUT]] : !mailbox_tp8_c16_w1024, memref<?x8192xbf16>
  lamport.all_gather %mb into %out : !mb, memref<?x8192xbf16>
  // CHECK: lamport.all_gather %[[MB]] into %[[OUT]] {pdl, timeout_ns = 7 : i64} : !mailbox_tp8_c16_w1024, memref<?x8192xbf16>
  lamport.all_gather %mb into %out {timeout_ns = 7 : i64, pdl}
      : !mb, memref<?x8192xbf16>
  return
}
