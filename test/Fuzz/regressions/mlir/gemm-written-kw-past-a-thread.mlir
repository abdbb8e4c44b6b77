// A written tactic of one warp over K = 16384: 512 chunks of weights held in
// a thread's registers, whose kernel took 37 s to compile (minutes under the
// sanitizers). The verifier now refuses more than 128 chunks a thread.
func.func @wide_warp(%x: memref<?x16384xbf16>, %w: memref<4096x16384xbf16>,
                     %y: memref<?x4096xbf16>) {
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 16384, accs = 1,
                             token_tiles = [8]>) {pdl}
      : memref<?x16384xbf16>, memref<4096x16384xbf16>, memref<?x4096xbf16>
  return
}
