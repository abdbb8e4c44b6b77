// Program-level errors of lamport-compile point at an op, and an error that
// involves two ops attaches a note at the other; --verify-diagnostics checks
// them as mlir-opt's does. (Whole-file errors: errors.test.)
//
// RUN: rm -rf %t && split-file %s %t
// RUN: lamport-compile %t/tp_groups.mlir --protocol-check=false --emit=ptx -o /dev/null --verify-diagnostics
// RUN: lamport-compile %t/two_programs.mlir --emit=mlir -o /dev/null --verify-diagnostics
// RUN: lamport-compile %t/protocol.mlir -o %t/bundle --verify-diagnostics
// RUN: not test -e %t/bundle/manifest.json
// RUN: lamport-compile %t/launch.mlir --emit=mlir -o /dev/null --verify-diagnostics
//
// A diagnostic the comments do not expect fails the run.
// RUN: not lamport-compile %t/unexpected.mlir --emit=mlir -o /dev/null --verify-diagnostics 2>&1 | FileCheck %s --check-prefix=UNEXPECTED
// UNEXPECTED: error: unexpected error: 'lamport.all_reduce' op consumes mailbox argument 0

//--- tp_groups.mlir
// Mailboxes of two TP groups, the protocol check off: the bundle's own rule
// (the runtime would refuse the manifest) still refuses them.
!tp8 = !lamport.mailbox<tp = 8, capacity = 16, width = 64>
!tp4 = !lamport.mailbox<tp = 4, capacity = 16, width = 64>

func.func @two_tp_groups(%rows: memref<?x64xbf16>, %a: !tp8, %b: !tp4,
                         %sum: memref<?x64xbf16>, %other: memref<?x64xbf16>) {
  // expected-note @+1 {{mailbox argument 1 (tp = 8) is used here}}
  lamport.publish_rows %rows into %a : memref<?x64xbf16>, !tp8
  lamport.all_reduce %a into %sum : !tp8, memref<?x64xbf16>
  // expected-error @+1 {{mailbox argument 2 ('b') has tp = 4, but mailbox argument 1 ('a') has tp = 8: a bundle runs on one TP group, so all its mailboxes share one tp}}
  lamport.publish_rows %rows into %b : memref<?x64xbf16>, !tp4
  lamport.all_reduce %b into %other : !tp4, memref<?x64xbf16>
  return
}

//--- two_programs.mlir
!mb = !lamport.mailbox<tp = 2, capacity = 16, width = 64>

// expected-error @+1 {{'func.func' op is one of 2 programs in this file (first, second): choose one by name (lamport-compile --program)}}
func.func @first(%rows: memref<?x64xbf16>, %mb: !mb, %out: memref<?x64xbf16>) {
  lamport.publish_rows %rows into %mb : memref<?x64xbf16>, !mb
  lamport.all_reduce %mb into %out : !mb, memref<?x64xbf16>
  return
}

// expected-note @+1 {{program 'second'}}
func.func @second(%rows: memref<?x64xbf16>, %mb: !mb, %out: memref<?x64xbf16>) {
  lamport.publish_rows %rows into %mb : memref<?x64xbf16>, !mb
  lamport.all_reduce %mb into %out : !mb, memref<?x64xbf16>
  return
}

//--- protocol.mlir
// A publisher and its consumer that disagree on the rows: the error at the
// consumer, the note at the publisher, and no bundle.
!mb = !lamport.mailbox<tp = 2, capacity = 16, width = 64>

func.func @rows(%rows: memref<4x64xbf16>, %mb: !mb, %out: memref<8x64xbf16>) {
  // expected-note @+1 {{the publisher, 4 rows}}
  lamport.publish_rows %rows into %mb : memref<4x64xbf16>, !mb
  // expected-error @+1 {{'lamport.all_reduce' op reads 8 rows of mailbox argument 1, but its publisher published 4}}
  lamport.all_reduce %mb into %out : !mb, memref<8x64xbf16>
  return
}

//--- launch.mlir
// A hand-written launch that passes its kernel a mailbox of another
// capacity and width: the error at the launch says what differs, the note
// is at the kernel.
!passed = !lamport.mailbox<tp = 2, capacity = 8, width = 64>
!compiled = !lamport.mailbox<tp = 2, capacity = 4, width = 128>

module attributes {gpu.container_module} {
  gpu.module @advance {
    // expected-note @+1 {{the kernel, whose parameter 0 is '!lamport.mailbox<tp = 2, capacity = 4, width = 128>'}}
    gpu.func @advance(%mb: !compiled, %tokens: i32) kernel {
      %stage = lamport.stage.active %mb : !compiled
      lamport.stage.advance %mb, %stage : !compiled
      gpu.return
    }
  }

  func.func @step(%mb: !passed) {
    %one = arith.constant 1 : index
    %m = arith.constant 1 : i32
    // expected-error @+1 {{'gpu.launch_func' op passes kernel 'advance' a mailbox of capacity 8, not 4; width 64, not 128 as argument 0: a kernel runs on the mailbox it was compiled for}}
    gpu.launch_func @advance::@advance blocks in (%one, %one, %one)
        threads in (%one, %one, %one) args(%mb : !passed, %m : i32)
    return
  }
}

//--- unexpected.mlir
func.func @unpublished(%mb: !lamport.mailbox<tp = 2, capacity = 16, width = 64>,
                       %out: memref<?x64xbf16>) {
  lamport.all_reduce %mb into %out : !lamport.mailbox<tp = 2, capacity = 16, width = 64>, memref<?x64xbf16>
  return
}
