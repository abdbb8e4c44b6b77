// RUN: lamport-opt %s -convert-lamport-to-nvvm | FileCheck %s
// RUN: lamport-opt %s -lamport-lower-to-nvvm | %python %S/../Inputs/extract_ptx.py > %t.sm90.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.sm90.ptx
// RUN: %ptxas -arch=sm_90 %t.sm90.ptx -o /dev/null
// RUN: lamport-opt %s -lamport-lower-to-nvvm=chip=sm_100a | %python %S/../Inputs/extract_ptx.py > %t.sm100a.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.sm100a.ptx
// RUN: %ptxas -arch=sm_100a %t.sm100a.ptx -o /dev/null
// REQUIRES: ptxas

// A poll past its deadline fills the timeout record of docs/bundle.md when
// the descriptor has one (diagnostics != null) and no other poll claimed it
// first (CAS 0 -> 1 at system scope), fences at system scope and traps. The
// record names the lowest pending fragment: its stage, slot, row and column
// follow from its address, so the spin keeps nothing else alive for it.

!mb = !lamport.mailbox<tp = 4, capacity = 8, width = 512>

gpu.module @diagnostics {
  // CHECK-LABEL: gpu.func @record
  // CHECK-SAME: (%[[MB:.*]]: !llvm.struct<{{.*}}>,
  // CHECK: %[[ADDRESS0:.*]] = llvm.getelementptr inbounds %{{.*}}[%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i16
  // CHECK: %[[ADDRESS1:.*]] = llvm.getelementptr inbounds %[[ADDRESS0]][4096]
  // CHECK: %[[TIMEOUT:.*]] = llvm.select %{{.*}} : i1, i64
  // CHECK: scf.while
  // CHECK: %[[NOW:.*]] = nvvm.read.ptx.sreg.globaltimer : i64
  // CHECK: %[[DEADLINE:.*]] = llvm.select
  // CHECK: %[[EXPIRED:.*]] = llvm.icmp "ugt" %[[NOW]], %[[DEADLINE]] : i64
  // CHECK: scf.if %[[EXPIRED]] {
  // The lowest pending fragment.
  // CHECK: %[[BIT0:.*]] = llvm.icmp "ne"
  // CHECK: %[[STUCK:.*]] = llvm.select %[[BIT0]], %[[ADDRESS0]], %[[ADDRESS1]] : i1, !llvm.ptr<1>
  // Its element index in the copy, then [stage, slot, row, column].
  // CHECK: %[[LOCAL:.*]] = llvm.extractvalue %[[MB]][0]
  // CHECK: %[[BASE:.*]] = llvm.ptrtoint %[[LOCAL]] : !llvm.ptr<1> to i64
  // CHECK: %[[AT:.*]] = llvm.ptrtoint %[[STUCK]] : !llvm.ptr<1> to i64
  // CHECK: %[[BYTES:.*]] = llvm.sub %[[AT]], %[[BASE]] : i64
  // CHECK: %[[ELEMENT:.*]] = llvm.lshr %[[BYTES]], %{{.*}} : i64
  // CHECK: %[[WIDTH:.*]] = llvm.mlir.constant(512 : i64)
  // CHECK: %[[ROWS:.*]] = llvm.udiv %[[ELEMENT]], %[[WIDTH]] : i64
  // CHECK: %[[COLUMN64:.*]] = llvm.urem %[[ELEMENT]], %[[WIDTH]] : i64
  // CHECK: %[[COLUMN:.*]] = llvm.trunc %[[COLUMN64]] : i64 to i32
  // CHECK: %[[CAPACITY:.*]] = llvm.mlir.constant(8 : i64)
  // CHECK: %[[SLOTS:.*]] = llvm.udiv %[[ROWS]], %[[CAPACITY]] : i64
  // CHECK: %[[ROW64:.*]] = llvm.urem %[[ROWS]], %[[CAPACITY]] : i64
  // CHECK: %[[ROW:.*]] = llvm.trunc %[[ROW64]] : i64 to i32
  // CHECK: %[[TP:.*]] = llvm.mlir.constant(4 : i64)
  // CHECK: %[[STAGES:.*]] = llvm.udiv %[[SLOTS]], %[[TP]] : i64
  // CHECK: %[[SLOT64:.*]] = llvm.urem %[[SLOTS]], %[[TP]] : i64
  // CHECK: %[[SLOT:.*]] = llvm.trunc %[[SLOT64]] : i64 to i32
  // CHECK: %[[STAGE:.*]] = llvm.trunc %[[STAGES]] : i64 to i32
  // elapsed = now - first miss = now - (deadline - timeout).
  // CHECK: %[[OVER:.*]] = llvm.sub %[[NOW]], %[[DEADLINE]] : i64
  // CHECK: %[[ELAPSED:.*]] = llvm.add %[[OVER]], %[[TIMEOUT]] : i64
  // CHECK: %[[RECORD:.*]] = llvm.extractvalue %[[MB]][3]
  // CHECK: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr<1>
  // CHECK: %[[HAS_RECORD:.*]] = llvm.icmp "ne" %[[RECORD]], %[[NULL]] : !llvm.ptr<1>
  // CHECK: scf.if %[[HAS_RECORD]] {
  // CHECK: %[[ONE:.*]] = llvm.mlir.constant(1 : i32)
  // CHECK: %[[ZERO:.*]] = llvm.mlir.constant(0 : i32)
  // CHECK: %[[EXCHANGE:.*]] = llvm.cmpxchg %[[RECORD]], %[[ZERO]], %[[ONE]] monotonic monotonic : !llvm.ptr<1>, i32
  // CHECK: %[[CLAIMED:.*]] = llvm.extractvalue %[[EXCHANGE]][1] : !llvm.struct<(i32, i1)>
  // CHECK: scf.if %[[CLAIMED]] {
  // CHECK: %[[RANK:.*]] = llvm.extractvalue %[[MB]][4]
  // CHECK: %[[F4:.*]] = llvm.getelementptr inbounds %[[RECORD]][4] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i8
  // CHECK: llvm.store volatile %[[RANK]], %[[F4]] {alignment = 4 : i64} : i32, !llvm.ptr<1>
  // CHECK: %[[ID:.*]] = llvm.extractvalue %[[MB]][5]
  // CHECK: %[[F8:.*]] = llvm.getelementptr inbounds %[[RECORD]][8]
  // CHECK: llvm.store volatile %[[ID]], %[[F8]] {alignment = 4 : i64} : i32
  // CHECK: %[[F12:.*]] = llvm.getelementptr inbounds %[[RECORD]][12]
  // CHECK: llvm.store volatile %[[STAGE]], %[[F12]] {alignment = 4 : i64} : i32
  // CHECK: %[[F16:.*]] = llvm.getelementptr inbounds %[[RECORD]][16]
  // CHECK: llvm.store volatile %[[SLOT]], %[[F16]] {alignment = 4 : i64} : i32
  // CHECK: %[[F20:.*]] = llvm.getelementptr inbounds %[[RECORD]][20]
  // CHECK: llvm.store volatile %[[ROW]], %[[F20]] {alignment = 4 : i64} : i32
  // CHECK: %[[F24:.*]] = llvm.getelementptr inbounds %[[RECORD]][24]
  // CHECK: llvm.store volatile %[[COLUMN]], %[[F24]] {alignment = 4 : i64} : i32
  // Linear CTA index: x + nctaid.x * (y + nctaid.y * z).
  // CHECK: %[[X:.*]] = nvvm.read.ptx.sreg.ctaid.x : i32
  // CHECK: %[[Y:.*]] = nvvm.read.ptx.sreg.ctaid.y : i32
  // CHECK: %[[Z:.*]] = nvvm.read.ptx.sreg.ctaid.z : i32
  // CHECK: %[[NX:.*]] = nvvm.read.ptx.sreg.nctaid.x : i32
  // CHECK: %[[NY:.*]] = nvvm.read.ptx.sreg.nctaid.y : i32
  // CHECK: %[[ZY:.*]] = llvm.mul %[[Z]], %[[NY]] : i32
  // CHECK: %[[PLANE:.*]] = llvm.add %[[Y]], %[[ZY]] : i32
  // CHECK: %[[PX:.*]] = llvm.mul %[[PLANE]], %[[NX]] : i32
  // CHECK: %[[BLOCK:.*]] = llvm.add %[[X]], %[[PX]] : i32
  // CHECK: %[[F28:.*]] = llvm.getelementptr inbounds %[[RECORD]][28]
  // CHECK: llvm.store volatile %[[BLOCK]], %[[F28]] {alignment = 4 : i64} : i32
  // CHECK: %[[F32:.*]] = llvm.getelementptr inbounds %[[RECORD]][32]
  // CHECK: llvm.store volatile %[[ELAPSED]], %[[F32]] {alignment = 8 : i64} : i64
  // CHECK: %[[F40:.*]] = llvm.getelementptr inbounds %[[RECORD]][40]
  // CHECK: llvm.store volatile %[[TIMEOUT]], %[[F40]] {alignment = 8 : i64} : i64
  // A poll that lost the claim gives the winner 1 ms to finish the record
  // before its own trap ends the grid.
  // CHECK-NEXT: } else {
  // CHECK-NEXT: %[[GRACE:.*]] = llvm.mlir.constant(1000000 : i64) : i64
  // CHECK-NEXT: %[[UNTIL:.*]] = llvm.add %[[NOW]], %[[GRACE]] : i64
  // CHECK-NEXT: scf.while : () -> () {
  // CHECK-NEXT: %[[LATER:.*]] = nvvm.read.ptx.sreg.globaltimer : i64
  // CHECK-NEXT: %[[WAITING:.*]] = llvm.icmp "ult" %[[LATER]], %[[UNTIL]] : i64
  // CHECK-NEXT: scf.condition(%[[WAITING]])
  // CHECK-NEXT: } do {
  // CHECK-NEXT: scf.yield
  // CHECK-NEXT: }
  // CHECK-NEXT: }
  // CHECK-NEXT: }
  // CHECK-NEXT: llvm.fence seq_cst
  // CHECK-NEXT: llvm.intr.trap
  // CHECK-NEXT: }
  gpu.func @record(%mb: !mb, %stage: i32, %out: memref<2x8xbf16, 1>) kernel {
    %row = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %slot = arith.constant 2 : i32
    %f = lamport.mailbox.poll_at %mb[%stage, %slot, %row, %c0]
        offsets [0, 4096] : !mb -> vector<2x8xbf16>
    %f0 = vector.extract %f[0] : vector<8xbf16> from vector<2x8xbf16>
    %f1 = vector.extract %f[1] : vector<8xbf16> from vector<2x8xbf16>
    vector.store %f0, %out[%c0, %c0] {alignment = 16}
        : memref<2x8xbf16, 1>, vector<8xbf16>
    vector.store %f1, %out[%c1, %c0] {alignment = 16}
        : memref<2x8xbf16, 1>, vector<8xbf16>
    gpu.return
  }
}

