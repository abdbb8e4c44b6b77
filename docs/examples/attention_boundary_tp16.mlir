// The attention boundary of one decoder layer at tp = 16 (hidden size
// H = 8192), as one rank runs it in a decode step of M <= 16 tokens.
//
// Each rank holds 4 of the 64 attention heads (128 dims each), so its
// attention output is [M, K = 512] and its o_proj shard is [H, K]. The
// o_proj GEMM publishes its partial [M, H] straight from its epilogue into
// the boundary mailbox, slot [NEXT, rank] of every rank's copy; the
// consumer then sums the 16 partials in a fixed order and runs the dual norm:
//
//   r      = sum over ranks of partial
//   h      = rmsnorm(r) * post_weight                (post_attn_norm)
//   stream = alpha * stream + beta * h               (gated FP32 residual)
//   out    = bf16(rmsnorm(stream) * next_weight)     (pre_ffn_norm)
//
// Nothing else crosses the GPUs: there is no separate all-reduce launch and
// no barrier. Both launches use PDL, so the consumer's prologue overlaps the
// GEMM's tail. attention_boundary_unfused_tp16.mlir is the same step in four
// launches, for comparison.
//
// At tp = 16 a capacity-16 mailbox of width 8192 is 3 x 16 x 16 x 8192
// BF16 = 12 MiB per rank's copy.
//
// The GEMM carries no tactic(...): lamport-select-tactics gives it, per
// range of M, the sm_90 tactic table's tactics for this shape
// (data/tactics/sm_90.json), the fastest publishing kernels of the
// GEMM sweeps (docs/tactics.md); each kernel is chosen by M at launch.
// `lamport-compile --lamport-explain-tactics` names them.

!boundary = !lamport.mailbox<tp = 16, capacity = 16, width = 8192>

func.func @attention_boundary(
    // This rank's attention output and o_proj shard.
    %attn: memref<?x512xbf16>, %o_proj: memref<8192x512xbf16>,
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
      : memref<?x512xbf16>, memref<8192x512xbf16>, memref<?x8192xbf16>
  lamport.all_reduce_dual_norm %mailbox, %stream gates(%alpha, %beta)
      post_weight %post_weight : memref<8192xbf16>
      next_weight %next_weight into %out
      {eps = 1.0e-06 : f32, sum_order = #lamport.sum_order<rank_ascending>,
       pdl}
      : !boundary, memref<?x8192xf32>, memref<1xf32>, memref<1xf32>,
        memref<8192xbf16>, memref<?x8192xbf16>
  return
}
