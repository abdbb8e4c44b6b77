// The attention boundary of one decoder layer at tp = 2 (hidden size
// H = 8192), as one rank runs it in a decode step of M <= 16 tokens.
//
// Each rank holds 32 of the 64 attention heads (128 dims each), so its
// attention output is [M, K = 4096] and its o_proj shard is [H, K]. The
// o_proj GEMM publishes its partial [M, H] straight from its epilogue into
// the boundary mailbox, slot [NEXT, rank] of every rank's copy; the
// consumer then sums the 2 partials in a fixed order and runs the dual norm:
//
//   r      = sum over ranks of partial
//   h      = rmsnorm(r) * post_weight                (post_attn_norm)
//   stream = alpha * stream + beta * h               (gated FP32 residual)
//   out    = bf16(rmsnorm(stream) * next_weight)     (pre_ffn_norm)
//
// Nothing else crosses the GPUs: there is no separate all-reduce launch and
// no barrier. Both launches use PDL, so the consumer's prologue overlaps the
// GEMM's tail. attention_boundary_unfused_tp2.mlir is the same step in four
// launches, for comparison.
//
// The GEMM carries no tactic(...): lamport-select-tactics gives it the
// sm_90 tactic table's for this shape (data/tactics/sm_90.json), not
// measured here: the tactic the GEMM sweeps chose for the other
// K = 4096 shape, the unpooler at tp = 4 (docs/tactics.md). With M
// dynamic the program launches one kernel per token tile, chosen by M
// (the 8-token tile up to M = 8, the 16-token one above).

!boundary = !lamport.mailbox<tp = 2, capacity = 16, width = 8192>

func.func @attention_boundary(
    // This rank's attention output and o_proj shard.
    %attn: memref<?x4096xbf16>, %o_proj: memref<8192x4096xbf16>,
    // This rank's o_proj partial, also published into %mailbox.
    %partial: memref<?x8192xbf16>,
    %mailbox: !boundary,
    // The FP32 residual stream, updated in place.
    %stream: memref<?x8192xf32>,
    // The residual gates: scalars here; [8192] per-channel gates also work.
    %alpha: memref<1xf32>, %beta: memref<1xf32>,
    %post_weight: memref<8192xbf16>, %next_weight: memref<8192xbf16>,
    // The next layer's input, normalized.
    %out: memref<?x8192xbf16>) {
  lamport.gemm_publish %attn, %o_proj into %partial
      mailbox %mailbox : !boundary
      {pdl}
      : memref<?x4096xbf16>, memref<8192x4096xbf16>, memref<?x8192xbf16>
  lamport.all_reduce_dual_norm %mailbox, %stream gates(%alpha, %beta)
      post_weight %post_weight : memref<8192xbf16>
      next_weight %next_weight into %out
      {eps = 1.0e-06 : f32, sum_order = #lamport.sum_order<rank_ascending>,
       pdl}
      : !boundary, memref<?x8192xf32>, memref<1xf32>, memref<1xf32>,
        memref<8192xbf16>, memref<?x8192xbf16>
  return
}
