// RUN: lamport-opt %s --lamport-select-tactics="no-table candidates=12" | FileCheck %s --check-prefix=SWEPT
// RUN: lamport-opt %s --lamport-select-tactics="no-table candidates=12 wide-sweep" | FileCheck %s --check-prefix=WIDE
// RUN: lamport-opt %s --lamport-select-tactics="no-table candidates=12 wide-sweep" | FileCheck %s --check-prefix=WIDE256

// The sweep keeps splits 1, 2, 4 and kw 64, 128; `wide-sweep` (for
// lamport-tune --wide) adds 8 splits and kw 256, which at K = 8192 launch
// and can win (Qwen2.5-72B up tp8: docs/design/gemm.md, "Tried and
// dropped").
// SWEPT-LABEL: func.func @k8192
// SWEPT-NOT: splits = 8
// SWEPT-NOT: kw = 256
// SWEPT: return
// WIDE-LABEL: func.func @k8192
// WIDE: lamport.candidates = [{{.*}}splits = 8,
// WIDE256-LABEL: func.func @k8192
// WIDE256: lamport.candidates = [{{.*}}kw = 256,
func.func @k8192(%x: memref<16x8192xbf16>, %w: memref<3696x8192xbf16>,
                 %y: memref<16x3696xbf16>) {
  lamport.gemm_publish %x, %w into %y {pdl}
      : memref<16x8192xbf16>, memref<3696x8192xbf16>, memref<16x3696xbf16>
  return
}
