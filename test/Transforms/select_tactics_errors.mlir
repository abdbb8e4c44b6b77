// RUN: lamport-opt %s --split-input-file --lamport-select-tactics -verify-diagnostics

// A shape no tactic of any kernel family launches is one error saying why
// each family cannot.

func.func @n_not_tiled(%x: memref<?x4096xbf16>, %w: memref<1000x4096xbf16>,
                       %y: memref<?x1000xbf16>) {
  // expected-error @+1 {{'lamport.gemm_publish' op no tactic launches N = 1000, K = 4096: register-direct kernel: N = 1000 must be a positive multiple of 16 (the MMA's weight rows per CTA);}}
  lamport.gemm_publish %x, %w into %y
      : memref<?x4096xbf16>, memref<1000x4096xbf16>, memref<?x1000xbf16>
  return
}

// -----

func.func @k_not_chunked(%x: memref<?x48xbf16>, %w: memref<1024x48xbf16>,
                         %y: memref<?x1024xbf16>) {
  // expected-error @+1 {{'lamport.gemm_publish' op no tactic launches N = 1024, K = 48: register-direct kernel: K = 48 does not split into 1 x warps x 32;}}
  lamport.gemm_publish %x, %w into %y
      : memref<?x48xbf16>, memref<1024x48xbf16>, memref<?x1024xbf16>
  return
}
