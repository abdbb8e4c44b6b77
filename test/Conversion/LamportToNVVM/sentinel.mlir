// RUN: lamport-opt %s -split-input-file -convert-lamport-to-nvvm | FileCheck %s
// RUN: %python %S/../Inputs/sentinel_lanes.py | FileCheck %s --check-prefix=EXACT

// The sentinel is BF16 -0.0, 0x8000, found with integer ops only: per 32-bit
// word (two lanes), (w & 0x7fff7fff) + 0x7fff7fff sets bit 15 of a lane iff
// its low 15 bits are not all zero, so
//   lanes = w & 0x80008000 & ~((w & 0x7fff7fff) + 0x7fff7fff)
// has bit 15 of exactly the lanes equal to 0x8000. A publish stores
// w ^ lanes (0x8000 -> 0x0000, every other lane, NaN and subnormal included,
// bit for bit); a poll tests lanes != 0. Never a float compare or add.
// (2147450879 = 0x7fff7fff, -2147450880 = 0x80008000.) The second RUN line
// checks that formula over every BF16 bit pattern.
// EXACT: sentinel lanes: exact

!mb = !lamport.mailbox<tp = 2, capacity = 8, width = 512>

// CHECK-LABEL: gpu.func @publish_clears_sentinel_lanes
// CHECK-SAME: %[[VALUE:[^:]*]]: vector<8xbf16>
// CHECK: %[[WORDS:.*]] = llvm.bitcast %[[VALUE]] : vector<8xbf16> to vector<4xi32>
// CHECK: %[[LOW15:.*]] = llvm.mlir.constant(dense<2147450879> : vector<4xi32>)
// CHECK: %[[MAGNITUDE:.*]] = llvm.and %[[WORDS]], %[[LOW15]] : vector<4xi32>
// CHECK: %[[LOW15B:.*]] = llvm.mlir.constant(dense<2147450879> : vector<4xi32>)
// CHECK: %[[CARRY:.*]] = llvm.add %[[MAGNITUDE]], %[[LOW15B]] : vector<4xi32>
// CHECK: %[[ONES:.*]] = llvm.mlir.constant(dense<-1> : vector<4xi32>)
// CHECK: %[[ZERO_MAGNITUDE:.*]] = llvm.xor %[[CARRY]], %[[ONES]] : vector<4xi32>
// CHECK: %[[SIGN:.*]] = llvm.mlir.constant(dense<-2147450880> : vector<4xi32>)
// CHECK: %[[SIGNS:.*]] = llvm.and %[[WORDS]], %[[SIGN]] : vector<4xi32>
// CHECK: %[[LANES:.*]] = llvm.and %[[SIGNS]], %[[ZERO_MAGNITUDE]] : vector<4xi32>
// CHECK: %[[CLEAN:.*]] = llvm.xor %[[WORDS]], %[[LANES]] : vector<4xi32>
// CHECK: llvm.store %[[CLEAN]]
// CHECK-NOT: llvm.f{{add|sub|cmp}}
// CHECK: gpu.return
gpu.module @publish {
  gpu.func @publish_clears_sentinel_lanes(%mb: !mb, %v: vector<8xbf16>,
                                          %stage: i32) kernel {
    %c0 = arith.constant 0 : index
    %to = arith.constant 0 : i32
    lamport.mailbox.publish %v, %mb[%stage, %c0, %c0] to %to
        : vector<8xbf16>, !mb
    gpu.return
  }
}

// -----

!mb = !lamport.mailbox<tp = 2, capacity = 8, width = 512>

// CHECK-LABEL: gpu.func @poll_tests_sentinel_lanes
// CHECK: %[[WORDS:.*]] = llvm.load volatile %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xi32>
// CHECK: %[[LOW15:.*]] = llvm.mlir.constant(dense<2147450879> : vector<4xi32>)
// CHECK: %[[MAGNITUDE:.*]] = llvm.and %[[WORDS]], %[[LOW15]] : vector<4xi32>
// CHECK: %[[CARRY:.*]] = llvm.add %[[MAGNITUDE]], %{{.*}} : vector<4xi32>
// CHECK: %[[ZERO_MAGNITUDE:.*]] = llvm.xor %[[CARRY]], %{{.*}} : vector<4xi32>
// CHECK: %[[SIGNS:.*]] = llvm.and %[[WORDS]], %{{.*}} : vector<4xi32>
// CHECK: %[[LANES:.*]] = llvm.and %[[SIGNS]], %[[ZERO_MAGNITUDE]] : vector<4xi32>
// CHECK: %[[ANY:.*]] = "llvm.intr.vector.reduce.or"(%[[LANES]]) : (vector<4xi32>) -> i32
// CHECK: %[[ZERO:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK: %[[DIRTY:.*]] = llvm.icmp "ne" %[[ANY]], %[[ZERO]] : i32
// CHECK: %[[PENDING:.*]] = llvm.zext %[[DIRTY]] : i1 to i32
// CHECK: scf.while (%{{.*}} = %[[PENDING]],
// CHECK-NOT: llvm.fcmp
// CHECK: gpu.return
gpu.module @poll {
  gpu.func @poll_tests_sentinel_lanes(%mb: !mb, %stage: i32, %slot: i32,
                                      %out: memref<8xbf16, 1>) kernel {
    %c0 = arith.constant 0 : index
    %f = lamport.mailbox.poll_at %mb[%stage, %slot, %c0, %c0] offsets [0]
        : !mb -> vector<1x8xbf16>
    %v = vector.extract %f[0] : vector<8xbf16> from vector<1x8xbf16>
    vector.store %v, %out[%c0] : memref<8xbf16, 1>, vector<8xbf16>
    gpu.return
  }
}
