// RUN: lamport-opt %s --lamport-generate-kernels --split-input-file | FileCheck %s

// With M dynamic, one kernel per distinct token tile the tactic asks for
// over 1..max M, chosen by M at launch (docs/design/gemm.md): the op
// becomes an scf.if on M <= 8 (M = memref.dim of x) whose branches launch
// gemm_publish_0 (the 8-token tile, one MMA token block) and
// gemm_publish_1 (16, two token blocks). The kernels take the same
// parameters and launch shape and differ only in the tile.

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 1024>

// CHECK: !mailbox_tp8_c16_w1024 = !lamport.mailbox<tp = 8, capacity = 16, width = 1024>
// CHECK-LABEL: func.func @unpooler_tp8
// CHECK-SAME: (%[[X:[a-z0-9]+]]: memref<?x4096xbf16>,
// CHECK: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK: %[[M:.*]] = memref.dim %[[X]], %[[ZERO]] : memref<?x4096xbf16>
// CHECK: %[[EIGHT:.*]] = arith.constant 8 : index
// CHECK: %[[SMALL:.*]] = arith.cmpi ule, %[[M]], %[[EIGHT]] : index
// CHECK: scf.if %[[SMALL]] {
// CHECK: gpu.launch_func @gemm_publish_0::@gemm_publish_0
// CHECK-SAME: args(%{{.*}} : !mailbox_tp8_c16_w1024, %{{.*}} : memref<1024x4096xbf16, 1>, %{{.*}} : memref<16x4096xbf16, 1>, %{{.*}} : memref<16x1024xbf16, 1>, %{{.*}} : i32)
// CHECK-NOT: gpu.launch_func
// CHECK: } else {
// CHECK: gpu.launch_func @gemm_publish_1::@gemm_publish_1
// CHECK-SAME: args(%{{.*}} : !mailbox_tp8_c16_w1024, %{{.*}} : memref<1024x4096xbf16, 1>, %{{.*}} : memref<16x4096xbf16, 1>, %{{.*}} : memref<16x1024xbf16, 1>, %{{.*}} : i32)
// CHECK-NOT: gpu.launch_func
// CHECK: }
// CHECK-NEXT: return
// CHECK: gpu.module @gemm_publish_0
// CHECK: gpu.func @gemm_publish_0
// CHECK-SAME: known_block_size = array<i32: 512, 1, 1>
// CHECK-SAME: known_grid_size = array<i32: 64, 4, 1>
// CHECK-SAME: lamport.attributes = {token_tile = 8 : i64, transport = #lamport.transport<unicast>}
// CHECK-COUNT-4: nvvm.mma.sync
// CHECK-NOT: nvvm.mma.sync
// CHECK: gpu.return
// CHECK: gpu.module @gemm_publish_1
// CHECK: gpu.func @gemm_publish_1
// CHECK-SAME: known_block_size = array<i32: 512, 1, 1>
// CHECK-SAME: known_grid_size = array<i32: 64, 4, 1>
// CHECK-SAME: lamport.attributes = {token_tile = 16 : i64, transport = #lamport.transport<unicast>}
// CHECK-COUNT-8: nvvm.mma.sync
// CHECK-NOT: nvvm.mma.sync
// CHECK: gpu.return
// CHECK-NOT: gpu.module
func.func @unpooler_tp8(%x: memref<?x4096xbf16>, %w: memref<1024x4096xbf16>,
                        %y: memref<?x1024xbf16>, %mb: !mb) {
  lamport.gemm_publish %x, %w into %y mailbox %mb : !mb
      tactic(#lamport.tactic<splits = 4, kw = 64, accs = 2,
          token_tiles = [8, 8, 8, 8, 8, 8, 8, 8,
                         16, 16, 16, 16, 16, 16, 16, 16]>) {pdl}
      : memref<?x4096xbf16>, memref<1024x4096xbf16>, memref<?x1024xbf16>
  return
}

// -----

// One tile over every M (or a static M): one kernel, no scf.if, as before.

