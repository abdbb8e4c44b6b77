// RUN: lamport-opt %s --lamport-check-protocol | FileCheck %s
// RUN: lamport-opt %s --lamport-generate-kernels --lamport-check-protocol | FileCheck %s --check-prefix=GENERATED

// Programs and kernels that keep every rule of lamport-check-protocol: the
// pass accepts them and changes nothing. check_protocol_errors.mlir and
// check_protocol_kernel_errors.mlir break each rule. Every program of
// docs/examples is checked too (test/Examples/examples.test), before and
// after kernel generation, so the generated kernels keep the kernel rules.

!attn = !lamport.mailbox<tp = 4, capacity = 16, width = 256>
!cols = !lamport.mailbox<tp = 4, capacity = 8, width = 64>

// Two boundaries of one TP group (widths and capacities differ), and one
// mailbox used for two exchanges in a step: the second publish follows the
// consumer that took the first.
// CHECK-LABEL: func.func @two_boundaries
// GENERATED-LABEL: func.func @two_boundaries
// GENERATED: gpu.launch_func @publish_rows_0::
// GENERATED: gpu.launch_func @all_reduce_0::
// GENERATED: gpu.launch_func @gemm_publish_0::
// GENERATED: gpu.launch_func @all_gather_0::
// GENERATED: gpu.launch_func @publish_rows_1::
// GENERATED: gpu.launch_func @poll_rows_0::
// GENERATED: return
func.func @two_boundaries(%rows: memref<?x256xbf16>, %mb: !attn,
                          %sum: memref<?x256xbf16>,
                          %x: memref<?x128xbf16>, %w: memref<64x128xbf16>,
                          %y: memref<?x64xbf16>, %columns: !cols,
                          %gathered: memref<?x256xbf16>,
                          %back: memref<4x?x256xbf16>) {
  lamport.publish_rows %rows into %mb : memref<?x256xbf16>, !attn
  lamport.all_reduce %mb into %sum : !attn, memref<?x256xbf16>
  lamport.gemm_publish %x, %w into %y mailbox %columns : !cols
      tactic(#lamport.tactic<splits = 1, kw = 32, accs = 2,
                 token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>)
      : memref<?x128xbf16>, memref<64x128xbf16>, memref<?x64xbf16>
  lamport.all_gather %columns into %gathered : !cols, memref<?x256xbf16>
  lamport.publish_rows %sum into %mb : memref<?x256xbf16>, !attn
  lamport.poll_rows %mb into %back : !attn, memref<4x?x256xbf16>
  return
}

// The fused boundary publishes and consumes in one op; a static token count
// on both sides agrees; a static count against the step's M is not
// decided.
// CHECK-LABEL: func.func @fused_and_static
// GENERATED-LABEL: func.func @fused_and_static
// GENERATED: gpu.launch_func @all_reduce_dual_norm_0::
func.func @fused_and_static(%partial: memref<?x256xbf16>, %mb: !attn,
                            %stream: memref<?x256xf32>, %gate: memref<1xf32>,
                            %weight: memref<256xbf16>,
                            %out: memref<?x256xbf16>,
                            %four: memref<4x256xbf16>,
                            %four_out: memref<4x256xbf16>) {
  lamport.all_reduce_dual_norm %mb publishing(%partial : memref<?x256xbf16>),
      %stream gates(%gate, %gate) next_weight %weight into %out
      : !attn, memref<?x256xf32>, memref<1xf32>, memref<1xf32>,
        memref<256xbf16>, memref<?x256xbf16>
  lamport.publish_rows %four into %mb : memref<4x256xbf16>, !attn
  lamport.all_reduce %mb into %four_out : !attn, memref<4x256xbf16>
  lamport.publish_rows %four into %mb : memref<4x256xbf16>, !attn
  lamport.all_reduce %mb into %out : !attn, memref<?x256xbf16>
  return
}

// A program without a mailbox has nothing to check.
// CHECK-LABEL: func.func @no_mailbox
func.func @no_mailbox(%x: memref<?x128xbf16>, %w: memref<64x128xbf16>,
                      %y: memref<?x64xbf16>) {
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 32, accs = 2,
                 token_tiles = [8, 8, 8, 8, 8, 8, 8, 8,
                                16, 16, 16, 16, 16, 16, 16, 16]>)
      : memref<?x128xbf16>, memref<64x128xbf16>, memref<?x64xbf16>
  return
}

// Hand-written kernels that keep the kernel rules, and a program of their
// launches: a publisher chosen by M, then a consumer.
!mb = !lamport.mailbox<tp = 2, capacity = 4, width = 64>

