// RUN: lamport-opt %s -convert-lamport-to-nvvm | FileCheck %s
// RUN: lamport-opt %s -lamport-lower-to-nvvm | %python %S/../Inputs/extract_ptx.py > %t.sm90.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.sm90.ptx
// RUN: %ptxas -arch=sm_90 %t.sm90.ptx -o /dev/null
// REQUIRES: ptxas

// lamport.mailbox.address_digest folds every descriptor field a publish
// reads (the rank, this rank's copy, the multicast address, each peer's
// copy) into one i64 by XOR. Its consumer here is a plain store, which
// keeps the reads where the digest is computed: at the top of the kernel.

!mb = !lamport.mailbox<tp = 4, capacity = 8, width = 512>

gpu.module @address_digest {
  // CHECK-LABEL: gpu.func @digest
  // CHECK-SAME: (%[[MB:.*]]: !llvm.struct<{{.*}}array<4 x ptr<1>>)>,
  // CHECK-DAG: %[[LOCAL:.*]] = llvm.extractvalue %[[MB]][0]
  // CHECK-DAG: %[[MULTICAST:.*]] = llvm.extractvalue %[[MB]][1]
  // CHECK-DAG: %[[PEER0:.*]] = llvm.extractvalue %[[MB]][6, 0]
  // CHECK-DAG: %[[PEER1:.*]] = llvm.extractvalue %[[MB]][6, 1]
  // CHECK-DAG: %[[PEER2:.*]] = llvm.extractvalue %[[MB]][6, 2]
  // CHECK-DAG: %[[PEER3:.*]] = llvm.extractvalue %[[MB]][6, 3]
  // CHECK-DAG: %[[RANK:.*]] = llvm.extractvalue %[[MB]][4]
  // CHECK: %[[D0:.*]] = llvm.zext %[[RANK]] : i32 to i64
  // CHECK: %[[I0:.*]] = llvm.ptrtoint %[[LOCAL]] : !llvm.ptr<1> to i64
  // CHECK: %[[D1:.*]] = llvm.xor %[[D0]], %[[I0]] : i64
  // CHECK: %[[I1:.*]] = llvm.ptrtoint %[[MULTICAST]] : !llvm.ptr<1> to i64
  // CHECK: %[[D2:.*]] = llvm.xor %[[D1]], %[[I1]] : i64
  // CHECK: %[[I2:.*]] = llvm.ptrtoint %[[PEER0]] : !llvm.ptr<1> to i64
  // CHECK: %[[D3:.*]] = llvm.xor %[[D2]], %[[I2]] : i64
  // CHECK: %[[I3:.*]] = llvm.ptrtoint %[[PEER1]] : !llvm.ptr<1> to i64
  // CHECK: %[[D4:.*]] = llvm.xor %[[D3]], %[[I3]] : i64
  // CHECK: %[[I4:.*]] = llvm.ptrtoint %[[PEER2]] : !llvm.ptr<1> to i64
  // CHECK: %[[D5:.*]] = llvm.xor %[[D4]], %[[I4]] : i64
  // CHECK: %[[I5:.*]] = llvm.ptrtoint %[[PEER3]] : !llvm.ptr<1> to i64
  // CHECK: %[[D6:.*]] = llvm.xor %[[D5]], %[[I5]] : i64
  // CHECK: memref.store %[[D6]]
  // CHECK: gpu.return
  gpu.func @digest(%mb: !mb, %out: memref<1xi64, 1>) kernel {
    %digest = lamport.mailbox.address_digest %mb : !mb
    %c0 = arith.constant 0 : index
    memref.store %digest, %out[%c0] : memref<1xi64, 1>
    gpu.return
  }
}

// Each of the six addresses and the rank is a kernel-parameter read.
// PTX-LABEL: .visible .entry digest(
// PTX-COUNT-6: xor.b64
// PTX-NOT: xor.b64
// PTX: st.global
// PTX: ret;
