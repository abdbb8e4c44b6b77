// RUN: lamport-opt %s | FileCheck %s
// RUN: lamport-opt %s | lamport-opt | FileCheck %s
// RUN: lamport-opt %s --mlir-print-op-generic | lamport-opt | FileCheck %s

// Round trip of the mailbox type, at the tp = 8 boundary's shape and at the
// edges the type verifier accepts: one rank, one row, one fragment, and the
// largest TP group a descriptor carries peers for. The printer names each
// mailbox type once, before the module, by its parameters, and the ops use
// the name.

// CHECK: !mailbox_tp1_c1_w8 = !lamport.mailbox<tp = 1, capacity = 1, width = 8>
// CHECK-NEXT: !mailbox_tp2_c4_w1024 = !lamport.mailbox<tp = 2, capacity = 4, width = 1024>
// CHECK-NEXT: !mailbox_tp64_c64_w16384 = !lamport.mailbox<tp = 64, capacity = 64, width = 16384>
// CHECK-NEXT: !mailbox_tp8_c16_w8192 = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>
// CHECK-NEXT: module

// CHECK-LABEL: func.func @mailbox_types
// CHECK-SAME: !mailbox_tp8_c16_w8192
// CHECK-SAME: !mailbox_tp1_c1_w8
// CHECK-SAME: !mailbox_tp64_c64_w16384
func.func @mailbox_types(%a: !lamport.mailbox<tp = 8, capacity = 16, width = 8192>,
                         %b: !lamport.mailbox<tp = 1, capacity = 1, width = 8>,
                         %c: !lamport.mailbox<tp = 64, capacity = 64, width = 16384>) {
  return
}

// The parameters are a struct: any order parses, the printer orders them.
// CHECK-LABEL: func.func @mailbox_parameter_order
// CHECK-SAME: !mailbox_tp2_c4_w1024
func.func @mailbox_parameter_order(
    %a: !lamport.mailbox<width = 1024, tp = 2, capacity = 4>) {
  return
}
