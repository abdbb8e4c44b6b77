// RUN: rm -rf %t && lamport-compile %s -o %t
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/manifest.json
// RUN: %ptxas -arch=sm_90 %t/gemm_publish_0.ptx -o /dev/null
// REQUIRES: ptxas

// A GEMM with a static M needs a tactic for that M only: x of 4 rows and
// token tiles for M 1..4 compile into one kernel of the 8-token tile.

// MANIFEST: "kernels": [
// MANIFEST: "name": "gemm_publish_0"
// MANIFEST: "attributes": {"token_tile": 8}
// MANIFEST-NOT: "gemm_publish_1"
// MANIFEST: "launches": [
// MANIFEST-NEXT: {"kernel": "gemm_publish_0"}
// MANIFEST-NEXT: ]
func.func @static_m(%x: memref<4x1024xbf16>, %w: memref<8192x1024xbf16>,
                    %y: memref<4x8192xbf16>) {
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 64, accs = 2,
          token_tiles = [8, 8, 8, 8]>)
      {pdl}
      : memref<4x1024xbf16>, memref<8192x1024xbf16>, memref<4x8192xbf16>
  return
}
