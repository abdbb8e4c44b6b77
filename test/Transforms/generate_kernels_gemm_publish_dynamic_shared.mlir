// RUN: lamport-opt %s --lamport-generate-kernels --split-input-file | FileCheck %s

// Past the 48 KiB a kernel may declare statically (less 32 bytes for the
// stage word and the split barrier), the reduction's two buffers move to
// the kernel's dynamic shared memory, one after the other, and the launch
// asks for their bytes; the split barrier stays static.

// o_proj at tp = 4 with 4 tiles and the 16-token tile: (16 warps + 1 split)
// x 16 tokens x 64 features x 4 bytes = 69632 bytes; the warps' partials at
// element 0, the split sums from element 16 x 16 x 64 = 16384.

// CHECK-LABEL: func.func @tiles_past_static
// CHECK: %[[BYTES:.*]] = arith.constant 69632 : i32
// CHECK: gpu.launch_func @gemm_publish_0::@gemm_publish_0
// CHECK-SAME: dynamic_shared_memory_size %[[BYTES]]
// CHECK: gpu.module @gemm_publish_0
// CHECK: llvm.mlir.global external @reduction() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x f32>
// CHECK-NOT: @warp_partials
// CHECK-NOT: @split_sums
// CHECK: gpu.func @gemm_publish_0
// CHECK: nvvm.mma.sync
// The warps' partials: from the start of the dynamic array.
// CHECK: %[[PARTIALS:.*]] = llvm.mlir.addressof @reduction : !llvm.ptr<3>
// CHECK: llvm.getelementptr inbounds %[[PARTIALS]][%{{.*}}] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, f32
// The split sums: 16384 elements in.
// CHECK: %[[FIRST:.*]] = arith.constant 16384 : i32
// CHECK: %[[SLOT:.*]] = arith.addi %{{.*}}, %[[FIRST]] : i32
// CHECK: %[[SUMS:.*]] = llvm.mlir.addressof @reduction : !llvm.ptr<3>
// CHECK: %[[WIDE:.*]] = arith.extui %[[SLOT]] : i32 to i64
// CHECK: llvm.getelementptr inbounds %[[SUMS]][%[[WIDE]]]
func.func @tiles_past_static(%x: memref<?x2048xbf16>,
                             %w: memref<8192x2048xbf16>,
                             %y: memref<?x8192xbf16>) {
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 128, accs = 2, tiles = 4,
          token_tiles = [16, 16, 16, 16, 16, 16, 16, 16,
                         16, 16, 16, 16, 16, 16, 16, 16]>)
      : memref<?x2048xbf16>, memref<8192x2048xbf16>, memref<?x8192xbf16>
  return
}

// -----

// Just past the static budget: (16 warps + 8 splits) x 16 tokens x 32
// features x 4 bytes is exactly 48 KiB, which leaves no room for the split
// barrier and the stage word, so it is dynamic; 15 warps stay static
// (generate_kernels_gemm_publish_tiles.mlir).

// CHECK-LABEL: func.func @just_past_static
// CHECK: %[[BYTES:.*]] = arith.constant 49152 : i32
// CHECK: gpu.launch_func @gemm_publish_0::@gemm_publish_0
// CHECK-SAME: dynamic_shared_memory_size %[[BYTES]]
// CHECK-DAG: llvm.mlir.global external @reduction()
// CHECK-DAG: llvm.mlir.global internal @split_barrier() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<1 x i64>
func.func @just_past_static(%x: memref<16x4096xbf16>,
                            %w: memref<32x4096xbf16>,
                            %y: memref<16x32xbf16>) {
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 8, kw = 32, accs = 1, tiles = 2,
          token_tiles = [16, 16, 16, 16, 16, 16, 16, 16,
                         16, 16, 16, 16, 16, 16, 16, 16]>)
      : memref<16x4096xbf16>, memref<32x4096xbf16>, memref<16x32xbf16>
  return
}
