// REQUIRES: ptxas
// A tactic's min_ctas_per_sm becomes the kernel's nvvm.minctasm and PTX
// .minnctapersm (ptxas then budgets registers for that many CTAs per SM),
// on both chips; a tactic without it asks nothing. o_proj at tp = 4 with
// x's static M = 16 (one kernel, the 16-token tile).
//
// RUN: lamport-opt %s --lamport-generate-kernels | FileCheck %s --check-prefix=GEN
// RUN: rm -rf %t && mkdir -p %t
// RUN: lamport-compile %s --program hinted -o %t/hinted_sm90
// RUN: FileCheck %s --check-prefix=HINTED < %t/hinted_sm90/gemm_publish_0.ptx
// RUN: test -s %t/hinted_sm90/gemm_publish_0.cubin
// RUN: lamport-compile %s --program hinted -o %t/hinted_sm100a --chip sm_100a
// RUN: FileCheck %s --check-prefix=HINTED < %t/hinted_sm100a/gemm_publish_0.ptx
// RUN: test -s %t/hinted_sm100a/gemm_publish_0.cubin
// RUN: lamport-compile %s --program plain -o %t/plain_sm90
// RUN: FileCheck %s --check-prefix=PLAIN < %t/plain_sm90/gemm_publish_1.ptx
//
// GEN:       gpu.func @gemm_publish_0(
// GEN-SAME:  nvvm.minctasm = 1 : i32
// GEN:       gpu.func @gemm_publish_1(
// GEN-NOT:   nvvm.minctasm
// GEN:       gpu.return
//
// HINTED:      .visible .entry gemm_publish_0(
// HINTED:      .maxntid 512, 1, 1
// HINTED-NEXT: .minnctapersm 1
//
// PLAIN:       .visible .entry gemm_publish_1(
// PLAIN-NOT:   .minnctapersm
// PLAIN:       ret;

func.func @hinted(%x: memref<16x2048xbf16>, %w: memref<8192x2048xbf16>,
                  %y: memref<16x8192xbf16>) {
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 128, accs = 2,
          min_ctas_per_sm = 1,
          token_tiles = [16, 16, 16, 16, 16, 16, 16, 16,
                         16, 16, 16, 16, 16, 16, 16, 16]>) {pdl}
      : memref<16x2048xbf16>, memref<8192x2048xbf16>, memref<16x8192xbf16>
  return
}

func.func @plain(%x: memref<16x2048xbf16>, %w: memref<8192x2048xbf16>,
                 %y: memref<16x8192xbf16>) {
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 128, accs = 2,
          token_tiles = [16, 16, 16, 16, 16, 16, 16, 16,
                         16, 16, 16, 16, 16, 16, 16, 16]>) {pdl}
      : memref<16x2048xbf16>, memref<8192x2048xbf16>, memref<16x8192xbf16>
  return
}
