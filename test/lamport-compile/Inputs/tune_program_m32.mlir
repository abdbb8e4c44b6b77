// Not a valid program: x's M of 32 is past what a gemm_publish takes, which
// lamport-tune --program refuses with the verifier's error before it
// compiles anything (test/lamport-compile/tune_program.test).
func.func @too_many_tokens(%x: memref<32x64xbf16>, %w: memref<16x64xbf16>,
                           %y: memref<32x16xbf16>) {
  lamport.gemm_publish %x, %w into %y
      : memref<32x64xbf16>, memref<16x64xbf16>, memref<32x16xbf16>
  return
}
