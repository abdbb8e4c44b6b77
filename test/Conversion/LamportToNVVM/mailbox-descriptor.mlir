// RUN: lamport-opt %s -convert-lamport-to-nvvm | FileCheck %s
// RUN: lamport-opt %s -lamport-lower-to-nvvm | %python %S/../Inputs/extract_ptx.py > %t.sm90.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.sm90.ptx
// RUN: %ptxas -arch=sm_90 %t.sm90.ptx -o /dev/null
// RUN: lamport-opt %s -lamport-lower-to-nvvm=chip=sm_100a | %python %S/../Inputs/extract_ptx.py > %t.sm100a.ptx
// RUN: %ptxas -arch=sm_100a %t.sm100a.ptx -o /dev/null
// REQUIRES: ptxas

// A mailbox kernel argument becomes the by-value descriptor of
// docs/bundle.md: one 8-byte aligned parameter of 40 + 8 * tp bytes. Other
// arguments keep their types for convert-gpu-to-nvvm (memrefs become bare
// pointers there).

gpu.module @descriptor {
  // CHECK-LABEL: gpu.func @tp8
  // CHECK-SAME: (%[[MB:.*]]: !llvm.struct<(ptr<1>, ptr<1>, ptr<1>, ptr<1>, i32, i32, array<8 x ptr<1>>)>,
  // CHECK-SAME: %{{.*}}: memref<2xi32, 1>)
  // CHECK: %[[STAGE:.*]] = llvm.extractvalue %[[MB]][2]
  // CHECK: llvm.load volatile %[[STAGE]]
  gpu.func @tp8(%mb: !lamport.mailbox<tp = 8, capacity = 16, width = 8192>,
                %out: memref<2xi32, 1>) kernel {
    %active = lamport.stage.active %mb
        : !lamport.mailbox<tp = 8, capacity = 16, width = 8192>
    %c0 = arith.constant 0 : index
    memref.store %active, %out[%c0] : memref<2xi32, 1>
    gpu.return
  }

  // Two mailboxes and a scalar between them: each descriptor stays one
  // argument of its own shape.
  // CHECK-LABEL: gpu.func @two_mailboxes
  // CHECK-SAME: (%{{.*}}: !llvm.struct<(ptr<1>, ptr<1>, ptr<1>, ptr<1>, i32, i32, array<2 x ptr<1>>)>,
  // CHECK-SAME: %{{.*}}: i32,
  // CHECK-SAME: %{{.*}}: !llvm.struct<(ptr<1>, ptr<1>, ptr<1>, ptr<1>, i32, i32, array<4 x ptr<1>>)>)
  // CHECK-NOT: lamport.
  gpu.func @two_mailboxes(%a: !lamport.mailbox<tp = 2, capacity = 4, width = 64>,
                          %stage: i32,
                          %b: !lamport.mailbox<tp = 4, capacity = 4, width = 64>)
      kernel {
    lamport.stage.set_active %a, %stage
        : !lamport.mailbox<tp = 2, capacity = 4, width = 64>
    lamport.stage.set_active %b, %stage
        : !lamport.mailbox<tp = 4, capacity = 4, width = 64>
    gpu.return
  }

  // Workgroup attributions are entry-block arguments too: they keep their
  // types and stay out of the parameter list.
  // CHECK-LABEL: gpu.func @with_workgroup
  // CHECK-SAME: (%[[MB:.*]]: !llvm.struct<(ptr<1>, ptr<1>, ptr<1>, ptr<1>, i32, i32, array<2 x ptr<1>>)>, %{{.*}}: memref<1xi32, 1>)
  // CHECK-SAME: workgroup(%[[SHARED:.*]] : memref<32xi32, 3>)
  // CHECK: %[[ACTIVE:.*]] = llvm.load volatile
  // CHECK: memref.store %[[ACTIVE]], %[[SHARED]]
  gpu.func @with_workgroup(%mb: !lamport.mailbox<tp = 2, capacity = 4, width = 64>,
                           %out: memref<1xi32, 1>)
      workgroup(%shared: memref<32xi32, 3>) kernel {
    %c0 = arith.constant 0 : index
    %active = lamport.stage.active %mb
        : !lamport.mailbox<tp = 2, capacity = 4, width = 64>
    memref.store %active, %shared[%c0] : memref<32xi32, 3>
    %copy = memref.load %shared[%c0] : memref<32xi32, 3>
    memref.store %copy, %out[%c0] : memref<1xi32, 1>
    gpu.return
  }
}

// PTX-LABEL: .visible .entry tp8(
// PTX-NEXT: .param .align 8 .b8 tp8_param_0[104],
// PTX-NEXT: .param .u64 .ptr .global .align {{[0-9]+}} tp8_param_1
// PTX-NEXT: )
// The stage words are the third field, at byte 16.
// PTX: ld.param.b64 %rd{{[0-9]+}}, [tp8_param_0+16];
// PTX: ld.volatile.global.b32

// PTX-LABEL: .visible .entry two_mailboxes(
// PTX-NEXT: .param .align 8 .b8 two_mailboxes_param_0[56],
// PTX-NEXT: .param .u32 two_mailboxes_param_1,
// PTX-NEXT: .param .align 8 .b8 two_mailboxes_param_2[72]
// PTX-NEXT: )

// PTX-LABEL: .visible .entry with_workgroup(
// PTX-NEXT: .param .align 8 .b8 with_workgroup_param_0[56],
// PTX-NEXT: .param .u64 .ptr .global .align {{[0-9]+}} with_workgroup_param_1
// PTX-NEXT: )