module attributes {gpu.container_module} {
  gpu.module @kernels {
    // A publisher: NEXT, one publish per fragment (routed publishes of one
    // fragment go to different ranks), ACTIVE = the stage published.
    // CHECK-LABEL: gpu.func @publish
    gpu.func @publish(%mb: !mb, %v: vector<8xbf16>, %row: index,
                      %col: index) kernel {
      %stage = lamport.stage.next %mb : !mb
      %c8 = arith.constant 8 : index
      %next_col = arith.addi %col, %c8 : index
      lamport.mailbox.publish %v, %mb[%stage, %row, %col] : vector<8xbf16>, !mb
      lamport.mailbox.publish %v, %mb[%stage, %row, %next_col]
          : vector<8xbf16>, !mb
      %r0 = arith.constant 0 : i32
      %r1 = arith.constant 1 : i32
      lamport.mailbox.publish %v, %mb[%stage, %row, %col] to %r0
          : vector<8xbf16>, !mb
      lamport.mailbox.publish %v, %mb[%stage, %row, %col] to %r1
          : vector<8xbf16>, !mb
      lamport.stage.set_active %mb, %stage : !mb
      gpu.return
    }

    // A publisher whose stage is a ticket's, or the caller's: not decided.
    // CHECK-LABEL: gpu.func @publish_ticket
    gpu.func @publish_ticket(%mb: !mb, %v: vector<8xbf16>, %ticket: i32,
                             %stage: i32, %row: index,
                             %col: index) kernel {
      %from_ticket = lamport.stage.from_ticket %ticket
      lamport.mailbox.publish %v, %mb[%from_ticket, %row, %col]
          : vector<8xbf16>, !mb
      %c8 = arith.constant 8 : index
      %next_col = arith.addi %col, %c8 : index
      lamport.mailbox.publish %v, %mb[%stage, %row, %next_col]
          : vector<8xbf16>, !mb
      gpu.return
    }

    // A consumer: each re-arm after the poll that read its fragments (the
    // same stride, a run-time one too; offsets within the poll's; constants
    // and columns computed again compare equal), NEXT advanced past the
    // stage read.
    // CHECK-LABEL: gpu.func @consume
    gpu.func @consume(%mb: !mb, %row: index, %col: index,
                      %stride: index) kernel {
      %stage = lamport.stage.active %mb : !mb
      %c0 = arith.constant 0 : i32
      %slot = arith.constant 256 : index
      %f = lamport.mailbox.poll %mb[%stage, %c0, %row, %col] stride %slot
          : !mb -> vector<2x8xbf16>
      %g = lamport.mailbox.poll %mb[%stage, %c0, %row, %col] stride %stride
          : !mb -> vector<4x8xbf16>
      %c16 = arith.constant 16 : index
      %far = arith.addi %col, %c16 : index
      %h = lamport.mailbox.poll_at %mb[%stage, %c0, %row, %far]
          offsets [0, 8, 16] : !mb -> vector<3x8xbf16>
      %zero = arith.constant 0 : i32
      %slot_again = arith.constant 256 : index
      lamport.mailbox.rearm %mb[%stage, %zero, %row, %col]
          stride %slot_again count 2 : !mb
      lamport.mailbox.rearm %mb[%stage, %c0, %row, %col] stride %stride count 3
          : !mb
      %sixteen = arith.constant 16 : index
      %far_again = arith.addi %col, %sixteen : index
      lamport.mailbox.rearm %mb[%stage, %c0, %row, %far_again] offsets [16, 0]
          : !mb
      lamport.stage.advance %mb, %stage : !mb
      gpu.return
    }

    // Publishes and consumes one generation (the fused boundary's shape):
    // NEXT published, polled, re-armed, then set ACTIVE and advanced by the
    // last CTA to arrive.
    // CHECK-LABEL: gpu.func @publish_and_consume
    gpu.func @publish_and_consume(%mb: !mb, %v: vector<8xbf16>, %row: index,
                                  %col: index) kernel {
      %stage = lamport.stage.next %mb : !mb
      %before = lamport.stage.arrive %mb {ctas = 4} : !mb
      lamport.mailbox.publish %v, %mb[%stage, %row, %col] : vector<8xbf16>, !mb
      %c0 = arith.constant 0 : i32
      %slot = arith.constant 256 : index
      %f = lamport.mailbox.poll %mb[%stage, %c0, %row, %col] stride %slot
          : !mb -> vector<2x8xbf16>
      lamport.mailbox.rearm %mb[%stage, %c0, %row, %col] stride %slot count 2
          : !mb
      %c3 = arith.constant 3 : i32
      %last = arith.cmpi eq, %before, %c3 : i32
      scf.if %last {
        lamport.stage.set_active %mb, %stage {read_after_grid} : !mb
        lamport.stage.advance %mb, %stage : !mb
      }
      gpu.return
    }

    // The column all-gather's read polls and re-arms in one op.
    // CHECK-LABEL: gpu.func @gather
    gpu.func @gather(%mb: !mb, %token: index, %fragment: index) kernel {
      %stage = lamport.stage.active %mb : !mb
      %f = lamport.mailbox.poll_owned %mb[%stage, %token, %fragment]
          : !mb -> vector<1x8xbf16>
      lamport.stage.advance %mb, %stage : !mb
      gpu.return
    }
  }

  // CHECK-LABEL: func.func @launches
  func.func @launches(%mb: !mb, %v: vector<8xbf16>, %i: index,
                      %small: i1) {
    %c1 = arith.constant 1 : index
    scf.if %small {
      gpu.launch_func @kernels::@publish blocks in (%c1, %c1, %c1)
          threads in (%c1, %c1, %c1) args(%mb : !mb, %v : vector<8xbf16>,
                                          %i : index, %i : index)
    } else {
      gpu.launch_func @kernels::@publish blocks in (%c1, %c1, %c1)
          threads in (%c1, %c1, %c1) args(%mb : !mb, %v : vector<8xbf16>,
                                          %i : index, %i : index)
    }
    gpu.launch_func @kernels::@consume blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%mb : !mb, %i : index, %i : index,
                                        %i : index)
    gpu.launch_func @kernels::@publish_and_consume blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%mb : !mb, %v : vector<8xbf16>,
                                        %i : index, %i : index)
    return
  }
}
