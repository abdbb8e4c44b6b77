// RUN: lamport-opt %s -split-input-file -convert-lamport-to-nvvm | FileCheck %s --check-prefixes=CHECK,DEFAULT
// RUN: lamport-opt %s -split-input-file -convert-lamport-to-nvvm=timeout-ns=2500 | FileCheck %s --check-prefixes=CHECK,OPTION

// A poll waits `timeout_ns` after its first miss: the host's override where
// it set one (the module's lamport_poll_timeout_ns, an i64 in constant
// memory, 0 for none, read once as the kernel starts), else the op's attribute, else the pass option
// `timeout-ns` (default 1 s, the dialect's default). The same value arms the
// deadline and goes into the timeout record.

!mb = !lamport.mailbox<tp = 2, capacity = 8, width = 512>

// CHECK-LABEL: gpu.module @no_attribute_module
// CHECK-NEXT: llvm.mlir.global external @lamport_poll_timeout_ns(0 : i64) {addr_space = 1 : i32, alignment = 8 : i64} : i64
// CHECK-LABEL: gpu.func @no_attribute
// CHECK-NEXT: %[[GLOBAL:.*]] = llvm.mlir.addressof @lamport_poll_timeout_ns : !llvm.ptr<1>
// CHECK-NEXT: %[[OVERRIDE:.*]] = llvm.load %[[GLOBAL]] {alignment = 8 : i64} : !llvm.ptr<1> -> i64
// CHECK: %[[NONE:.*]] = llvm.mlir.constant(0 : i64) : i64
// CHECK-NEXT: %[[UNSET:.*]] = llvm.icmp "eq" %[[OVERRIDE]], %[[NONE]] : i64
// DEFAULT-NEXT: %[[COMPILED:.*]] = llvm.mlir.constant(1000000000 : i64) : i64
// OPTION-NEXT: %[[COMPILED:.*]] = llvm.mlir.constant(2500 : i64) : i64
// CHECK-NEXT: %[[TIMEOUT:.*]] = llvm.select %[[UNSET]], %[[COMPILED]], %[[OVERRIDE]] : i1, i64
// CHECK: scf.while (%
// CHECK: %[[NOW:.*]] = nvvm.read.ptx.sreg.globaltimer : i64
// CHECK-NEXT: llvm.mlir.constant(0 : i64)
// CHECK-NEXT: llvm.icmp "eq"
// CHECK-NEXT: llvm.add %[[NOW]], %[[TIMEOUT]] : i64
// CHECK: llvm.getelementptr inbounds %{{.*}}[32] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i8
// CHECK-NEXT: llvm.store volatile
// CHECK-NEXT: %[[FIELD:.*]] = llvm.getelementptr inbounds %{{.*}}[40]
// CHECK-NEXT: llvm.store volatile %[[TIMEOUT]], %[[FIELD]] {alignment = 8 : i64} : i64, !llvm.ptr<1>
gpu.module @no_attribute_module {
  gpu.func @no_attribute(%mb: !mb, %stage: i32, %slot: i32,
                         %out: memref<8xbf16, 1>) kernel {
    %c0 = arith.constant 0 : index
    %f = lamport.mailbox.poll_at %mb[%stage, %slot, %c0, %c0] offsets [0]
        : !mb -> vector<1x8xbf16>
    %v = vector.extract %f[0] : vector<8xbf16> from vector<1x8xbf16>
    vector.store %v, %out[%c0] : memref<8xbf16, 1>, vector<8xbf16>
    gpu.return
  }
}

// -----

!mb = !lamport.mailbox<tp = 2, capacity = 8, width = 512>

