func.func @oproj_tp4(%x: memref<1x2048xbf16>, %w: memref<8192x2048xbf16>,
    %y: memref<1x8192xbf16>) {
  lamport.gemm_publish %x, %w into %y {pdl}
      : memref<1x2048xbf16>, memref<8192x2048xbf16>, memref<1x8192xbf16>
  return
}
