// RUN: lamport-opt %s --lamport-check-protocol --split-input-file --verify-diagnostics

// The program rules of lamport-check-protocol, each broken once: the error
// at one op, a note at the other. check_protocol.mlir holds the programs
// that keep each rule.

// Rule 1: a consumer with no publish before it.

!mb = !lamport.mailbox<tp = 2, capacity = 16, width = 256>

// expected-note @+1 {{mailbox argument 0, which no op of the program publishes into}}
func.func @consumed_never_published(%mb: !mb, %out: memref<?x256xbf16>) {
  // expected-error @+1 {{'lamport.all_reduce' op consumes mailbox argument 0, but no earlier op of the step publishes into it that another consumer has not taken: its poll would wait for rows nobody writes until the timeout traps}}
  lamport.all_reduce %mb into %out : !mb, memref<?x256xbf16>
  return
}

// -----

// Rule 1: two consumers of one publish.

!mb = !lamport.mailbox<tp = 2, capacity = 16, width = 256>

func.func @consumed_twice(%rows: memref<?x256xbf16>, %mb: !mb,
                          %out: memref<2x?x256xbf16>) {
  lamport.publish_rows %rows into %mb : memref<?x256xbf16>, !mb
  // expected-note @+1 {{the mailbox's last publish is consumed here}}
  lamport.poll_rows %mb into %out : !mb, memref<2x?x256xbf16>
  // expected-error @+1 {{'lamport.poll_rows' op consumes mailbox argument 1, but no earlier op of the step publishes into it}}
  lamport.poll_rows %mb into %out : !mb, memref<2x?x256xbf16>
  return
}

// -----

// Rule 1 (and 2): the consumer before the publisher.

!mb = !lamport.mailbox<tp = 2, capacity = 16, width = 1024>

func.func @consumed_before_published(%x: memref<?x4096xbf16>,
                                     %w: memref<1024x4096xbf16>,
                                     %y: memref<?x1024xbf16>, %mb: !mb,
                                     %out: memref<?x2048xbf16>) {
  // expected-error @+2 {{'lamport.all_gather' op consumes mailbox argument 3, but no earlier op of the step publishes into it}}
  // expected-note @+1 {{the mailbox's last consumer runs before the publish}}
  lamport.all_gather %mb into %out : !mb, memref<?x2048xbf16>
  // expected-note @+2 {{the mailbox is published only after its consumer, here}}
  // expected-error @+1 {{'lamport.gemm_publish' op publishes into mailbox argument 3, but no later op of the step consumes it}}
  lamport.gemm_publish %x, %w into %y mailbox %mb : !mb
      tactic(#lamport.tactic<splits = 1, kw = 128, accs = 2,
          token_tiles = [8, 8, 8, 8, 8, 8, 8, 8,
                         16, 16, 16, 16, 16, 16, 16, 16]>)
      : memref<?x4096xbf16>, memref<1024x4096xbf16>, memref<?x1024xbf16>
  return
}

// -----

// Rule 2: a publish no consumer takes.

!mb = !lamport.mailbox<tp = 2, capacity = 16, width = 256>

// expected-note @+1 {{mailbox argument 1, which no op of the program consumes}}
func.func @published_never_consumed(%rows: memref<?x256xbf16>, %mb: !mb) {
  // expected-error @+1 {{'lamport.publish_rows' op publishes into mailbox argument 1, but no later op of the step consumes it: its rows are never read nor re-armed and NEXT does not advance, so the next step publishes into the same generation}}
  lamport.publish_rows %rows into %mb : memref<?x256xbf16>, !mb
  return
}

// -----

// Rule 3: two publishes into one generation.

!mb = !lamport.mailbox<tp = 2, capacity = 16, width = 256>

func.func @two_publishes(%rows: memref<?x256xbf16>, %mb: !mb,
                         %out: memref<?x256xbf16>) {
  // expected-note @+1 {{the earlier publish, with no consumer between the two}}
  lamport.publish_rows %rows into %mb : memref<?x256xbf16>, !mb
  // expected-error @+1 {{'lamport.publish_rows' op publishes into mailbox argument 1 while an earlier publish into it is not consumed yet: both write slot [NEXT, rank] of one generation, the second over rows a peer may still be reading}}
  lamport.publish_rows %rows into %mb : memref<?x256xbf16>, !mb
  lamport.all_reduce %mb into %out : !mb, memref<?x256xbf16>
  return
}

