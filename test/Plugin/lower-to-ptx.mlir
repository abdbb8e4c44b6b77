// REQUIRES: ptxas
//
// The stock mlir-opt with both plugin entry points runs the whole lowering
// of a program: lamport-generate-kernels turns the program-level op into a
// gpu.module kernel and the lamport-lower-to-nvvm pipeline takes it down to
// PTX that ptxas assembles.
// Passes a plugin registers are reached through --pass-pipeline: mlir-opt
// makes a flag of each pass before it loads any plugin.
//
// RUN: %mlir_opt_lamport %s --pass-pipeline='builtin.module(lamport-generate-kernels)' | FileCheck %s --check-prefix=KERNEL
// RUN: %mlir_opt_lamport %s --pass-pipeline='builtin.module(lamport-generate-kernels, lamport-lower-to-nvvm)' | %python %S/../Conversion/Inputs/extract_ptx.py > %t.sm90.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.sm90.ptx
// RUN: %ptxas -arch=sm_90 %t.sm90.ptx -o /dev/null
//
// The pass and pipeline options reach the plugin's passes: multicast
// publishes for sm_100a.
// RUN: %mlir_opt_lamport %s --pass-pipeline='builtin.module(lamport-generate-kernels{transport=multicast}, lamport-lower-to-nvvm{chip=sm_100a})' | %python %S/../Conversion/Inputs/extract_ptx.py > %t.sm100a.ptx
// RUN: FileCheck %s --check-prefix=MULTICAST < %t.sm100a.ptx
// RUN: %ptxas -arch=sm_100a %t.sm100a.ptx -o /dev/null
//
// The plugin is the same compiler as lamport-opt: both generate the same
// kernel IR and the same PTX.
// RUN: lamport-opt %s -lamport-generate-kernels > %t.lamport-opt.mlir
// RUN: %mlir_opt_lamport %s --pass-pipeline='builtin.module(lamport-generate-kernels)' > %t.plugin.mlir
// RUN: diff %t.lamport-opt.mlir %t.plugin.mlir
// RUN: lamport-opt %s -lamport-generate-kernels -lamport-lower-to-nvvm | %python %S/../Conversion/Inputs/extract_ptx.py > %t.lamport-opt.ptx
// RUN: diff %t.lamport-opt.ptx %t.sm90.ptx

!mb = !lamport.mailbox<tp = 4, capacity = 16, width = 4096>

// KERNEL: func.func @publish
// KERNEL: gpu.launch_func @publish_rows_0::@publish_rows_0
// KERNEL: gpu.module @publish_rows_0
// KERNEL: gpu.func @publish_rows_0(
// KERNEL: lamport.mailbox.publish {{.*}} {transport = #lamport.transport<unicast>}
// KERNEL: lamport.stage.set_active

// PTX: .visible .entry publish_rows_0(
// PTX-NEXT: .param .align 8 .b8 publish_rows_0_param_0[72],
// PTX-NOT: multimem
// PTX-COUNT-4: st.global.v{{[24]}}.b{{32|64}}
// PTX-NOT: fence
// PTX: st.volatile.global.b32

// MULTICAST: .target sm_100a
// MULTICAST: .visible .entry publish_rows_0(
// MULTICAST: multimem.st.relaxed.sys.global.v4.f32
func.func @publish(%rows: memref<?x4096xbf16>, %mb: !mb) {
  lamport.publish_rows %rows into %mb : memref<?x4096xbf16>, !mb
  return
}
