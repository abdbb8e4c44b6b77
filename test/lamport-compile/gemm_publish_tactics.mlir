// REQUIRES: ptxas
// Several tactics split M: the bundle holds one kernel per (tactic, tile),
// each with its own launch shape, and the launch plan gives each the range
// of M it serves. Every kernel assembles for sm_90 and sm_100a.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: lamport-compile %s -o %t/sm90
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/sm90/manifest.json
// RUN: FileCheck %s --check-prefix=PTX0 < %t/sm90/gemm_publish_0.ptx
// RUN: FileCheck %s --check-prefix=PTX2 < %t/sm90/gemm_publish_2.ptx
// RUN: test -s %t/sm90/gemm_publish_0.cubin
// RUN: test -s %t/sm90/gemm_publish_1.cubin
// RUN: test -s %t/sm90/gemm_publish_2.cubin
// RUN: lamport-compile %s -o %t/sm100a --chip sm_100a
// RUN: test -s %t/sm100a/gemm_publish_0.cubin
// RUN: test -s %t/sm100a/gemm_publish_1.cubin
// RUN: test -s %t/sm100a/gemm_publish_2.cubin
//
// MANIFEST:      "name": "gemm_publish_0",
// MANIFEST:      "grid": [64, 1, 1],
// MANIFEST-NEXT: "block": [1024, 1, 1],
// MANIFEST-NEXT: "cluster": [1, 1, 1],
// MANIFEST:      "attributes": {"token_tile": 8},
// MANIFEST:      "name": "gemm_publish_1",
// MANIFEST:      "grid": [64, 2, 1],
// MANIFEST-NEXT: "block": [1024, 1, 1],
// MANIFEST-NEXT: "cluster": [1, 2, 1],
// MANIFEST:      "attributes": {"token_tile": 8},
// MANIFEST:      "name": "gemm_publish_2",
// MANIFEST:      "grid": [64, 2, 1],
// MANIFEST-NEXT: "block": [512, 1, 1],
// MANIFEST-NEXT: "cluster": [1, 2, 1],
// MANIFEST:      "attributes": {"token_tile": 16},
// MANIFEST:      "launches": [
// MANIFEST-NEXT: {"kernel": "gemm_publish_0", "tokens": [1, 4]},
// MANIFEST-NEXT: {"kernel": "gemm_publish_1", "tokens": [5, 8]},
// MANIFEST-NEXT: {"kernel": "gemm_publish_2", "tokens": [9, 16]}
//
// The third tactic's register budget hint reaches its kernel alone.
// PTX0:      .maxntid 1024, 1, 1
// PTX0-NOT:  .minnctapersm
// PTX2:      .maxntid 512, 1, 1
// PTX2-NEXT: .minnctapersm 1

func.func @unpooler_tp8(%x: memref<?x4096xbf16>, %w: memref<1024x4096xbf16>,
                        %y: memref<?x1024xbf16>) {
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 128, accs = 2,
                             token_tiles = [8, 8, 8, 8]>,
             #lamport.tactic<splits = 2, kw = 64, accs = 2,
                             early_dependents = true,
                             token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
             #lamport.tactic<splits = 2, kw = 128, accs = 2,
                             min_ctas_per_sm = 1,
                             token_tiles = [16, 16, 16, 16, 16, 16, 16, 16,
                                            16, 16, 16, 16, 16, 16, 16, 16]>)
      {pdl} : memref<?x4096xbf16>, memref<1024x4096xbf16>, memref<?x1024xbf16>
  return
}