// The record is the descriptor's fourth field (byte 24); the claim is a
// system-scope CAS; the fields are volatile stores; then fence.sc.sys, trap.
// PTX-LABEL: .visible .entry record(
// PTX: ld.param.b64 %rd[[RECORD:[0-9]+]], [record_param_0+24];
// PTX: selp.b64 %rd[[TIMEOUT:[0-9]+]], 1000000000, %rd{{[0-9]+}}, %p{{[0-9]+}};
// PTX: %globaltimer
// PTX: atom.relaxed.sys.global.cas.b32 %r{{[0-9]+}}, [%rd[[RECORD]]], 0, 1;
// PTX-DAG: st.volatile.global.b32 [%rd[[RECORD]]+4],
// PTX-DAG: st.volatile.global.b32 [%rd[[RECORD]]+8],
// PTX-DAG: st.volatile.global.b32 [%rd[[RECORD]]+12],
// PTX-DAG: st.volatile.global.b32 [%rd[[RECORD]]+16],
// PTX-DAG: st.volatile.global.b32 [%rd[[RECORD]]+20],
// PTX-DAG: st.volatile.global.b32 [%rd[[RECORD]]+24],
// PTX-DAG: st.volatile.global.b32 [%rd[[RECORD]]+28],
// PTX-DAG: st.volatile.global.b64 [%rd[[RECORD]]+32],
// PTX-DAG: st.volatile.global.b64 [%rd[[RECORD]]+40], %rd[[TIMEOUT]];
// The loser's wait reads the timer again.
// PTX: mov.u64 %rd{{[0-9]+}}, %globaltimer;
// PTX: fence.sc.sys;
// PTX-NEXT: trap;
