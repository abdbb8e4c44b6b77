// The attention boundary of one decoder layer at tp = 4 (hidden size
// H = 8192), as one rank runs it in a decode step of M <= 16 tokens.
//
// Each rank holds 16 of the 64 attention heads (128 dims each), so its
// attention output is [M, K = 2048] and its o_proj shard is [H, K]. The
// o_proj GEMM publishes its partial [M, H] straight from its epilogue into
// the boundary mailbox, slot [NEXT, rank] of every r!nk's copy; the
// consumer then sums the 4 partials in a fixed order and runs the dual norm:
//
//   r      = sum over ranks of partial
//   h      = rmsnorm(r) * post_weight                (post_attn_norm)
//   stream = alpha * stream + beta * h               (gated FP32 residual)
//   out    = bf16(rmsnorm(stream) * next_weight)     (pre_ffn_norm)
//
// Nothing else crosses the GPUs: there is no separate all-reduce launch and
// no barrier. Both launches use PDL, so the consumer's prologue overlaps the
// GEMM's tail. attention_boundary_unfused_tp4.mlir is the same step in four
// launches, for comparison.
//
// Tactics, one per range of M (the op's tactic list: each kernel is chosen
// by M at launch), the fastest kernels of the GEMM sweeps for this
// shape (docs/design/gemm.md, "Tactics, and the kernel chosen by M")
// in its
// words (sN splits, kwN K per warp, pN passes, aN accumulators, occ1
// min_ctas_per_sm = 1, early early_dependents):
//   M = 1..8: s1 kw128 p4 occ1 early;
//   M = 9..16: s1 kw128 p4 a1 occ1 early.

!boundary = !lamport.mailbox<tp = 4, capacity = 16, width = 8192>

func.func @attention_boundary(
    // This rank's attention output and o_proj shard.
    %attn: memref<?x2048xbf16>, %o_proj: memref<8192x2048xbf16>,
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
                 passes = 4, min_ctas_per_sm = 1, early_dependents = true,
                 token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
             #lamport.tactic<splits = 1, kw = 128, accs = 1,
                 passes = 4, min_ctas_per_sm = 1, early_dependents = true,
                 token_tiles = [8, 8, 8, 8, 8, 8, 8, 8,
                                16, 16, 16, 16, 16, 16, 16, 16]>)
      {pdl}
      : memref<?x2048xbf16>, memref<8192x2048xbf16>, memref<?x8192xbf16>
  lamport.all_reduce_dual_norm %mailbox, %stream gates(%alpha, %beta)
      post_weight %post_weight : memref<8192xbf16>
      next_weight %next_weight into %out
      {eps = 2.0e-06 : f32, sum_order = #lamport.sum_order<rank_ascending>,
       pdl}
      : !boundary, memref<?x8192xf32>, memref<1xf32>, memref<1xf32>,
        memref<8192xbf16>, memref<?x8192xbf16>
  return
}
