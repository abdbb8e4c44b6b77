// RUN: lamport-opt %s -convert-lamport-to-nvvm | FileCheck %s
// RUN: lamport-opt %s -lamport-lower-to-nvvm | %python %S/../Inputs/extract_ptx.py > %t.sm90.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.sm90.ptx
// RUN: %ptxas -arch=sm_90 %t.sm90.ptx -o /dev/null
// RUN: lamport-opt %s -lamport-lower-to-nvvm=chip=sm_100a | %python %S/../Inputs/extract_ptx.py > %t.sm100a.ptx
// RUN: %ptxas -arch=sm_100a %t.sm100a.ptx -o /dev/null
// REQUIRES: ptxas

// lamport.mailbox.poll_at: the fragments at compile-time element offsets
// from [stage, slot, row, col], here one fragment in each of three slots of
// the stage (a slot is capacity * width = 4096 elements), polled as
// lamport.mailbox.poll is.

!mb = !lamport.mailbox<tp = 4, capacity = 8, width = 512>

gpu.module @poll_at {
  // CHECK-LABEL: gpu.func @three_slots
  // CHECK-SAME: (%[[MB:.*]]: !llvm.struct<{{.*}}>,
  // CHECK: %[[LOCAL:.*]] = llvm.extractvalue %[[MB]][0]
  // CHECK: %[[BASE:.*]] = llvm.getelementptr inbounds %[[LOCAL]][%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i16
  // CHECK-NEXT: %[[SECOND:.*]] = llvm.getelementptr inbounds %[[BASE]][4096] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i16
  // CHECK-NEXT: %[[THIRD:.*]] = llvm.getelementptr inbounds %[[BASE]][12296] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i16
  // CHECK-NEXT: llvm.load volatile %[[BASE]] {alignment = 16 : i64}
  // CHECK-NEXT: llvm.load volatile %[[SECOND]] {alignment = 16 : i64}
  // CHECK-NEXT: llvm.load volatile %[[THIRD]] {alignment = 16 : i64}
  // CHECK: scf.while
  // CHECK: nvvm.read.ptx.sreg.globaltimer
  // CHECK: llvm.load volatile %[[BASE]]
  // CHECK: llvm.load volatile %[[SECOND]]
  // CHECK: llvm.load volatile %[[THIRD]]
  // CHECK: llvm.mlir.poison : !llvm.array<3 x vector<8xbf16>>
  gpu.func @three_slots(%mb: !mb, %stage: i32, %out: memref<3x8xbf16, 1>)
      kernel {
    %row = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %slot = arith.constant 0 : i32
    %f = lamport.mailbox.poll_at %mb[%stage, %slot, %row, %c0]
        offsets [0, 4096, 12296] : !mb -> vector<3x8xbf16>
    %f0 = vector.extract %f[0] : vector<8xbf16> from vector<3x8xbf16>
    %f1 = vector.extract %f[1] : vector<8xbf16> from vector<3x8xbf16>
    %f2 = vector.extract %f[2] : vector<8xbf16> from vector<3x8xbf16>
    vector.store %f0, %out[%c0, %c0] {alignment = 16}
        : memref<3x8xbf16, 1>, vector<8xbf16>
    vector.store %f1, %out[%c1, %c0] {alignment = 16}
        : memref<3x8xbf16, 1>, vector<8xbf16>
    vector.store %f2, %out[%c2, %c0] {alignment = 16}
        : memref<3x8xbf16, 1>, vector<8xbf16>
    gpu.return
  }
}

// The offsets fold into the loads of the first round (2 bytes per element).
// PTX-LABEL: .visible .entry three_slots(
// PTX-NOT: and.b32
// PTX: ld.volatile.global.v4.b32 {{.*}}, [%rd[[BASE:[0-9]+]]];
// PTX-NEXT: ld.volatile.global.v4.b32 {{.*}}, [%rd[[BASE]]+8192];
// PTX-NEXT: ld.volatile.global.v4.b32 {{.*}}, [%rd[[BASE]]+24592];
// PTX: %globaltimer
// PTX: trap;
