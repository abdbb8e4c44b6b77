// RUN: lamport-opt %s -convert-lamport-to-nvvm | FileCheck %s
// RUN: lamport-opt %s -lamport-lower-to-nvvm | %python %S/../Inputs/extract_ptx.py > %t.sm90.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.sm90.ptx
// RUN: %ptxas -arch=sm_90 %t.sm90.ptx -o /dev/null
// RUN: lamport-opt %s -lamport-lower-to-nvvm="chip=sm_100a" | %python %S/../Inputs/extract_ptx.py > %t.sm100a.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.sm100a.ptx
// RUN: %ptxas -arch=sm_100a %t.sm100a.ptx -o /dev/null
// REQUIRES: ptxas

// The mechanisms the generated kernels share, lowered: mbarrier set-up and
// waits through upstream nvvm.mbarrier.* ops, the cluster store, the PDL
// guard and the L2-policy load through the PTX NVVM has no op for.

module attributes {gpu.container_module} {
  gpu.module @kernels {
    llvm.mlir.global internal @barrier() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<1 x i64>
    llvm.mlir.global internal @slots() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<4 x f32>

    // CHECK-LABEL: gpu.func @cluster_sum
    // PTX-LABEL: .entry cluster_sum
    gpu.func @cluster_sum(%out: memref<4xf32, 1>) kernel {
      %c0 = arith.constant 0 : i32
      %barrier = llvm.mlir.addressof @barrier : !llvm.ptr<3>
      %slots = llvm.mlir.addressof @slots : !llvm.ptr<3>
      %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
      %sum = arith.sitofp %rank : i32 to f32
      // CHECK: %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
      // CHECK: %[[BYTES:.*]] = llvm.mlir.constant(16 : i32) : i32
      // CHECK: nvvm.mbarrier.init %[[BARRIER:.*]], %[[ONE]] : !llvm.ptr<3>, i32
      // CHECK: nvvm.mbarrier.arrive.expect_tx %[[BARRIER]], %[[BYTES]] : !llvm.ptr<3>, i32
      // PTX: mbarrier.init.shared.b64 [barrier], %r{{[0-9]+}};
      // PTX: mbarrier.arrive.expect_tx.shared.b64 %rd{{[0-9]+}}, [barrier], %r{{[0-9]+}};
      lamport.cluster.expect_bytes %barrier, 16 : !llvm.ptr<3>
      nvvm.fence.mbarrier.init
      nvvm.cluster.arrive
      nvvm.cluster.wait
      // Every CTA sends its value into slot `rank` of CTA 0.
      // CHECK: %[[SLOT:.*]] = llvm.getelementptr
      // CHECK: %[[TO:.*]] = nvvm.mapa %[[SLOT]], %{{.*}} : !llvm.ptr<3> -> !llvm.ptr<7>
      // CHECK: %[[TOBAR:.*]] = nvvm.mapa %{{.*}}, %{{.*}} : !llvm.ptr<3> -> !llvm.ptr<7>
      // CHECK: %[[BITS:.*]] = llvm.bitcast %{{.*}} : f32 to i32
      // CHECK: llvm.inline_asm has_side_effects "st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [$0], $1, [$2];", "l,r,l,~{memory}" %[[TO]], %[[BITS]], %[[TOBAR]]
      // PTX: mapa.shared::cluster.u64 %rd[[TO:[0-9]+]],
      // PTX: mapa.shared::cluster.u64 %rd[[TOBAR:[0-9]+]],
      // PTX: st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%rd[[TO]]], %r{{[0-9]+}}, [%rd[[TOBAR]]];
      %slot = llvm.getelementptr inbounds %slots[%rank] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
      lamport.cluster.send %sum to %slot of %c0 completing %barrier : f32
      // CHECK: nvvm.mbarrier.try_wait.parity %{{.*}}, %{{.*}}, %{{.*}} : !llvm.ptr<3>, i32, i32
      // PTX: mbarrier.try_wait.parity.shared.b64 P1, [%r{{[0-9]+}}], 0, 10000000;
      lamport.cluster.wait %barrier : !llvm.ptr<3>
      gpu.return
    }

    // CHECK-LABEL: gpu.func @weights_before_wait
    // PTX-LABEL: .entry weights_before_wait
    gpu.func @weights_before_wait(%weights: !llvm.ptr<1>, %tokens: i32,
                                  %y: memref<16x1024xbf16, 1>,
                                  %digest: i64) kernel {
      // CHECK: %[[POLICY:.*]] = llvm.inline_asm "createpolicy.fractional.L2::evict_first.b64 $0, 1.0;", "=l"
      // CHECK: llvm.inline_asm has_side_effects "ld.global.L2::cache_hint.v4.b32 {$0, $1, $2, $3}, [$4], $5;", "=r,=r,=r,=r,l,l" %{{.*}}, %[[POLICY]]
      // PTX: createpolicy.fractional.L2::evict_first.b64 %rd[[POLICY:[0-9]+]], 1.0;
      // PTX: ld.global.L2::cache_hint.v4.b32 {{.*}}, %rd[[POLICY]];
      %policy = lamport.l2.evict_first_policy
      %words = lamport.l2.load_fragment %weights, %policy
          : !llvm.ptr<1> -> vector<4xi32>
      // The guard: a store on the launch's raw M that never runs, to the
      // kernel's output, then the wait.
      // CHECK: %[[ADDRESS:.*]] = memref.extract_aligned_pointer_as_index %{{.*}} : memref<16x1024xbf16, 1> -> index
      // CHECK: %[[WIDE:.*]] = arith.index_castui %[[ADDRESS]] : index to i64
      // CHECK: %[[GUARD:.*]] = llvm.inttoptr %[[WIDE]] : i64 to !llvm.ptr<1>
      // CHECK: llvm.inline_asm has_side_effects "{ .reg .pred never; setp.gt.u32 never, $0, 2147483647; @never st.global.b64 [$1], $2; }", "r,l,l,~{memory}" %{{.*}}, %[[GUARD]], %{{.*}}
      // CHECK-NEXT: nvvm.griddepcontrol wait
      // PTX: @never st.global.b64 [%rd{{[0-9]+}}], %rd{{[0-9]+}}; }
      // PTX-NEXT: // end inline asm
      // PTX-NEXT: griddepcontrol.wait;
      lamport.pdl.wait %tokens, %y, %digest : memref<16x1024xbf16, 1>
      %bits = vector.extract %words[0] : i32 from vector<4xi32>
      %value = arith.bitcast %bits : i32 to f32
      %c0 = arith.constant 0 : index
      %f = arith.truncf %value : f32 to bf16
      memref.store %f, %y[%c0, %c0] : memref<16x1024xbf16, 1>
      gpu.return
    }
  }
}
