// A GEMM without early dependents: it triggers the next grid at its end,
// after its weight loads, so bench/x_handover_bound.py makes it no sleep
// twin (test/bench/x-handover-bound.test).
func.func @late_trigger(%x: memref<1x1024xbf16>, %w: memref<8192x1024xbf16>,
    %y: memref<1x8192xbf16>) {
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 128, accs = 1,
                             token_tiles = [8]>) {pdl}
      : memref<1x1024xbf16>, memref<8192x1024xbf16>, memref<1x8192xbf16>
  return
}
