// One gemm_publish without tactics, for the tactic tables' RUN lines.
func.func @unpooler(%x: memref<?x4096xbf16>, %w: memref<1024x4096xbf16>,
                    %y: memref<?x1024xbf16>) {
  lamport.gemm_publish %x, %w into %y {pdl}
      : memref<?x4096xbf16>, memref<1024x4096xbf16>, memref<?x1024xbf16>
  return
}