// -----

// Rule 3: a fused boundary that publishes over a publish not consumed.

!mb = !lamport.mailbox<tp = 2, capacity = 16, width = 256>

func.func @publish_then_fused(%partial: memref<?x256xbf16>, %mb: !mb,
                              %stream: memref<?x256xf32>,
                              %gate: memref<1xf32>,
                              %weight: memref<256xbf16>,
                              %out: memref<?x256xbf16>) {
  // expected-note @+1 {{the earlier publish, with no consumer between the two}}
  lamport.publish_rows %partial into %mb : memref<?x256xbf16>, !mb
  // expected-error @+1 {{'lamport.all_reduce_dual_norm' op publishes into mailbox argument 1 while an earlier publish into it is not consumed yet}}
  lamport.all_reduce_dual_norm %mb publishing(%partial : memref<?x256xbf16>),
      %stream gates(%gate, %gate) next_weight %weight into %out
      : !mb, memref<?x256xf32>, memref<1xf32>, memref<1xf32>,
        memref<256xbf16>, memref<?x256xbf16>
  return
}

// -----

// Rule 4: a consumer that reads more rows than were published.

!mb = !lamport.mailbox<tp = 2, capacity = 16, width = 256>

func.func @more_rows(%rows: memref<4x256xbf16>, %mb: !mb,
                     %out: memref<8x256xbf16>) {
  // expected-note @+1 {{the publisher, 4 rows}}
  lamport.publish_rows %rows into %mb : memref<4x256xbf16>, !mb
  // expected-error @+1 {{'lamport.all_reduce' op reads 8 rows of mailbox argument 1, but its publisher published 4: the poll would wait for rows nobody writes until the timeout traps}}
  lamport.all_reduce %mb into %out : !mb, memref<8x256xbf16>
  return
}

// -----

// Rule 4: fewer rows than were published.

!mb = !lamport.mailbox<tp = 2, capacity = 16, width = 256>

func.func @fewer_rows(%rows: memref<8x256xbf16>, %mb: !mb,
                      %out: memref<2x4x256xbf16>) {
  // expected-note @+1 {{the publisher, 8 rows}}
  lamport.publish_rows %rows into %mb : memref<8x256xbf16>, !mb
  // expected-error @+1 {{'lamport.poll_rows' op reads 4 rows of mailbox argument 1, but its publisher published 8: the rows past 4 are never read nor re-armed, and a later poll of them would take stale rows for new ones}}
  lamport.poll_rows %mb into %out : !mb, memref<2x4x256xbf16>
  return
}

// -----

// Rule 5: two TP groups in one program.

!tp8 = !lamport.mailbox<tp = 8, capacity = 16, width = 256>
!tp4 = !lamport.mailbox<tp = 4, capacity = 16, width = 256>

func.func @two_tp_groups(%rows: memref<?x256xbf16>, %a: !tp8, %b: !tp4,
                         %out: memref<?x256xbf16>) {
  // expected-note @+1 {{mailbox argument 1 (tp = 8) is used here}}
  lamport.publish_rows %rows into %a : memref<?x256xbf16>, !tp8
  lamport.all_reduce %a into %out : !tp8, memref<?x256xbf16>
  // expected-error @+1 {{'lamport.publish_rows' op mailbox argument 2 has tp = 4, but mailbox argument 1 has tp = 8: a program runs on one TP group, so all its mailboxes share one tp}}
  lamport.publish_rows %rows into %b : memref<?x256xbf16>, !tp4
  lamport.all_reduce %b into %out : !tp4, memref<?x256xbf16>
  return
}

// -----

// Rule 5: a mailbox argument no op uses still becomes a mailbox of the
// bundle, so it is in the TP group too.

!tp8 = !lamport.mailbox<tp = 8, capacity = 16, width = 256>
!tp4 = !lamport.mailbox<tp = 4, capacity = 16, width = 256>

func.func @unused_other_tp(%a: !tp8,
                           // expected-error @+1 {{mailbox argument 1 has tp = 4, but mailbox argument 0 has tp = 8}}
                           %b: !tp4,
                           %rows: memref<?x256xbf16>,
                           %out: memref<?x256xbf16>) {
  // expected-note @+1 {{mailbox argument 0 (tp = 8) is used here}}
  lamport.publish_rows %rows into %a : memref<?x256xbf16>, !tp8
  lamport.all_reduce %a into %out : !tp8, memref<?x256xbf16>
  return
}

