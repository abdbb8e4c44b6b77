// Two GEMMs for lamport-tune --program (test/lamport-compile/
// tune_program.test): lamport.gemm_publish of dynamic M, then one of static
// M = 4 publishing into a mailbox. This comment names lamport.gemm_publish
// too, which is not an op.
func.func @layer(%x: memref<?x4096xbf16>, %w: memref<1024x4096xbf16>,
                 %y: memref<?x1024xbf16>, %a: memref<4x2048xbf16>,
                 %o: memref<8192x2048xbf16>, %p: memref<4x8192xbf16>,
                 %mb: !lamport.mailbox<tp = 4, capacity = 16, width = 8192>) {
  lamport.gemm_publish %x, %w into %y {pdl}
      : memref<?x4096xbf16>, memref<1024x4096xbf16>, memref<?x1024xbf16>
  lamport.gemm_publish %a, %o into %p
      mailbox %mb : !lamport.mailbox<tp = 4, capacity = 16, width = 8192>
      {pdl} : memref<4x2048xbf16>, memref<8192x2048xbf16>,
              memref<4x8192xbf16>
  return
}
