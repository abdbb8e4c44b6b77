// RUN: lamport-opt %s --split-input-file --lamport-select-tactics="chip=sm_120" -verify-diagnostics
// RUN: not lamport-opt %s --split-input-file --lamport-select-tactics="chip=sm_120 explain" 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: lamport-opt %s --split-input-file --lamport-select-tactics="chip=sm_100f no-table" | FileCheck %s --check-prefix=B200

// The cost model has figures for the H200 (sm_90, sm_90a) and the B200
// (sm_100, sm_100a, sm_100f). For another chip an op without tactics is an
// error, not the H200's choice under another name; written tactics are
// kept, and explaining them, which takes the model's estimate, is the
// same error without the advice.

// B200-LABEL: func.func @untuned
// B200: tactic(#lamport.tactic<
func.func @untuned(%x: memref<4x4096xbf16>, %w: memref<1024x4096xbf16>,
                   %y: memref<4x1024xbf16>) {
  // expected-error @+1 {{'lamport.gemm_publish' op has no cost model for chip 'sm_120' to choose its tactics with (the model has figures for sm_90 and sm_90a, the H200, and sm_100, sm_100a and sm_100f, the B200): write its tactics}}
  lamport.gemm_publish %x, %w into %y {pdl}
      : memref<4x4096xbf16>, memref<1024x4096xbf16>, memref<4x1024xbf16>
  return
}

// -----

// EXPLAIN: select_tactics_chip.mlir:28:3: error: 'lamport.gemm_publish' op has no cost model for chip 'sm_120' to explain its tactics with (the model has figures for sm_90 and sm_90a, the H200, and sm_100, sm_100a and sm_100f, the B200){{$}}
// B200-LABEL: func.func @written
// B200: tactic(#lamport.tactic<splits = 1, kw = 128, accs = 2, token_tiles = [8, 8, 8, 8]>)
func.func @written(%x: memref<4x4096xbf16>, %w: memref<1024x4096xbf16>,
                   %y: memref<4x1024xbf16>) {
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 128, accs = 2, token_tiles = [8, 8, 8, 8]>) {pdl}
      : memref<4x4096xbf16>, memref<1024x4096xbf16>, memref<4x1024xbf16>
  return
}
