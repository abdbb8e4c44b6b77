// RUN: lamport-opt %s -convert-lamport-to-nvvm | FileCheck %s
// RUN: lamport-opt %s -lamport-lower-to-nvvm | %python %S/../Inputs/extract_ptx.py > %t.sm90.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.sm90.ptx
// RUN: %ptxas -arch=sm_90 %t.sm90.ptx -o /dev/null
// RUN: lamport-opt %s -lamport-lower-to-nvvm=chip=sm_100a | %python %S/../Inputs/extract_ptx.py > %t.sm100a.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.sm100a.ptx
// RUN: %ptxas -arch=sm_100a %t.sm100a.ptx -o /dev/null
// REQUIRES: ptxas

// The stage words, int32 [ACTIVE, NEXT, ARRIVALS, reserved] at the
// descriptor's third field, are read and written with volatile accesses (a
// consumer launched with PDL may read them while its publisher runs).
// set_active orders every earlier store before the word with a system-scope
// release fence; advance writes NEXT = (active + 1) % 3; arrive counts a CTA
// out with a wrapping atomic increment of ARRIVALS (atom.inc, between two
// GPU-scope fences) and tells the last of `ctas` arrivals that it is the last.

!mb = !lamport.mailbox<tp = 2, capacity = 8, width = 512>

gpu.module @stage {
  // CHECK-LABEL: gpu.func @read
  // CHECK-SAME: (%[[MB:.*]]: !llvm.struct<{{.*}}>,
  // CHECK: %[[WORDS:.*]] = llvm.extractvalue %[[MB]][2]
  // CHECK: %[[ACTIVE:.*]] = llvm.load volatile %[[WORDS]] {alignment = 4 : i64} : !llvm.ptr<1> -> i32
  // CHECK: %[[WORDS2:.*]] = llvm.extractvalue %[[MB]][2]
  // CHECK: %[[NEXT_WORD:.*]] = llvm.getelementptr inbounds %[[WORDS2]][1] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i32
  // CHECK: %[[NEXT:.*]] = llvm.load volatile %[[NEXT_WORD]] {alignment = 4 : i64} : !llvm.ptr<1> -> i32
  // CHECK: memref.store %[[ACTIVE]]
  // CHECK: memref.store %[[NEXT]]
  gpu.func @read(%mb: !mb, %out: memref<2xi32, 1>) kernel {
    %active = lamport.stage.active %mb : !mb
    %next = lamport.stage.next %mb : !mb
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    memref.store %active, %out[%c0] : memref<2xi32, 1>
    memref.store %next, %out[%c1] : memref<2xi32, 1>
    gpu.return
  }

  // CHECK-LABEL: gpu.func @set_active
  // CHECK-SAME: (%[[MB:.*]]: !llvm.struct<{{.*}}>, %[[STAGE:.*]]: i32)
  // CHECK-NEXT: llvm.fence acq_rel
  // CHECK-NEXT: %[[WORDS:.*]] = llvm.extractvalue %[[MB]][2]
  // CHECK-NEXT: llvm.store volatile %[[STAGE]], %[[WORDS]] {alignment = 4 : i64} : i32, !llvm.ptr<1>
  gpu.func @set_active(%mb: !mb, %stage: i32) kernel {
    lamport.stage.set_active %mb, %stage : !mb
    gpu.return
  }

  // Every reader runs after the grid: the store alone.
  // CHECK-LABEL: gpu.func @set_active_read_after_grid
  // CHECK-SAME: (%[[MB:.*]]: !llvm.struct<{{.*}}>, %[[STAGE:.*]]: i32)
  // CHECK-NOT: llvm.fence
  // CHECK: %[[WORDS:.*]] = llvm.extractvalue %[[MB]][2]
  // CHECK-NEXT: llvm.store volatile %[[STAGE]], %[[WORDS]] {alignment = 4 : i64} : i32, !llvm.ptr<1>
  // CHECK-NEXT: gpu.return
  gpu.func @set_active_read_after_grid(%mb: !mb, %stage: i32) kernel {
    lamport.stage.set_active %mb, %stage {read_after_grid} : !mb
    gpu.return
  }

  // CHECK-LABEL: gpu.func @advance
  // CHECK-SAME: (%[[MB:.*]]: !llvm.struct<{{.*}}>, %[[ACTIVE:.*]]: i32)
  // CHECK-NOT: llvm.fence
  // CHECK: %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
  // CHECK: %[[FOLLOWING:.*]] = llvm.add %[[ACTIVE]], %[[ONE]] : i32
  // CHECK: %[[GENERATIONS:.*]] = llvm.mlir.constant(3 : i32) : i32
  // CHECK: %[[NEXT:.*]] = llvm.urem %[[FOLLOWING]], %[[GENERATIONS]] : i32
  // CHECK: %[[WORDS:.*]] = llvm.extractvalue %[[MB]][2]
  // CHECK: %[[NEXT_WORD:.*]] = llvm.getelementptr inbounds %[[WORDS]][1] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i32
  // CHECK: llvm.store volatile %[[NEXT]], %[[NEXT_WORD]] {alignment = 4 : i64} : i32, !llvm.ptr<1>
  gpu.func @advance(%mb: !mb, %active: i32) kernel {
    lamport.stage.advance %mb, %active : !mb
    gpu.return
  }

  // Thread 0 of the CTA (tid.x | tid.y | tid.z == 0) counts: one predicated
  // PTX sequence, the release fence before the atom and none after it;
  // every other thread gets ctas = 64.
  // CHECK-LABEL: gpu.func @arrive
  // CHECK-SAME: (%[[MB:.*]]: !llvm.struct<{{.*}}>, %{{.*}}: memref<1xi32, 1>)
  // CHECK-DAG: %[[X:.*]] = nvvm.read.ptx.sreg.tid.x : i32
  // CHECK-DAG: %[[Y:.*]] = nvvm.read.ptx.sreg.tid.y : i32
  // CHECK-DAG: %[[Z:.*]] = nvvm.read.ptx.sreg.tid.z : i32
  // CHECK: %[[IS_ZERO:.*]] = llvm.icmp "eq"
  // CHECK-DAG: %[[ARRIVALS:.*]] = llvm.getelementptr inbounds %{{.*}}[2] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i32
  // CHECK-DAG: %[[LIMIT:.*]] = llvm.mlir.constant(63 : i32) : i32
  // CHECK-DAG: %[[NONE:.*]] = llvm.mlir.constant(64 : i32) : i32
  // CHECK-DAG: %[[LEAD:.*]] = llvm.zext %[[IS_ZERO]] : i1 to i32
  // CHECK: %[[BEFORE:.*]] = llvm.inline_asm has_side_effects "{ .reg .pred lead; setp.ne.u32 lead, $1, 0; mov.u32 $0, $4; @lead fence.acq_rel.gpu; @lead atom.global.inc.u32 $0, [$2], $3; }", "=r,r,l,r,r,~{memory}" %[[LEAD]], %[[ARRIVALS]], %[[LIMIT]], %[[NONE]] : (i32, !llvm.ptr<1>, i32, i32) -> i32
  // CHECK-NOT: llvm.fence
  // CHECK: memref.store %[[BEFORE]]
  gpu.func @arrive(%mb: !mb, %out: memref<1xi32, 1>) kernel {
    %before = lamport.stage.arrive %mb {ctas = 64} : !mb
    %c0 = arith.constant 0 : index
    memref.store %before, %out[%c0] : memref<1xi32, 1>
    gpu.return
  }
}

