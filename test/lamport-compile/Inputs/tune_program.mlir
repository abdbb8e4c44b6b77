// Three GEMMs for lamport-tune --program (test/lamport-compile/
// tune_program.test): lamport.gemm_publish of dynamic M on memrefs of
// memory space 1, one of static M = 4 publishing into a mailbox, and one of
// dynamic M publishing with a ticket (a fifth operand). This comment names
// lamport.gemm_publish too, which is not an op.
func.func @layer(%x: memref<?x4096xbf16, 1>, %w: memref<1024x4096xbf16, 1>,
                 %y: memref<?x1024xbf16, 1>, %a: memref<4x2048xbf16>,
                 %o: memref<8192x2048xbf16>, %p: memref<4x8192xbf16>,
                 %mb: !lamport.mailbox<tp = 4, capacity = 16, width = 8192>) {
  lamport.gemm_publish %x, %w into %y {pdl}
      : memref<?x4096xbf16, 1>, memref<1024x4096xbf16, 1>,
        memref<?x1024xbf16, 1>
  lamport.gemm_publish %a, %o into %p
      mailbox %mb : !lamport.mailbox<tp = 4, capacity = 16, width = 8192>
      {pdl} : memref<4x2048xbf16>, memref<8192x2048xbf16>,
              memref<4x8192xbf16>
  return
}

func.func @ticketed(%x: memref<?x4096xbf16>, %w: memref<2048x4096xbf16>,
                    %y: memref<?x2048xbf16>,
                    %mb: !lamport.mailbox<tp = 8, capacity = 16, width = 2048>,
                    %t: memref<1xi32>) {
  lamport.gemm_publish %x, %w into %y
      mailbox %mb : !lamport.mailbox<tp = 8, capacity = 16, width = 2048>
      ticket %t : memref<1xi32>
      : memref<?x4096xbf16>, memref<2048x4096xbf16>, memref<?x2048xbf16>
  return
}
