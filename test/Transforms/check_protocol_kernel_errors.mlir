// RUN: lamport-opt %s --lamport-check-protocol --split-input-file --verify-diagnostics

// The kernel rules of lamport-check-protocol, each broken once: the error
// at one op, a note at the other. check_protocol.mlir holds the kernels
// that keep each rule.

// Rule 6: a publish into a constant stage.

!mb = !lamport.mailbox<tp = 2, capacity = 16, width = 256>

gpu.module @kernels {
  gpu.func @constant_stage(%mb: !mb, %v: vector<8xbf16>, %row: index,
                           %col: index) kernel {
    // expected-note @+1 {{the constant stage}}
    %stage = arith.constant 1 : i32
    // expected-error @+1 {{'lamport.mailbox.publish' op publishes into constant stage 1: the generation never rotates, so the next launch publishes into the generation a slower peer may still be reading; take the stage from lamport.stage.next or a ticket}}
    lamport.mailbox.publish %v, %mb[%stage, %row, %col] : vector<8xbf16>, !mb
    lamport.stage.set_active %mb, %stage : !mb
    gpu.return
  }
}

// -----

// Rule 6: a publish into the ACTIVE generation.

!mb = !lamport.mailbox<tp = 2, capacity = 16, width = 256>

gpu.module @kernels {
  gpu.func @active_stage(%mb: !mb, %v: vector<8xbf16>, %row: index,
                         %col: index) kernel {
    // expected-note @+1 {{the ACTIVE stage word, read here}}
    %stage = lamport.stage.active %mb : !mb
    // expected-error @+1 {{'lamport.mailbox.publish' op publishes into the ACTIVE generation, the one this rank's consumer reads, over rows a peer may still be reading: a publisher writes the generation NEXT names}}
    lamport.mailbox.publish %v, %mb[%stage, %row, %col] : vector<8xbf16>, !mb
    gpu.return
  }
}

// -----

// Rule 7: one fragment published twice (the column computed twice is the
// same column).

!mb = !lamport.mailbox<tp = 2, capacity = 16, width = 256>

gpu.module @kernels {
  gpu.func @twice(%mb: !mb, %v: vector<8xbf16>, %row: index,
                  %base: index) kernel {
    %stage = lamport.stage.next %mb : !mb
    %c8 = arith.constant 8 : index
    %col = arith.addi %base, %c8 : index
    // expected-note @+1 {{the earlier publish}}
    lamport.mailbox.publish %v, %mb[%stage, %row, %col] : vector<8xbf16>, !mb
    %eight = arith.constant 8 : index
    %again = arith.addi %base, %eight : index
    // expected-error @+1 {{'lamport.mailbox.publish' op publishes the fragment at the same stage, row and column as an earlier publish: a peer may take the first store for the data}}
    lamport.mailbox.publish %v, %mb[%stage, %row, %again] : vector<8xbf16>, !mb
    lamport.stage.set_active %mb, %stage : !mb
    gpu.return
  }
}

// -----

// Rule 8: ACTIVE set to a stage the kernel did not publish into.

!mb = !lamport.mailbox<tp = 2, capacity = 16, width = 256>

gpu.module @kernels {
  gpu.func @set_active(%mb: !mb, %v: vector<8xbf16>, %row: index,
                       %col: index) kernel {
    %stage = lamport.stage.next %mb : !mb
    %active = lamport.stage.active %mb : !mb
    // expected-note @+1 {{a publish of the kernel, into another stage}}
    lamport.mailbox.publish %v, %mb[%stage, %row, %col] : vector<8xbf16>, !mb
    // expected-error @+1 {{'lamport.stage.set_active' op sets ACTIVE to a stage none of this kernel's publishes into the mailbox wrote: the consumer would poll a generation nobody published into}}
    lamport.stage.set_active %mb, %active : !mb
    gpu.return
  }
}

// -----

// Rule 9: NEXT advanced past a constant stage.

!mb = !lamport.mailbox<tp = 2, capacity = 16, width = 256>

gpu.module @kernels {
  gpu.func @advance_constant(%mb: !mb) kernel {
    // expected-note @+1 {{the constant stage}}
    %c0 = arith.constant 0 : i32
    // expected-error @+1 {{'lamport.stage.advance' op advances NEXT past constant stage 0: NEXT would never rotate, so every publish would write the same generation}}
    lamport.stage.advance %mb, %c0 : !mb
    gpu.return
  }
}

// -----

// Rule 9: NEXT advanced past a stage the kernel's polls did not read.

