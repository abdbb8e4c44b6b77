// RUN: lamport-opt %s -split-input-file -convert-lamport-to-nvvm -verify-diagnostics
// RUN: not lamport-opt %s -split-input-file -convert-lamport-to-nvvm=transport=broadcast 2>&1 | FileCheck %s --check-prefix=TRANSPORT

// What convert-lamport-to-nvvm refuses, each with the rule it breaks.

// TRANSPORT: for the --transport option: Cannot find option named 'broadcast'!

!mb = !lamport.mailbox<tp = 2, capacity = 8, width = 512>

// A program-level op must become kernels first.
gpu.module @program_level {
  gpu.func @kernel(%rows: memref<8x512xbf16, 1>, %mb: !mb) kernel {
    // expected-error @below {{'lamport.publish_rows' op is a program-level op: turn it into kernels (lamport-generate-kernels) before convert-lamport-to-nvvm}}
    lamport.publish_rows %rows into %mb : memref<8x512xbf16, 1>, !mb
    gpu.return
  }
}

// -----

!mb = !lamport.mailbox<tp = 2, capacity = 8, width = 512>

// A mailbox reaches a kernel only as a by-value descriptor parameter: a
// device function cannot take one.
gpu.module @function_argument {
  func.func @helper(%mb: !mb) -> i32 {
    // expected-error @below {{'lamport.stage.active' op uses a mailbox that is not an argument of its gpu.func: a mailbox reaches a kernel only as its by-value descriptor parameter}}
    %stage = lamport.stage.active %mb : !mb
    return %stage : i32
  }
}

// -----

!mb = !lamport.mailbox<tp = 2, capacity = 8, width = 512>

// Only the primitives may use a mailbox: no call takes one.
gpu.module @call_operand {
  func.func private @helper(!mb)
  gpu.func @kernel(%mb: !mb) kernel {
    // expected-error @below {{'func.call' op takes a mailbox: only the lamport primitives may use one inside a kernel}}
    func.call @helper(%mb) : (!mb) -> ()
    gpu.return
  }
}

// -----

!mb = !lamport.mailbox<tp = 2, capacity = 8, width = 512>

// Nor does a mailbox flow through control flow.
gpu.module @yielded {
  gpu.func @kernel(%a: !mb, %b: !mb, %pick: i1) kernel {
    %mb = scf.if %pick -> (!mb) {
      // expected-error @below {{'scf.yield' op takes a mailbox: only the lamport primitives may use one inside a kernel}}
      scf.yield %a : !mb
    } else {
      scf.yield %b : !mb
    }
    gpu.return
  }
}

// -----

// The pass option timeout-ns must be positive (checked on every gpu.module).
// RUN: not lamport-opt %s -split-input-file -convert-lamport-to-nvvm=timeout-ns=0 2>&1 | FileCheck %s --check-prefix=TIMEOUT
// TIMEOUT: error: timeout-ns must be positive, got 0
gpu.module @timeout {
}

// -----

!mb = !lamport.mailbox<tp = 2, capacity = 8, width = 512>

// The polls' timeout override is the module's i64 global named
// lamport_poll_timeout_ns; another symbol may not take that name.
gpu.module @override_name_taken {
  // expected-error @below {{'llvm.mlir.global' op takes the name 'lamport_poll_timeout_ns' that the polls' timeout override needs: an i64 global in address space 1}}
  llvm.mlir.global external @lamport_poll_timeout_ns(0 : i32) {addr_space = 1 : i32} : i32
  gpu.func @kernel(%mb: !mb, %stage: i32, %slot: i32) kernel {
    %c0 = arith.constant 0 : index
    %f = lamport.mailbox.poll_at %mb[%stage, %slot, %c0, %c0] offsets [0]
        : !mb -> vector<1x8xbf16>
    gpu.return
  }
}
