// The MoE unpooler boundary at tp = 2 (hidden size H = 8192), as one rank
// runs it in a decode step of M <= 16 tokens.
//
// The unpooler weight [H, K = 4096] is replicated and each rank computes
// its own column block: rows [rank * 4096, (rank + 1) * 4096) of it, so
// y = x @ W_block^T is [M, 4096]. Its epilogue publishes y into slot
// [NEXT, rank] of every rank's copy of a mailbox of width 4096; the column
// all-gather then assembles the full [M, 8192] row on every rank, each
// 16-byte fragment read from the one rank that owns it: global fragment f
// of a row comes from rank f / 512, local fragment f % 512
// (lamport.mailbox.poll_owned once lowered).
//
// The GEMM carries no tactic(...): lamport-select-tactics gives it the
// sm_90 tactic table's for this shape (data/tactics/sm_90.json), not
// measured here: the tactic the GEMM sweeps chose for the other
// K = 4096 shape, the unpooler at tp = 4 (docs/tactics.md). With M
// dynamic the program launches one kernel per token tile, chosen by M
// (the 8-token tile up to M = 8, the 16-token one above).

!columns = !lamport.mailbox<tp = 2, capacity = 16, width = 4096>

func.func @unpooler_boundary(
    // The pooled activations and this rank's block of the unpooler weight.
    %x: memref<?x4096xbf16>, %w_block: memref<4096x4096xbf16>,
    // This rank's column block, also published into %mailbox.
    %y: memref<?x4096xbf16>,
    %mailbox: !columns,
    // Every rank's column block side by side: the full hidden row.
    %out: memref<?x8192xbf16>) {
  lamport.gemm_publish %x, %w_block into %y
      mailbox %mailbox : !columns
      {pdl}
      : memref<?x4096xbf16>, memref<4096x4096xbf16>, memref<?x4096xbf16>
  lamport.all_gather %mailbox into %out {pdl}
      : !columns, memref<?x8192xbf16>
  return
}
