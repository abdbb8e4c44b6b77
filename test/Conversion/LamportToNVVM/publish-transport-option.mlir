// RUN: lamport-opt %s -split-input-file -convert-lamport-to-nvvm | FileCheck %s --check-prefixes=CHECK,UNICAST
// RUN: lamport-opt %s -split-input-file -convert-lamport-to-nvvm=transport=unicast | FileCheck %s --check-prefixes=CHECK,UNICAST
// RUN: lamport-opt %s -split-input-file -convert-lamport-to-nvvm=transport=multicast | FileCheck %s --check-prefixes=CHECK,MULTICAST

// The pass option `transport` (default unicast) decides for publishes that
// carry no transport attribute; an attribute or a route wins over it.

!mb = !lamport.mailbox<tp = 2, capacity = 8, width = 512>

// CHECK-LABEL: gpu.func @no_attribute
// UNICAST-NOT: llvm.inline_asm
// UNICAST-COUNT-2: llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<1>
// UNICAST-NOT: llvm.inline_asm
// MULTICAST-NOT: llvm.store
// MULTICAST: llvm.inline_asm has_side_effects "multimem.st.relaxed.sys.global.v4.f32
// MULTICAST-NOT: llvm.store
// CHECK: gpu.return
gpu.module @no_attribute_module {
  gpu.func @no_attribute(%mb: !mb, %v: vector<8xbf16>, %stage: i32) kernel {
    %c0 = arith.constant 0 : index
    lamport.mailbox.publish %v, %mb[%stage, %c0, %c0] : vector<8xbf16>, !mb
    gpu.return
  }
}

// -----

!mb = !lamport.mailbox<tp = 2, capacity = 8, width = 512>

// CHECK-LABEL: gpu.func @unicast_attribute
// CHECK-NOT: llvm.inline_asm
// CHECK-COUNT-2: llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<1>
// CHECK-NOT: llvm.inline_asm
// CHECK: gpu.return
gpu.module @unicast_attribute_module {
  gpu.func @unicast_attribute(%mb: !mb, %v: vector<8xbf16>, %stage: i32) kernel {
    %c0 = arith.constant 0 : index
    lamport.mailbox.publish %v, %mb[%stage, %c0, %c0]
        {transport = #lamport.transport<unicast>} : vector<8xbf16>, !mb
    gpu.return
  }
}

// -----

!mb = !lamport.mailbox<tp = 2, capacity = 8, width = 512>

// CHECK-LABEL: gpu.func @multicast_attribute
// CHECK-NOT: llvm.store
// CHECK: llvm.inline_asm has_side_effects "multimem.st.relaxed.sys.global.v4.f32
// CHECK-NOT: llvm.store
// CHECK: gpu.return
gpu.module @multicast_attribute_module {
  gpu.func @multicast_attribute(%mb: !mb, %v: vector<8xbf16>, %stage: i32) kernel {
    %c0 = arith.constant 0 : index
    lamport.mailbox.publish %v, %mb[%stage, %c0, %c0]
        {transport = #lamport.transport<multicast>} : vector<8xbf16>, !mb
    gpu.return
  }
}

// -----

!mb = !lamport.mailbox<tp = 2, capacity = 8, width = 512>

// CHECK-LABEL: gpu.func @route
// CHECK-NOT: llvm.inline_asm
// CHECK: llvm.extractvalue %{{.*}}[6, 1]
// CHECK: llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<1>
// CHECK-NOT: llvm.store
// CHECK-NOT: llvm.inline_asm
// CHECK: gpu.return
gpu.module @route_module {
  gpu.func @route(%mb: !mb, %v: vector<8xbf16>, %stage: i32) kernel {
    %c0 = arith.constant 0 : index
    %to = arith.constant 1 : i32
    lamport.mailbox.publish %v, %mb[%stage, %c0, %c0] to %to
        : vector<8xbf16>, !mb
    gpu.return
  }
}
