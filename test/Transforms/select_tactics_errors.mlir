// RUN: lamport-opt %s --split-input-file --lamport-select-tactics -verify-diagnostics

// A shape no tactic of any kernel family launches is one error saying why
// each family cannot.

func.func @n_not_tiled(%x: memref<?x4096xbf16>, %w: memref<1000x4096xbf16>,
                       %y: memref<?x1000xbf16>) {
  // expected-error @+1 {{'lamport.gemm_publish' op no tactic launches N = 1000, K = 4096: register-direct kernel: N = 1000 must be a positive multiple of 16 (the MMA's weight rows per CTA); bulk-stream kernel: as the register-direct kernel}}
  lamport.gemm_publish %x, %w into %y
      : memref<?x4096xbf16>, memref<1000x4096xbf16>, memref<?x1000xbf16>
  return
}

// -----

func.func @k_not_chunked(%x: memref<?x48xbf16>, %w: memref<1024x48xbf16>,
                         %y: memref<?x1024xbf16>) {
  // expected-error @+1 {{'lamport.gemm_publish' op no tactic launches N = 1024, K = 48: register-direct kernel: K = 48 must be a positive multiple of 32 (the kernels load K in chunks of 32: 16 bytes of a weight row a lane); bulk-stream kernel: as the register-direct kernel}}
  lamport.gemm_publish %x, %w into %y
      : memref<?x48xbf16>, memref<1024x48xbf16>, memref<?x1024xbf16>
  return
}

// -----

// A K of whole chunks that no splits x warps divide finely enough: 19904 is
// 622 = 2 x 311 chunks, so the least a thread holds is 311 of them.
func.func @k_chunks_prime(%x: memref<?x19904xbf16>, %w: memref<1024x19904xbf16>,
                          %y: memref<?x1024xbf16>) {
  // expected-error @+1 {{'lamport.gemm_publish' op no tactic launches N = 1024, K = 19904: register-direct kernel: K = 19904 is 622 chunks of 32, which splits (1, 2, 4, 8) x warps (1..32) divide by at most 2: kw = 9952 holds 311 chunks of 32 K in a thread (the register pipeline holds the weights of each); at most 128: past that the kernel spills them and its compile time grows as the square of their count; bulk-stream kernel: as the register-direct kernel}}
  lamport.gemm_publish %x, %w into %y
      : memref<?x19904xbf16>, memref<1024x19904xbf16>, memref<?x1024xbf16>
  return
}

// -----

// A K so deep that even 8 splits of 32 warps leave a thread more chunks
// than it may hold (2048 at kw = 65536), in either pipeline.
func.func @k_past_a_thread(%x: memref<?x16777216xbf16>,
                           %w: memref<4096x16777216xbf16>,
                           %y: memref<?x4096xbf16>) {
  // expected-error @+1 {{'lamport.gemm_publish' op no tactic launches N = 4096, K = 16777216: register-direct kernel: K = 16777216 is 524288 chunks of 32, which splits (1, 2, 4, 8) x warps (1..32) divide by at most 256: kw = 65536 holds 2048 chunks of 32 K in a thread (the register pipeline holds the weights of each); at most 128: past that the kernel spills them and its compile time grows as the square of their count; bulk-stream kernel: kw = 1048576 holds 32768 chunks of 32 K in a thread (the bulk pipeline holds x of each); at most 128:}}
  lamport.gemm_publish %x, %w into %y
      : memref<?x16777216xbf16>, memref<4096x16777216xbf16>, memref<?x4096xbf16>
  return
}