!mb = !lamport.mailbox<tp = 2, capacity = 16, width = 256>

gpu.module @kernels {
  gpu.func @advance_other(%mb: !mb, %token: index, %fragment: index) kernel {
    %active = lamport.stage.active %mb : !mb
    %next = lamport.stage.next %mb : !mb
    // expected-note @+1 {{a poll of the kernel, of another stage}}
    %f = lamport.mailbox.poll_owned %mb[%active, %token, %fragment]
        : !mb -> vector<1x8xbf16>
    // expected-error @+1 {{'lamport.stage.advance' op advances NEXT past a stage none of this kernel's polls of the mailbox read: the next publish would land in a generation out of step with the one consumed}}
    lamport.stage.advance %mb, %next : !mb
    gpu.return
  }
}

// -----

// Rule 10: a re-arm before the poll that reads the fragments.

!mb = !lamport.mailbox<tp = 2, capacity = 16, width = 256>

gpu.module @kernels {
  gpu.func @rearm_before_poll(%mb: !mb, %row: index, %col: index,
                              %slots: index) kernel {
    %stage = lamport.stage.active %mb : !mb
    %c0 = arith.constant 0 : i32
    // expected-error @+1 {{'lamport.mailbox.rearm' op re-arms fragments this kernel still reads: the poll after it would find the sentinel and wait until the timeout traps}}
    lamport.mailbox.rearm %mb[%stage, %c0, %row, %col] stride %slots count 2
        : !mb
    // expected-note @+1 {{the poll of the same fragments, after the re-arm}}
    %f = lamport.mailbox.poll %mb[%stage, %c0, %row, %col] stride %slots
        : !mb -> vector<2x8xbf16>
    lamport.stage.advance %mb, %stage : !mb
    gpu.return
  }
}

// -----

// Rule 10: a re-arm of more fragments than the poll read.

!mb = !lamport.mailbox<tp = 2, capacity = 16, width = 256>

gpu.module @kernels {
  gpu.func @rearm_more(%mb: !mb, %row: index, %col: index) kernel {
    %stage = lamport.stage.active %mb : !mb
    %c0 = arith.constant 0 : i32
    %slot = arith.constant 4096 : index
    // expected-note @+1 {{a poll of the same stage, which does not read those fragments before the re-arm}}
    %f = lamport.mailbox.poll %mb[%stage, %c0, %row, %col] stride %slot
        : !mb -> vector<1x8xbf16>
    // expected-error @+1 {{'lamport.mailbox.rearm' op re-arms fragments no earlier poll of this kernel read: it would erase rows a peer published before anyone read them; a consumer re-arms what it polled, after the poll}}
    lamport.mailbox.rearm %mb[%stage, %c0, %row, %col] stride %slot count 2
        : !mb
    lamport.stage.advance %mb, %stage : !mb
    gpu.return
  }
}

// -----

// Rule 10: a re-arm after a poll that may not have run.

!mb = !lamport.mailbox<tp = 2, capacity = 16, width = 256>

gpu.module @kernels {
  gpu.func @rearm_after_branch(%mb: !mb, %row: index, %col: index,
                               %first: i1) kernel {
    %stage = lamport.stage.active %mb : !mb
    %c0 = arith.constant 0 : i32
    scf.if %first {
      // expected-note @+1 {{a poll of the same stage, which does not read those fragments before the re-arm}}
      %f = lamport.mailbox.poll_at %mb[%stage, %c0, %row, %col] offsets [0]
          : !mb -> vector<1x8xbf16>
    }
    // expected-error @+1 {{'lamport.mailbox.rearm' op re-arms fragments no earlier poll of this kernel read}}
    lamport.mailbox.rearm %mb[%stage, %c0, %row, %col] : !mb
    gpu.return
  }
}

// -----

// Rule 10: a re-arm in a kernel that reads nothing.

!mb = !lamport.mailbox<tp = 2, capacity = 16, width = 256>

gpu.module @kernels {
  gpu.func @rearm_unread(%mb: !mb, %row: index, %col: index) kernel {
    // expected-note @+1 {{the stage re-armed, which no poll reads}}
    %stage = lamport.stage.active %mb : !mb
    %c0 = arith.constant 0 : i32
    // expected-error @+1 {{'lamport.mailbox.rearm' op re-arms fragments no earlier poll of this kernel read}}
    lamport.mailbox.rearm %mb[%stage, %c0, %row, %col] : !mb
    gpu.return
  }
}
