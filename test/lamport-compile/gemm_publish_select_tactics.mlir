// lamport-compile chooses the tactics of a gemm_publish without them
// (lamport-select-tactics, before kernel generation): from the chip's
// installed table by default, from --tactic-table where given, and
// --lamport-explain-tactics says where they came from.
//
// RUN: lamport-compile %s --emit=mlir -o - --lamport-explain-tactics 2>&1 | FileCheck %s --check-prefix=TABLE
// TABLE: remark: tactics for N = 1024, K = 4096: M 1..1 s2 kw128 tiles2 a4 occ1 early from the table {{.*}}sm_90.json (entry {{[0-9]+}}, M 1..1, lamport-tune {{[0-9-]+}}, unpooler_tp8: {{[0-9.]+}} us at M = 1
// TABLE-SAME: M 2..4 s2 kw64 tiles2 a1 early from the table
// TABLE-SAME: M 5..8 s2 kw64 tiles2 a2 occ1 early from the table
// TABLE-SAME: M 9..16 s4 kw128 tiles2 a1 occ1 early from the table
// TABLE: gpu.launch_func @gemm_publish_0
//
// RUN: lamport-compile %s --emit=mlir -o - --lamport-explain-tactics --tactic-table %S/../Transforms/Inputs/tactics_small.json 2>&1 | FileCheck %s --check-prefix=GIVEN
// GIVEN: remark: tactics for N = 1024, K = 4096: M 1..4 s1 kw128 a2 occ1 early from the table {{.*}}tactics_small.json (entry 0, M 1..4, test entry one); M 5..16 s2 kw64 tiles2 a1 from the table
//
// An entry without a source says only where it is in the file.
// RUN: lamport-compile %s --emit=mlir -o - --lamport-explain-tactics --tactic-table %S/../Transforms/Inputs/tactics_no_source.json 2>&1 | FileCheck %s --check-prefix=NOSOURCE
// NOSOURCE: remark: tactics for N = 1024, K = 4096: M 1..16 s1 kw128 a2 from the table {{.*}}tactics_no_source.json (entry 0, M 1..16);{{$}}
//
// Without the remark (and with -q) lamport-compile says nothing and the bundle has the
// table's kernels: one per tactic and token tile (four here).
// RUN: rm -rf %t && lamport-compile %s -o %t -q 2>&1 | count 0
// RUN: FileCheck %s --check-prefix=BUNDLE < %t/manifest.json
// BUNDLE: "name": "gemm_publish_0"
// BUNDLE: "name": "gemm_publish_1"
// BUNDLE: "name": "gemm_publish_2"
// BUNDLE: "name": "gemm_publish_3"
// BUNDLE-NOT: "name": "gemm_publish_4"

func.func @unpooler(%x: memref<?x4096xbf16>, %w: memref<1024x4096xbf16>,
                    %y: memref<?x1024xbf16>) {
  lamport.gemm_publish %x, %w into %y {pdl}
      : memref<?x4096xbf16>, memref<1024x4096xbf16>, memref<?x1024xbf16>
  return
}