// The attribute wins over the pass option, for every poll form; the
// module's one override, read once, applies to each.
// CHECK-LABEL: gpu.module @attribute_module
// CHECK-COUNT-1: llvm.mlir.global external @lamport_poll_timeout_ns
// CHECK-NOT: llvm.mlir.global
// CHECK-LABEL: gpu.func @attribute
// CHECK-NEXT: llvm.mlir.addressof @lamport_poll_timeout_ns
// CHECK-NEXT: %[[OVERRIDE:.*]] = llvm.load %{{.*}} : !llvm.ptr<1> -> i64
// CHECK-NOT: lamport_poll_timeout_ns
// CHECK: %[[UNSET:.*]] = llvm.icmp "eq" %[[OVERRIDE]]
// CHECK-NEXT: %[[COMPILED:.*]] = llvm.mlir.constant(5000 : i64) : i64
// CHECK-NEXT: %[[TIMEOUT:.*]] = llvm.select %[[UNSET]], %[[COMPILED]], %[[OVERRIDE]] : i1, i64
// CHECK: scf.while (%
// CHECK: %[[NOW:.*]] = nvvm.read.ptx.sreg.globaltimer : i64
// CHECK-NEXT: llvm.mlir.constant(0 : i64)
// CHECK-NEXT: llvm.icmp "eq"
// CHECK-NEXT: llvm.add %[[NOW]], %[[TIMEOUT]] : i64
// CHECK: %[[UNSET2:.*]] = llvm.icmp "eq" %[[OVERRIDE]]
// CHECK-NEXT: %[[COMPILED2:.*]] = llvm.mlir.constant(7000 : i64) : i64
// CHECK-NEXT: %[[TIMEOUT2:.*]] = llvm.select %[[UNSET2]], %[[COMPILED2]], %[[OVERRIDE]] : i1, i64
// CHECK: scf.while (%
// CHECK: %[[NOW2:.*]] = nvvm.read.ptx.sreg.globaltimer : i64
// CHECK-NEXT: llvm.mlir.constant(0 : i64)
// CHECK-NEXT: llvm.icmp "eq"
// CHECK-NEXT: llvm.add %[[NOW2]], %[[TIMEOUT2]] : i64
// CHECK: %[[UNSET3:.*]] = llvm.icmp "eq" %[[OVERRIDE]]
// CHECK-NEXT: %[[COMPILED3:.*]] = llvm.mlir.constant(9000 : i64) : i64
// CHECK-NEXT: %[[TIMEOUT3:.*]] = llvm.select %[[UNSET3]], %[[COMPILED3]], %[[OVERRIDE]] : i1, i64
// CHECK: scf.while (%
// CHECK: %[[NOW3:.*]] = nvvm.read.ptx.sreg.globaltimer : i64
// CHECK-NEXT: llvm.mlir.constant(0 : i64)
// CHECK-NEXT: llvm.icmp "eq"
// CHECK-NEXT: llvm.add %[[NOW3]], %[[TIMEOUT3]] : i64
gpu.module @attribute_module {
  gpu.func @attribute(%mb: !mb, %stage: i32, %slot: i32,
                      %out: memref<8xbf16, 1>) kernel {
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %a = lamport.mailbox.poll_at %mb[%stage, %slot, %c0, %c0] offsets [0]
        {timeout_ns = 5000 : i64} : !mb -> vector<1x8xbf16>
    %b = lamport.mailbox.poll %mb[%stage, %slot, %c0, %c0] stride %c8
        {timeout_ns = 7000 : i64} : !mb -> vector<1x8xbf16>
    %c = lamport.mailbox.poll_owned %mb[%stage, %c0, %c0]
        {timeout_ns = 9000 : i64} : !mb -> vector<1x8xbf16>
    %v = vector.extract %a[0] : vector<8xbf16> from vector<1x8xbf16>
    vector.store %v, %out[%c0] : memref<8xbf16, 1>, vector<8xbf16>
    gpu.return
  }
}

// -----

!mb = !lamport.mailbox<tp = 2, capacity = 8, width = 512>

// A module without a poll has no override.
// CHECK-LABEL: gpu.module @no_poll_module
// CHECK-NOT: lamport_poll_timeout_ns
gpu.module @no_poll_module {
  gpu.func @no_poll(%mb: !mb, %stage: i32, %slot: i32) kernel {
    %c0 = arith.constant 0 : index
    lamport.mailbox.rearm %mb[%stage, %slot, %c0, %c0] : !mb
    gpu.return
  }
}
