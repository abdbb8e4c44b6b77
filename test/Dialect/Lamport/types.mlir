// RUN: lamport-opt %s | FileCheck %s
// RUN: lamport-opt %s | lamport-opt | FileCheck %s
// RUN: lamport-opt %s --mlir-print-op-generic | lamport-opt | FileCheck %s

// CHECK-LABEL: func.func @mailbox_types
// CHECK-SAME: !lamport.mailbox<tp = 8, capacity = 16, width = 8192>
// CHECK-SAME: !lamport.mailbox<tp = 1, capacity = 1, width = 8>
func.func @mailbox_types(%a: !lamport.mailbox<tp = 8, capacity = 16, width = 8192>,
                         %b: !lamport.mailbox<tp = 1, capacity = 1, width = 8>) {
  return
}
