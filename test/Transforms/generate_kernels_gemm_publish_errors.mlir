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
  // expected-error @+1 {{has no kernel: the reduction needs (warps + splits) x token tile x features x 4 = (16 + 1) x 16 x 64 x 4 = 69632 bytes of shared memory, over the 49152-byte static limit: use fewer tiles or warps (a larger kw)}}
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 128, accs = 2, tiles = 4,
          token_tiles = [8, 8, 8, 8, 8, 8, 8, 8,
                         16, 16, 16, 16, 16, 16, 16, 16]>)
      : memref<?x2048xbf16>, memref<8192x2048xbf16>, memref<?x8192xbf16>
  return
}

// -----

// Just past the limit: 24 warps + 1 split at 2 tiles and 16 tokens is 51200
// bytes (23 warps would be exactly 48 KiB, which fits).
func.func @tiles_shared_memory_edge(%x: memref<16x768xbf16>,
                                    %w: memref<64x768xbf16>,
                                    %y: memref<16x64xbf16>) {
  // expected-error @+1 {{has no kernel: the reduction needs (warps + splits) x token tile x features x 4 = (24 + 1) x 16 x 32 x 4 = 51200 bytes of shared memory, over the 49152-byte static limit: use fewer tiles or warps (a larger kw)}}
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 32, accs = 1, tiles = 2,
          token_tiles = [16, 16, 16, 16, 16, 16, 16, 16,
                         16, 16, 16, 16, 16, 16, 16, 16]>)
      : memref<16x768xbf16>, memref<64x768xbf16>, memref<16x64xbf16>
  return
}
