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

// Without tactics the op is a complete program but has no kernel until
// lamport-select-tactics gives it some.
func.func @no_tactics(%x: memref<?x512xbf16>, %w: memref<8192x512xbf16>,
                      %y: memref<?x8192xbf16>) {
  // expected-error @+1 {{'lamport.gemm_publish' op has no tactics: lamport-select-tactics chooses them (every lamport-compile run and lowering pipeline runs it before lamport-generate-kernels), or write tactic(...) on the op}}
  lamport.gemm_publish %x, %w into %y
      : memref<?x512xbf16>, memref<8192x512xbf16>, memref<?x8192xbf16>
  return
}
