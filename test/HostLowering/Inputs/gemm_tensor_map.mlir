func.func @oproj(%x: memref<?x512xbf16>, %w: memref<8192x512xbf16>,
                 %y: memref<?x8192xbf16>,
                 %mb: !lamport.mailbox<tp = 16, capacity = 8, width = 8192>) {
  lamport.gemm_publish %x, %w into %y
      mailbox %mb : !lamport.mailbox<tp = 16, capacity = 8, width = 8192>
      tactic(#lamport.tactic<splits = 1, kw = 64, accs = 2, tiles = 2,
          passes = 2, early_dependents = true, pipeline = bulk, stages = 2,
          stage_bytes = 16384, producer_lanes = 32,
          token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>) {pdl}
      : memref<?x512xbf16>, memref<8192x512xbf16>, memref<?x8192xbf16>
  return
}
