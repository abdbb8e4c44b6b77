// RUN: lamport-opt %s --lamport-generate-kernels --split-input-file -verify-diagnostics

// The generated kernel loads K in 32-wide chunks (16 bytes per lane): a
// tactic the op accepts (kw % 16 == 0) can still have no kernel.
func.func @kw_16(%x: memref<?x512xbf16>, %w: memref<8192x512xbf16>,
                 %y: memref<?x8192xbf16>) {
  // expected-error @+1 {{has no kernel: kw = 16: the generated kernel loads K in chunks of 32 (16 bytes per lane), so kw must be a multiple of 32}}
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 16, accs = 1,
          token_tiles = [8, 8, 8, 8, 8, 8, 8, 8,
                         16, 16, 16, 16, 16, 16, 16, 16]>)
      : memref<?x512xbf16>, memref<8192x512xbf16>, memref<?x8192xbf16>
  return
}

// -----

// Tiles multiply the reduction's shared memory: o_proj at tp = 4 with 4
// tiles and the 16-token tile needs (16 warps + 1 split) x 16 tokens x 64
// features x 4 bytes, past the 48 KiB a kernel may declare statically.
func.func @tiles_shared_memory(%x: memref<?x2048xbf16>,
                               %w: memref<8192x2048xbf16>,
                               %y: memref<?x8192xbf16>) {
  // expected-error @+1 {{has no kernel: the reduction needs (warps + splits) x token tile x features x 4 = (16 + 1) x 16 x 64 x 4 = 69632 bytes of shared memory, over the 49152-byte static limit less 32 for the stage word and the split barrier: use fewer tiles or warps (a larger kw)}}
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 128, accs = 2, tiles = 4,
          token_tiles = [8, 8, 8, 8, 8, 8, 8, 8,
                         16, 16, 16, 16, 16, 16, 16, 16]>)
      : memref<?x2048xbf16>, memref<8192x2048xbf16>, memref<?x8192xbf16>
  return
}

// -----

// Just past the limit: (16 warps + 8 splits) x 16 tokens x 32 features x 4
// bytes is exactly 48 KiB, which leaves no room for the split barrier and
// the stage word (15 warps fit: generate_kernels_gemm_publish_tiles.mlir).
func.func @tiles_shared_memory_edge(%x: memref<16x4096xbf16>,
                                    %w: memref<32x4096xbf16>,
                                    %y: memref<16x32xbf16>) {
  // expected-error @+1 {{has no kernel: the reduction needs (warps + splits) x token tile x features x 4 = (16 + 8) x 16 x 32 x 4 = 49152 bytes of shared memory, over the 49152-byte static limit less 32 for the stage word and the split barrier: use fewer tiles or warps (a larger kw)}}
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 8, kw = 32, accs = 1, tiles = 2,
          token_tiles = [16, 16, 16, 16, 16, 16, 16, 16,
                         16, 16, 16, 16, 16, 16, 16, 16]>)
      : memref<16x4096xbf16>, memref<32x4096xbf16>, memref<16x32xbf16>
  return
}
