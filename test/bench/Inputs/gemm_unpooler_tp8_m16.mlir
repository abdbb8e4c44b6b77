func.func @unpooler_tp8(%x: memref<16x4096xbf16>, %w: memref<1024x4096xbf16>,
    %y: memref<16x1024xbf16>) {
  lamport.gemm_publish %x, %w into %y {pdl}
      : memref<16x4096xbf16>, memref<1024x4096xbf16>, memref<16x1024xbf16>
  return
}
