// The unpooler boundary at tp = 4 (docs/examples/unpooler_boundary_tp4.mlir)
// with a GEMM tactic for M = 9..16 whose split-K reduction needs dynamic
// shared memory: 8 splits of 16 warps (kw 32), 2 tiles, the 16-token tile,
// so (16 + 8) x 16 x 32 x 4 = 49152 bytes (docs/design/gemm.md): exactly
// 48 KiB of dynamic shared memory beside 32 static bytes, which launches
// only if the loader opted the kernel into its `shared_bytes` (48 KiB in
// all is the most a kernel gets without). It is not a fast tactic; it is
// here so that test/gpu/boundary.sh runs such a kernel through the
// runtime.

!columns = !lamport.mailbox<tp = 4, capacity = 16, width = 2048>

func.func @unpooler_boundary(
    %x: memref<?x4096xbf16>, %w_block: memref<2048x4096xbf16>,
    %y: memref<?x2048xbf16>,
    %mailbox: !columns,
    %out: memref<?x8192xbf16>) {
  lamport.gemm_publish %x, %w_block into %y
      mailbox %mailbox : !columns
      tactic(#lamport.tactic<splits = 1, kw = 128, accs = 2,
                 min_ctas_per_sm = 1, early_dependents = true,
                 token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
             #lamport.tactic<splits = 8, kw = 32, accs = 1,
                 tiles = 2, early_dependents = true,
                 token_tiles = [8, 8, 8, 8, 8, 8, 8, 8,
                                16, 16, 16, 16, 16, 16, 16, 16]>)
      {pdl}
      : memref<?x4096xbf16>, memref<2048x4096xbf16>, memref<?x2048xbf16>
  lamport.all_gather %mailbox into %out {pdl}
      : !columns, memref<?x8192xbf16>
  return
}