// -----

// The rules hold for launches of hand-written kernels too: what a kernel
// does to its mailbox parameter is read off its body.

!mb = !lamport.mailbox<tp = 2, capacity = 4, width = 64>

module attributes {gpu.container_module} {
  gpu.module @publish {
    gpu.func @publish(%mb: !mb, %v: vector<8xbf16>, %row: index,
                      %col: index) kernel {
      %stage = lamport.stage.next %mb : !mb
      lamport.mailbox.publish %v, %mb[%stage, %row, %col] : vector<8xbf16>, !mb
      lamport.stage.set_active %mb, %stage : !mb
      gpu.return
    }
  }
  gpu.module @consume {
    gpu.func @consume(%mb: !mb, %row: index, %col: index) kernel {
      %stage = lamport.stage.active %mb : !mb
      %c0 = arith.constant 0 : i32
      %slot = arith.constant 256 : index
      %f = lamport.mailbox.poll %mb[%stage, %c0, %row, %col] stride %slot
          : !mb -> vector<2x8xbf16>
      lamport.mailbox.rearm %mb[%stage, %c0, %row, %col] stride %slot count 2
          : !mb
      lamport.stage.advance %mb, %stage : !mb
      gpu.return
    }
  }
  func.func @launched_twice(%mb: !mb, %v: vector<8xbf16>, %i: index) {
    %c1 = arith.constant 1 : index
    // expected-note @+1 {{the earlier publish, with no consumer between the two}}
    gpu.launch_func @publish::@publish blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%mb : !mb, %v : vector<8xbf16>,
                                        %i : index, %i : index)
    // expected-error @+1 {{'gpu.launch_func' op publishes into mailbox argument 0 while an earlier publish into it is not consumed yet}}
    gpu.launch_func @publish::@publish blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%mb : !mb, %v : vector<8xbf16>,
                                        %i : index, %i : index)
    gpu.launch_func @consume::@consume blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%mb : !mb, %i : index, %i : index)
    return
  }
}

// -----

// The alternatives of one op chosen by M must do the same to the mailbox.

!mb = !lamport.mailbox<tp = 2, capacity = 4, width = 64>

module attributes {gpu.container_module} {
  gpu.module @publish {
    gpu.func @publish(%mb: !mb, %v: vector<8xbf16>, %row: index,
                      %col: index) kernel {
      %stage = lamport.stage.next %mb : !mb
      lamport.mailbox.publish %v, %mb[%stage, %row, %col] : vector<8xbf16>, !mb
      lamport.stage.set_active %mb, %stage : !mb
      gpu.return
    }
  }
  gpu.module @consume {
    gpu.func @consume(%mb: !mb, %row: index, %col: index) kernel {
      %stage = lamport.stage.active %mb : !mb
      %c0 = arith.constant 0 : i32
      %slot = arith.constant 256 : index
      %f = lamport.mailbox.poll %mb[%stage, %c0, %row, %col] stride %slot
          : !mb -> vector<2x8xbf16>
      lamport.mailbox.rearm %mb[%stage, %c0, %row, %col] stride %slot count 2
          : !mb
      lamport.stage.advance %mb, %stage : !mb
      gpu.return
    }
  }
  gpu.module @other {
    gpu.func @other(%v: vector<8xbf16>) kernel {
      gpu.return
    }
  }
  func.func @one_branch(%mb: !mb, %v: vector<8xbf16>, %i: index,
                        %small: i1) {
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{'scf.if' op leaves a publish into mailbox argument 0 pending in one branch only: the alternatives of one step must do the same to each mailbox}}
    scf.if %small {
      // expected-note @+1 {{the branch's publish, not consumed in it}}
      gpu.launch_func @publish::@publish blocks in (%c1, %c1, %c1)
          threads in (%c1, %c1, %c1) args(%mb : !mb, %v : vector<8xbf16>,
                                          %i : index, %i : index)
    } else {
      gpu.launch_func @other::@other blocks in (%c1, %c1, %c1)
          threads in (%c1, %c1, %c1) args(%v : vector<8xbf16>)
    }
    gpu.launch_func @consume::@consume blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%mb : !mb, %i : index, %i : index)
    return
  }
}