// CHECK-LABEL: func.func @one_tile
// CHECK-NOT: scf.if
// CHECK: gpu.launch_func @gemm_publish_0::@gemm_publish_0
// CHECK-NOT: gpu.launch_func
// CHECK: gpu.func @gemm_publish_0
// CHECK-SAME: lamport.attributes = {token_tile = 16 : i64}
// CHECK-NOT: gpu.module
func.func @one_tile(%x: memref<?x1024xbf16>, %w: memref<1024x1024xbf16>,
                    %y: memref<?x1024xbf16>) {
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 64, accs = 2,
          token_tiles = [16, 16, 16, 16, 16, 16, 16, 16,
                         16, 16, 16, 16, 16, 16, 16, 16]>)
      : memref<?x1024xbf16>, memref<1024x1024xbf16>, memref<?x1024xbf16>
  return
}

// -----

// CHECK-LABEL: func.func @static_m
// CHECK-NOT: scf.if
// CHECK: gpu.launch_func @gemm_publish_0::@gemm_publish_0
// CHECK-NOT: gpu.launch_func
// CHECK: gpu.func @gemm_publish_0
// CHECK-SAME: lamport.attributes = {token_tile = 16 : i64}
// CHECK-NOT: gpu.module
func.func @static_m(%x: memref<12x1024xbf16>, %w: memref<1024x1024xbf16>,
                    %y: memref<12x1024xbf16>) {
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 64, accs = 2,
          token_tiles = [8, 8, 8, 8, 8, 8, 8, 8,
                         16, 16, 16, 16, 16, 16, 16, 16]>)
      : memref<12x1024xbf16>, memref<1024x1024xbf16>, memref<12x1024xbf16>
  return
}

// -----

// A tile that changes twice along M: a chain of scf.if, one per run of
// equal tiles, over the two kernels (M = 1 takes 16, 2..8 take 8, 9..16
// take 16; kernels numbered by the first M that takes each).

// CHECK-LABEL: func.func @two_changes
// CHECK: %[[M:.*]] = memref.dim
// CHECK: %[[ONE:.*]] = arith.constant 1 : index
// CHECK: %[[FIRST:.*]] = arith.cmpi ule, %[[M]], %[[ONE]] : index
// CHECK: scf.if %[[FIRST]] {
// CHECK: gpu.launch_func @gemm_publish_0::@gemm_publish_0
// CHECK: } else {
// CHECK: %[[EIGHT:.*]] = arith.constant 8 : index
// CHECK: %[[SECOND:.*]] = arith.cmpi ule, %[[M]], %[[EIGHT]] : index
// CHECK: scf.if %[[SECOND]] {
// CHECK: gpu.launch_func @gemm_publish_1::@gemm_publish_1
// CHECK: } else {
// CHECK: gpu.launch_func @gemm_publish_0::@gemm_publish_0
// CHECK: gpu.func @gemm_publish_0
// CHECK-SAME: token_tile = 16 : i64
// CHECK: gpu.func @gemm_publish_1
// CHECK-SAME: token_tile = 8 : i64
// CHECK-NOT: gpu.module
func.func @two_changes(%x: memref<?x1024xbf16>, %w: memref<1024x1024xbf16>,
                       %y: memref<?x1024xbf16>) {
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 64, accs = 2,
          token_tiles = [16, 8, 8, 8, 8, 8, 8, 8,
                         16, 16, 16, 16, 16, 16, 16, 16]>)
      : memref<?x1024xbf16>, memref<1024x1024xbf16>, memref<?x1024xbf16>
  return
}

// -----

// Several tactics: each serves the M past the previous one's token_tiles,
// one kernel per (tactic, tile) in the order of the first M it serves, with
// that tactic's launch: M = 1..4 one split of 32 warps, 5..8 two splits
// (a cluster of 2) of 32 warps launching dependents early, 9..16 two
// splits of 16 warps with the register budget hint and the 16-token tile.