// PTX-LABEL: .visible .entry read(
// PTX: ld.param.b64 %rd[[WORDS:[0-9]+]], [read_param_0+16];
// PTX-DAG: ld.volatile.global.b32 %r{{[0-9]+}}, [%rd[[WORDS]]];
// PTX-DAG: ld.volatile.global.b32 %r{{[0-9]+}}, [%rd[[WORDS]]+4];

// PTX-LABEL: .visible .entry set_active(
// PTX-NOT: st.
// PTX: fence.acq_rel.sys;
// PTX-NOT: st.
// PTX: st.volatile.global.b32 [%rd{{[0-9]+}}], %r{{[0-9]+}};

// PTX-LABEL: .visible .entry set_active_read_after_grid(
// PTX-NOT: fence
// PTX: st.volatile.global.b32 [%rd{{[0-9]+}}], %r{{[0-9]+}};

// PTX-LABEL: .visible .entry advance(
// PTX-NOT: fence
// PTX: st.volatile.global.b32 [%rd{{[0-9]+}}+4], %r{{[0-9]+}};

// PTX-LABEL: .visible .entry arrive(
// PTX: mov.u32 %[[OUT:r[0-9]+]], %r{{[0-9]+}}; @lead fence.acq_rel.gpu; @lead atom.global.inc.u32 %[[OUT]], [%rd{{[0-9]+}}], %r{{[0-9]+}}; }
// PTX-NOT: fence
// PTX: st.global.b32 [%rd{{[0-9]+}}], %[[OUT]];
