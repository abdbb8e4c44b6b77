// The MoE unpooler boundary at tp = 16 (hidden size H = 8192), as one rank
// runs it in a decode step of M <= 16 tokens.
//
// The unpooler weight [H, K = 4096] is replicated and each rank computes
// its own column block: rows [rank * 512, (rank + 1) * 512) of it, so
// y = x @ W_block^T is [M, 512]. Its epilogue publishes y into slot
// [NEXT, rank] of every rank's copy of a mailbox of width 512; the column
// all-gather then assembles the full [M, 8192] row on every rank, each
// 16-byte fragment read from the one rank that owns it: global fragment f
// of a row comes from rank f / 64, local fragment f % 64
// (lamport.mailbox.poll_owned once lowered).
//
// The GEMM carries no tactic(...): lamport-select-tactics gives it, per
// range of M, the sm_90 tactic table's tactics for this shape
// (data/tactics/sm_90.json), the fastest publishing kernels of the
// GEMM sweeps (docs/tactics.md); each kernel is chosen by M at launch.
// `lamport-compile --lamport-explain-tactics` names them.

!columns = !lamport.mailbox<tp = 16, capacity = 16, width = 512>

func.func @unpooler_boundary(
    // The pooled activations and this rank's block of the unpooler weight.
    %x: memref<?x4096xbf16>, %w_block: memref<512x4096xbf16>,
    // This rank's column block, also published into %mailbox.
    %y: memref<?x512xbf16>,
    %mailbox: !columns,
    // Every rank's column block side by side: the full hidden row.
    %out: memref<?x8192xbf16>) {
  lamport.gemm_publish %x, %w_block into %y
      mailbox %mailbox : !columns
      {pdl}
      : memref<?x4096xbf16>, memref<512x4096xbf16>, memref<?x512xbf16>
  lamport.all_gather %mailbox into %out {pdl}
      : !columns, memref<?x8192xbf16>
  return
}