// CHECK-LABEL: func.func @three_tactics
// CHECK: %[[M:.*]] = memref.dim
// CHECK: %[[FOUR:.*]] = arith.constant 4 : index
// CHECK: %[[FEW:.*]] = arith.cmpi ule, %[[M]], %[[FOUR]] : index
// CHECK: scf.if %[[FEW]] {
// CHECK: gpu.launch_func @gemm_publish_0::@gemm_publish_0 blocks in
// CHECK: } else {
// CHECK: %[[EIGHT:.*]] = arith.constant 8 : index
// CHECK: %[[SOME:.*]] = arith.cmpi ule, %[[M]], %[[EIGHT]] : index
// CHECK: scf.if %[[SOME]] {
// CHECK: gpu.launch_func @gemm_publish_1::@gemm_publish_1 clusters in
// CHECK: } else {
// CHECK: gpu.launch_func @gemm_publish_2::@gemm_publish_2 clusters in
// CHECK: gpu.func @gemm_publish_0
// CHECK-SAME: known_block_size = array<i32: 1024, 1, 1>
// CHECK-SAME: known_grid_size = array<i32: 64, 1, 1>
// CHECK-SAME: lamport.attributes = {token_tile = 8 : i64}
// CHECK-SAME: lamport.pdl} {
// CHECK: lamport.pdl.wait
// CHECK: nvvm.mma.sync
// CHECK: nvvm.griddepcontrol launch_dependents
// CHECK: gpu.func @gemm_publish_1
// CHECK-SAME: known_block_size = array<i32: 1024, 1, 1>
// CHECK-SAME: known_grid_size = array<i32: 64, 2, 1>
// CHECK-SAME: lamport.attributes = {token_tile = 8 : i64}
// CHECK: nvvm.griddepcontrol launch_dependents
// CHECK: lamport.pdl.wait
// CHECK: gpu.func @gemm_publish_2
// CHECK-SAME: known_block_size = array<i32: 512, 1, 1>
// CHECK-SAME: known_grid_size = array<i32: 64, 2, 1>
// CHECK-SAME: lamport.attributes = {token_tile = 16 : i64}
// CHECK-SAME: lamport.pdl, nvvm.minctasm = 1 : i32} {
// CHECK-COUNT-16: nvvm.mma.sync
// CHECK-NOT: nvvm.mma.sync
// CHECK-NOT: gpu.module
func.func @three_tactics(%x: memref<?x4096xbf16>, %w: memref<1024x4096xbf16>,
                         %y: memref<?x1024xbf16>) {
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 128, accs = 2,
                             token_tiles = [8, 8, 8, 8]>,
             #lamport.tactic<splits = 2, kw = 64, accs = 2,
                             early_dependents = true,
                             token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
             #lamport.tactic<splits = 2, kw = 128, accs = 2,
                             min_ctas_per_sm = 1,
                             token_tiles = [16, 16, 16, 16, 16, 16, 16, 16,
                                            16, 16, 16, 16, 16, 16, 16, 16]>)
      {pdl} : memref<?x4096xbf16>, memref<1024x4096xbf16>, memref<?x1024xbf16>
  return
}

// -----

// A static M runs the one tactic that serves it: M = 12 takes the second
// (two splits, 16-token tile), and the first never becomes a kernel.

// CHECK-LABEL: func.func @static_m_second_tactic
// CHECK-NOT: scf.if
// CHECK: gpu.launch_func @gemm_publish_0::@gemm_publish_0 clusters in
// CHECK-NOT: gpu.launch_func
// CHECK: gpu.func @gemm_publish_0
// CHECK-SAME: known_block_size = array<i32: 512, 1, 1>
// CHECK-SAME: known_grid_size = array<i32: 64, 2, 1>
// CHECK-SAME: lamport.attributes = {token_tile = 16 : i64}
// CHECK-NOT: gpu.module
func.func @static_m_second_tactic(%x: memref<12x4096xbf16>,
                                  %w: memref<1024x4096xbf16>,
                                  %y: memref<12x1024xbf16>) {
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 128, accs = 2,
                             token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
             #lamport.tactic<splits = 2, kw = 128, accs = 2,
                             token_tiles = [16, 16, 16, 16, 16, 16, 16, 16,
                                            16, 16, 16, 16, 16, 16, 16, 16]>)
      : memref<12x4096xbf16>, memref<1024x4096xbf16>, memref<12x1024xbf16>
  return
}
