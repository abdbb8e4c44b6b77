// The MoE unpooler boundary at tp = 4 (hidden size H = 8192), as one rank
// runs it in a decode step of M <= 16 tokens.
//
// The unpooler weight [H, K = 4096] is replicated and each rank computes
// its own column block: rows [rank * 2048, (rank + 1) * 2048) of it, so
// y = x @ W_block^T is [M, 2048]. Its epilogue publishes y into slot
// [NEXT, rank] of every rank's copy of a mailbox of width 2048; the column
// all-gather then assembles the full [M, 8192] row on every rank, each
// 16-byte fragment read from the one rank that owns it: global fragment f
// of a row comes from rank f / 256, local fragment f % 256
// (lamport.mailbox.poll_owned once lowered).
//
// Tactics, one per range of M (the op's tactic list: each kernel is chosen
// by M at launch), the fastest publishing kernels of the GEMM sweeps for
// this shape (docs/design/gemm.md, "Tactics, and the kernel chosen by M")
// in its
// words (sN splits, kwN K per warp, pN passes, aN accumulators, occ1
// min_ctas_per_sm = 1, early early_dependents, lateN late_chunks = N):
//   M = 1..4: s1 kw128 occ1 early late1;
//   M = 5..8: s2 kw128 tiles4 a1 occ1 early;
//   M = 9..16: s2 kw128 tiles2 a1 early late1.

!columns = !lamport.mailbox<tp = 4, capacity = 16, width = 2048>

func.func @unpooler_boundary(
    // The pooled activations and this rank's block of the unpooler weight.
    %x: memref<?x4096xbf16>, %w_block: memref<2048x4096xbf16>,
    // This rank's column block, also published into %mailbox.
    %y: memref<?x2048xbf16>,
    %mailbox: !columns,
    // Every rank's column block side by side: the full hidden row.
    %out: memref<?x8192xbf16>) {
  lamport.gemm_publish %x, %w_block into %y
      mailbox %mailbox : !columns
      tactic(#lamport.tactic<splits = 1, kw = 128, accs = 2,
                 min_ctas_per_sm = 1, early_dependents = true,
                 late_chunks = 1, token_tiles = [8, 8, 8, 8]>,
             #lamport.tactic<splits = 2, kw = 128, accs = 1,
                 tiles = 4, min_ctas_per_sm = 1, early_dependents = true,
                 token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
             #lamport.tactic<splits = 2, kw = 128, accs = 1,
                 tiles = 2, early_dependents = true, late_chunks = 1,
                 token_tiles = [8, 8, 8, 8, 8, 8, 8, 8,
                                16, 16, 16, 16, 16, 16, 16, 16]>)
      {pdl}
      : memref<?x4096xbf16>, memref<2048x4096xbf16>, memref<?x2048xbf16>
  lamport.all_gather %mailbox into %out {pdl}
      : !columns, memref<?x8192xbf16>
  return
}
