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
// Tactic: K = 4096 in one split (no cluster), 128 K per warp, so 32 warps per
// CTA and N / 16 = 512 CTAs; token_tiles asks for tile 8 up to M = 8 and 16
// above; with M dynamic the program launches one kernel per tile, chosen by M
// (gemm_publish_0 with tile 8 for M <= 8, gemm_publish_1 with 16 above;
// docs/design/gemm.md). Not measured at this shape: the tactic the GEMM sweeps
// (docs/design/gemm.md) chose for the other K = 4096 shape (the unpooler at
// tp = 4).

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
      tactic(#lamport.tactic<splits = 1, kw = 128, accs = 2,
          token_tiles = [8, 8, 8, 8, 8, 8, 8, 8,
                         16, 16, 16, 16, 16, 16, 16, 16]>)
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
