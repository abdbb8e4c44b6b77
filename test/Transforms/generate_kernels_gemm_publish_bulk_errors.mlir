// RUN: lamport-opt %s --lamport-generate-kernels="bulk-copies=rows" --split-input-file -verify-diagnostics

// What the bulk pipeline's generator refuses among the tactics the op
// accepts, each with the rule it breaks.

func.func @late_chunks(%x: memref<16x4096xbf16>, %w: memref<2048x4096xbf16>,
                       %y: memref<16x2048xbf16>) {
  // expected-error @+1 {{has no kernel: late_chunks needs pipeline = registers: the bulk pipeline issues every weight copy from its ring}}
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 256, accs = 1, late_chunks = 1,
          pipeline = bulk, token_tiles = [16, 16, 16, 16, 16, 16, 16, 16,
                         16, 16, 16, 16, 16, 16, 16, 16]>)
      : memref<16x4096xbf16>, memref<2048x4096xbf16>, memref<16x2048xbf16>
  return
}

// -----

func.func @too_many_stages(%x: memref<16x4096xbf16>, %w: memref<2048x4096xbf16>,
                           %y: memref<16x2048xbf16>) {
  // expected-error @+1 {{has no kernel: stages = 17: the ring takes 1 to 16 stages}}
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 256, accs = 1, pipeline = bulk,
          stages = 17, token_tiles = [16, 16, 16, 16, 16, 16, 16, 16,
                         16, 16, 16, 16, 16, 16, 16, 16]>)
      : memref<16x4096xbf16>, memref<2048x4096xbf16>, memref<16x2048xbf16>
  return
}

// -----

// 16 rows x 32 K x 2 bytes = 1024 bytes is the smallest stage of one tile.
func.func @stage_off_rows(%x: memref<16x4096xbf16>, %w: memref<2048x4096xbf16>,
                          %y: memref<16x2048xbf16>) {
  // expected-error @+1 {{has no kernel: stage_bytes = 1000 must be a multiple of the 1024 bytes of 32 K of the CTA's 16 weight rows}}
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 256, accs = 1, pipeline = bulk,
          stage_bytes = 1000, token_tiles = [16, 16, 16, 16, 16, 16, 16, 16,
                         16, 16, 16, 16, 16, 16, 16, 16]>)
      : memref<16x4096xbf16>, memref<2048x4096xbf16>, memref<16x2048xbf16>
  return
}

// -----

// 3072 bytes: 96 K, which does not divide the slice of 4096.
func.func @stage_off_slice(%x: memref<16x4096xbf16>, %w: memref<2048x4096xbf16>,
                           %y: memref<16x2048xbf16>) {
  // expected-error @+1 {{has no kernel: a stage of 96 K must divide the K slice of 4096}}
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 256, accs = 1, pipeline = bulk,
          stage_bytes = 3072, token_tiles = [16, 16, 16, 16, 16, 16, 16, 16,
                         16, 16, 16, 16, 16, 16, 16, 16]>)
      : memref<16x4096xbf16>, memref<2048x4096xbf16>, memref<16x2048xbf16>
  return
}

// -----

// 16 warps of 256 K, a stage of 256 K: each warp would read 16 K of it.
func.func @warp_share(%x: memref<16x4096xbf16>, %w: memref<2048x4096xbf16>,
                      %y: memref<16x2048xbf16>) {
  // expected-error @+1 {{has no kernel: each of the 16 warps must read a multiple of 32 K of each stage of 256 K (stage K x kw / K slice)}}
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 256, accs = 1, pipeline = bulk,
          stage_bytes = 8192, token_tiles = [16, 16, 16, 16, 16, 16, 16, 16,
                         16, 16, 16, 16, 16, 16, 16, 16]>)
      : memref<16x4096xbf16>, memref<2048x4096xbf16>, memref<16x2048xbf16>
  return
}

// -----

func.func @producer_lanes(%x: memref<16x4096xbf16>, %w: memref<2048x4096xbf16>,
                          %y: memref<16x2048xbf16>) {
  // expected-error @+1 {{has no kernel: producer_lanes = 33: the producer is 1 to 32 lanes of warp 0 that share a stage's 16 copies evenly}}
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 256, accs = 1, pipeline = bulk,
          producer_lanes = 33, token_tiles = [16, 16, 16, 16, 16, 16, 16, 16,
                         16, 16, 16, 16, 16, 16, 16, 16]>)
      : memref<16x4096xbf16>, memref<2048x4096xbf16>, memref<16x2048xbf16>
  return
}

// -----

// 12 lanes cannot share a stage's 16 row copies evenly.
func.func @uneven_lanes(%x: memref<16x4096xbf16>, %w: memref<2048x4096xbf16>,
                        %y: memref<16x2048xbf16>) {
  // expected-error @+1 {{has no kernel: producer_lanes = 12: the producer is 1 to 32 lanes of warp 0 that share a stage's 16 copies evenly}}
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 256, accs = 1, pipeline = bulk,
          producer_lanes = 12, token_tiles = [16, 16, 16, 16, 16, 16, 16, 16,
                         16, 16, 16, 16, 16, 16, 16, 16]>)
      : memref<16x4096xbf16>, memref<2048x4096xbf16>, memref<16x2048xbf16>
  return
}

// -----

// 8 stages of 32 KiB (and their row padding) are more than a CTA has.
func.func @ring_too_large(%x: memref<16x4096xbf16>, %w: memref<2048x4096xbf16>,
                          %y: memref<16x2048xbf16>) {
  // expected-error @+1 {{has no kernel: the ring (270336 bytes) and the reduction (17408) take more than the 232448 bytes of shared memory a CTA has}}
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 256, accs = 1, pipeline = bulk,
          stages = 8, stage_bytes = 32768, token_tiles = [16, 16, 16, 16, 16, 16, 16, 16,
                         16, 16, 16, 16, 16, 16, 16, 16]>)
      : memref<16x4096xbf16>, memref<2048x4096xbf16>, memref<16x2048xbf16>
  return
}
