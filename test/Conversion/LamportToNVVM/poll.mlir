// RUN: lamport-opt %s -convert-lamport-to-nvvm | FileCheck %s
// RUN: lamport-opt %s -lamport-lower-to-nvvm | %python %S/../Inputs/extract_ptx.py > %t.sm90.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.sm90.ptx
// RUN: %ptxas -arch=sm_90 %t.sm90.ptx -o /dev/null
// RUN: lamport-opt %s -lamport-lower-to-nvvm=chip=sm_100a | %python %S/../Inputs/extract_ptx.py > %t.sm100a.ptx
// RUN: %ptxas -arch=sm_100a %t.sm100a.ptx -o /dev/null
// REQUIRES: ptxas

// lamport.mailbox.poll: fragments `stride` BF16 apart from [stage, slot,
// row, col] of this rank's own copy. Every address is computed once, before
// the spin loop; every 16-byte volatile load of a round issues before any
// check; the loop carries the pending mask, the deadline (0 until the first
// miss arms it from %globaltimer) and the fragments, and loads again only the
// fragments whose pending bit is set.

!mb = !lamport.mailbox<tp = 4, capacity = 8, width = 512>

gpu.module @poll {
  // CHECK-LABEL: gpu.func @strided
  // CHECK-SAME: (%[[MB:.*]]: !llvm.struct<{{.*}}>, %{{.*}}: i32, %{{.*}}: memref<2x8xbf16, 1>)
  // The kernel reads the override of its polls' timeout first.
  // CHECK-NEXT: %[[GLOBAL:.*]] = llvm.mlir.addressof @lamport_poll_timeout_ns : !llvm.ptr<1>
  // CHECK-NEXT: %[[OVERRIDE:.*]] = llvm.load %[[GLOBAL]] {alignment = 8 : i64} : !llvm.ptr<1> -> i64
  // CHECK: %[[STRIDE:.*]] = builtin.unrealized_conversion_cast %c4096 : index to i64
  // CHECK: %[[LOCAL:.*]] = llvm.extractvalue %[[MB]][0]
  // CHECK: %[[ADDRESS0:.*]] = llvm.getelementptr inbounds %[[LOCAL]][%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i16
  // CHECK: %[[ONE:.*]] = llvm.mlir.constant(1 : i64) : i64
  // CHECK: %[[OFFSET1:.*]] = llvm.mul %[[STRIDE]], %[[ONE]] : i64
  // CHECK: %[[ADDRESS1:.*]] = llvm.getelementptr inbounds %[[ADDRESS0]][%[[OFFSET1]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i16
  // First round: both loads, then both checks.
  // CHECK-NEXT: %[[FIRST0:.*]] = llvm.load volatile %[[ADDRESS0]] {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xi32>
  // CHECK-NEXT: %[[FIRST1:.*]] = llvm.load volatile %[[ADDRESS1]] {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xi32>
  // The timeout: the module's override where the host set one.
  // CHECK: %[[UNSET:.*]] = llvm.icmp "eq" %[[OVERRIDE]], %{{.*}} : i64
  // CHECK-NEXT: %[[COMPILED:.*]] = llvm.mlir.constant(1000000000 : i64) : i64
  // CHECK-NEXT: %[[TIMEOUT:.*]] = llvm.select %[[UNSET]], %[[COMPILED]], %[[OVERRIDE]] : i1, i64
  // CHECK: %[[DIRTY0:.*]] = llvm.zext %{{.*}} : i1 to i32
  // CHECK: %[[DIRTY1:.*]] = llvm.zext %{{.*}} : i1 to i32
  // CHECK: %[[BIT1:.*]] = llvm.shl %[[DIRTY1]], %{{.*}} : i32
  // CHECK: %[[PENDING:.*]] = llvm.or %[[DIRTY0]], %[[BIT1]] : i32
  // CHECK: %[[UNARMED:.*]] = llvm.mlir.constant(0 : i64) : i64
  // CHECK: %[[POLLED:.*]]:4 = scf.while (%[[P:.*]] = %[[PENDING]], %[[D:.*]] = %[[UNARMED]], %[[V0:.*]] = %[[FIRST0]], %[[V1:.*]] = %[[FIRST1]])
  // CHECK-SAME: : (i32, i64, vector<4xi32>, vector<4xi32>) -> (i32, i64, vector<4xi32>, vector<4xi32>)
  // CHECK: %[[SPINNING:.*]] = llvm.icmp "ne" %[[P]], %{{.*}} : i32
  // CHECK: scf.condition(%[[SPINNING]]) %[[P]], %[[D]], %[[V0]], %[[V1]]
  // CHECK: } do {
  // CHECK: ^bb0(%[[PENDING_IN:.*]]: i32, %[[DEADLINE_IN:.*]]: i64, %[[PREVIOUS0:.*]]: vector<4xi32>, %[[PREVIOUS1:.*]]: vector<4xi32>):
  // CHECK: %[[NOW:.*]] = nvvm.read.ptx.sreg.globaltimer : i64
  // CHECK: %[[FIRST_MISS:.*]] = llvm.icmp "eq" %[[DEADLINE_IN]], %{{.*}} : i64
  // CHECK: %[[ARMING:.*]] = llvm.add %[[NOW]], %[[TIMEOUT]] : i64
  // CHECK: %[[DEADLINE:.*]] = llvm.select %[[FIRST_MISS]], %[[ARMING]], %[[DEADLINE_IN]] : i1, i64
  // CHECK: %[[EXPIRED:.*]] = llvm.icmp "ugt" %[[NOW]], %[[DEADLINE]] : i64
  // CHECK: scf.if %[[EXPIRED]] {
  // CHECK: llvm.intr.trap
  // CHECK-NEXT: }
  // Second and later rounds: only pending fragments load again, all before
  // any check.
  // CHECK: %[[MASK0:.*]] = llvm.and %[[PENDING_IN]], %{{.*}} : i32
  // CHECK: %[[IS_PENDING0:.*]] = llvm.icmp "ne" %[[MASK0]], %{{.*}} : i32
  // CHECK: %[[NEXT0:.*]] = scf.if %[[IS_PENDING0]] -> (vector<4xi32>) {
  // CHECK-NEXT: %[[RELOAD0:.*]] = llvm.load volatile %[[ADDRESS0]] {alignment = 16 : i64}
  // CHECK-NEXT: scf.yield %[[RELOAD0]] : vector<4xi32>
  // CHECK-NEXT: } else {
  // CHECK-NEXT: scf.yield %[[PREVIOUS0]] : vector<4xi32>
  // CHECK: %[[NEXT1:.*]] = scf.if %{{.*}} -> (vector<4xi32>) {
  // CHECK-NEXT: %[[RELOAD1:.*]] = llvm.load volatile %[[ADDRESS1]] {alignment = 16 : i64}
  // CHECK-NEXT: scf.yield %[[RELOAD1]] : vector<4xi32>
  // CHECK-NEXT: } else {
  // CHECK-NEXT: scf.yield %[[PREVIOUS1]] : vector<4xi32>
  // CHECK: %[[AGAIN:.*]] = llvm.or %{{.*}}, %{{.*}} : i32
  // CHECK-NEXT: scf.yield %[[AGAIN]], %[[DEADLINE]], %[[NEXT0]], %[[NEXT1]] : i32, i64, vector<4xi32>, vector<4xi32>
  // The result: the fragments as vector<2x8xbf16>.
  // CHECK: %[[EMPTY:.*]] = llvm.mlir.poison : !llvm.array<2 x vector<8xbf16>>
  // CHECK: %[[LANES0:.*]] = llvm.bitcast %[[POLLED]]#2 : vector<4xi32> to vector<8xbf16>
  // CHECK: %[[PARTIAL:.*]] = llvm.insertvalue %[[LANES0]], %[[EMPTY]][0]
  // CHECK: %[[LANES1:.*]] = llvm.bitcast %[[POLLED]]#3 : vector<4xi32> to vector<8xbf16>
  // CHECK: %[[ARRAY:.*]] = llvm.insertvalue %[[LANES1]], %[[PARTIAL]][1]
  // CHECK: builtin.unrealized_conversion_cast %[[ARRAY]] : !llvm.array<2 x vector<8xbf16>> to vector<2x8xbf16>
  gpu.func @strided(%mb: !mb, %stage: i32, %out: memref<2x8xbf16, 1>) kernel {
    %row = gpu.block_id x
    %tid = gpu.thread_id x
    %c8 = arith.constant 8 : index
    %col = arith.muli %tid, %c8 : index
    %slot = arith.constant 1 : i32
    %stride = arith.constant 4096 : index
    %f = lamport.mailbox.poll %mb[%stage, %slot, %row, %col] stride %stride
        : !mb -> vector<2x8xbf16>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %f0 = vector.extract %f[0] : vector<8xbf16> from vector<2x8xbf16>
    %f1 = vector.extract %f[1] : vector<8xbf16> from vector<2x8xbf16>
    vector.store %f0, %out[%c0, %c0] {alignment = 16}
        : memref<2x8xbf16, 1>, vector<8xbf16>
    vector.store %f1, %out[%c1, %c0] {alignment = 16}
        : memref<2x8xbf16, 1>, vector<8xbf16>
    gpu.return
  }
}

// PTX-LABEL: .visible .entry strided(
// PTX-NOT: and.b32
// PTX: ld.volatile.global.v4.b32 {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, [%rd[[A0:[0-9]+]]];
// PTX-NOT: and.b32
// PTX: ld.volatile.global.v4.b32 {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, [%rd{{[0-9]+}}+8192];
// PTX: and.b32
// The spin: read the timer, compare with the deadline, reload pending
// fragments from addresses computed before the loop.
// PTX: mov.u64 %rd{{[0-9]+}}, %globaltimer;
// PTX: ld.volatile.global.v4.b32 {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, [%rd[[A0]]];
// PTX: ld.volatile.global.v4.b32 {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, [%rd{{[0-9]+}}];
// PTX: trap;
