// RUN: lamport-opt %s -convert-lamport-to-nvvm | FileCheck %s
// RUN: lamport-opt %s -lamport-lower-to-nvvm | %python %S/../Inputs/extract_ptx.py > %t.sm90.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.sm90.ptx
// RUN: %ptxas -arch=sm_90 %t.sm90.ptx -o /dev/null
// RUN: lamport-opt %s -lamport-lower-to-nvvm=chip=sm_100a | %python %S/../Inputs/extract_ptx.py > %t.sm100a.ptx
// RUN: %ptxas -arch=sm_100a %t.sm100a.ptx -o /dev/null
// REQUIRES: ptxas

// lamport.mailbox.poll_owned, the column all-gather read: global fragment f
// of a gathered row belongs to rank f / (width / 8), at local fragment
// f % (width / 8) of its slot. The op polls that one fragment at row `token`
// of slot [stage, owner] in this rank's copy, then re-arms it.

// width = 384: 48 fragments per row, not a power of two.
!mb = !lamport.mailbox<tp = 4, capacity = 8, width = 384>

gpu.module @poll_owned {
  // CHECK-LABEL: gpu.func @owned
  // CHECK-SAME: (%[[MB:.*]]: !llvm.struct<{{.*}}>, %[[STAGE:.*]]: i32,
  // CHECK: %[[TOKEN:.*]] = builtin.unrealized_conversion_cast %block_id_x : index to i64
  // CHECK: %[[FRAGMENT:.*]] = builtin.unrealized_conversion_cast %thread_id_x : index to i64
  // CHECK: %[[ROW_FRAGMENTS:.*]] = llvm.mlir.constant(48 : i64) : i64
  // CHECK: %[[OWNER:.*]] = llvm.udiv %[[FRAGMENT]], %[[ROW_FRAGMENTS]] : i64
  // CHECK: %[[LOCAL_FRAGMENT:.*]] = llvm.urem %[[FRAGMENT]], %[[ROW_FRAGMENTS]] : i64
  // CHECK: %[[LANES:.*]] = llvm.mlir.constant(8 : i64) : i64
  // CHECK: %[[COLUMN:.*]] = llvm.mul %[[LOCAL_FRAGMENT]], %[[LANES]] : i64
  // Element ((stage * 4 + owner) * 8 + token) * 384 + column.
  // CHECK: %[[STAGE64:.*]] = llvm.zext %[[STAGE]] : i32 to i64
  // CHECK: %[[S:.*]] = llvm.mul %[[STAGE64]], %{{.*}} overflow<nuw> : i64
  // CHECK: %[[SLOT:.*]] = llvm.add %[[S]], %[[OWNER]] overflow<nuw> : i64
  // CHECK: %[[R:.*]] = llvm.mul %[[SLOT]], %{{.*}} overflow<nuw> : i64
  // CHECK: %[[ROW:.*]] = llvm.add %[[R]], %[[TOKEN]] overflow<nuw> : i64
  // CHECK: %[[C:.*]] = llvm.mul %[[ROW]], %{{.*}} overflow<nuw> : i64
  // CHECK: %[[ELEMENT:.*]] = llvm.add %[[C]], %[[COLUMN]] overflow<nuw> : i64
  // CHECK: %[[LOCAL:.*]] = llvm.extractvalue %[[MB]][0]
  // CHECK: %[[ADDRESS:.*]] = llvm.getelementptr inbounds %[[LOCAL]][%[[ELEMENT]]]
  // CHECK: llvm.load volatile %[[ADDRESS]] {alignment = 16 : i64}
  // One fragment: the spin reloads it without testing a pending bit.
  // CHECK: %[[POLLED:.*]]:3 = scf.while
  // CHECK: nvvm.read.ptx.sreg.globaltimer
  // CHECK: %[[RELOAD:.*]] = llvm.load volatile %[[ADDRESS]] {alignment = 16 : i64}
  // CHECK: scf.yield %{{.*}}, %{{.*}}, %[[RELOAD]] : i32, i64, vector<4xi32>
  // Then the re-arm of what was read.
  // CHECK: %[[SENTINEL:.*]] = llvm.mlir.constant(dense<-2147450880> : vector<4xi32>)
  // CHECK-NEXT: llvm.store %[[SENTINEL]], %[[ADDRESS]] {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<1>
  // CHECK: %[[EMPTY:.*]] = llvm.mlir.poison : !llvm.array<1 x vector<8xbf16>>
  // CHECK: %[[LANES0:.*]] = llvm.bitcast %[[POLLED]]#2 : vector<4xi32> to vector<8xbf16>
  // CHECK: llvm.insertvalue %[[LANES0]], %[[EMPTY]][0]
  gpu.func @owned(%mb: !mb, %stage: i32, %out: memref<8x1536xbf16, 1>) kernel {
    %token = gpu.block_id x
    %fragment = gpu.thread_id x
    %f = lamport.mailbox.poll_owned %mb[%stage, %token, %fragment]
        : !mb -> vector<1x8xbf16>
    %c8 = arith.constant 8 : index
    %col = arith.muli %fragment, %c8 : index
    %v = vector.extract %f[0] : vector<8xbf16> from vector<1x8xbf16>
    vector.store %v, %out[%token, %col] {alignment = 16}
        : memref<8x1536xbf16, 1>, vector<8xbf16>
    gpu.return
  }
}

// PTX-LABEL: .visible .entry owned(
// PTX: ld.volatile.global.v4.b32 {{.*}}, [%rd[[ADDRESS:[0-9]+]]];
// PTX: %globaltimer
// PTX: ld.volatile.global.v4.b32 {{.*}}, [%rd[[ADDRESS]]];
// PTX: st.global.v4.b32 [%rd[[ADDRESS]]], {-2147450880, -2147450880, -2147450880, -2147450880};
// PTX: trap;
