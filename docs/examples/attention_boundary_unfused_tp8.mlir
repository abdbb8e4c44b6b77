// The attention boundary of attention_boundary_tp8.mlir without the fusion,
// for comparison: the same decode step (tp = 8, H = 8192, M <= 16 tokens,
// K = 1024: 8 of the 64 heads per rank) in four launches.
//
//   1. lamport.gemm_publish without a mailbox: a plain GEMM, partial = attn
//      @ o_proj^T, [M, H], stored to memory only.
//   2. lamport.publish_rows: partial read back and published into slot
//      [NEXT, rank] of every rank's copy of the mailbox.
//   3. lamport.all_reduce: the 8 partials summed in rank order into
//      %reduced [M, H], rounded to BF16 (the fused consumer norms the FP32
//      sum).
//   4. lamport.dual_norm on %reduced, with the fused boundary's stream,
//      gates, weights and output:
//
//   h      = rmsnorm(reduced) * post_weight          (post_attn_norm)
//   stream = alpha * stream + beta * h               (gated FP32 residual)
//   out    = bf16(rmsnorm(stream) * next_weight)     (pre_ffn_norm)
//
// Every launch uses PDL. The partial makes a round trip through memory and
// the reduced rows another one, which the fused boundary avoids.
//
// The GEMM carries no tactic(...): lamport-select-tactics gives it, per
// range of M, the sm_90 tactic table's tactics for this shape
// (data/tactics/sm_90.json), the fastest kernels of the
// GEMM sweeps (docs/tactics.md); each kernel is chosen by M at launch.
// `lamport-compile --lamport-explain-tactics` names them.

!boundary = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

func.func @attention_boundary_unfused(
    // This rank's attention output and o_proj shard.
    %attn: memref<?x1024xbf16>, %o_proj: memref<8192x1024xbf16>,
    // This rank's o_proj partial: the GEMM's output, then the publisher's
    // input.
    %partial: memref<?x8192xbf16>,
    %mailbox: !boundary,
    // The all-reduced rows, the dual norm's input.
    %reduced: memref<?x8192xbf16>,
    // The FP32 residual stream, updated in place.
    %stream: memref<?x8192xf32>,
    // The residual gates: scalars here; [8192] per-channel gates also work.
    %alpha: memref<1xf32>, %beta: memref<1xf32>,
    %post_weight: memref<8192xbf16>, %next_weight: memref<8192xbf16>,
    // The next layer's input, normalized.
    %out: memref<?x8192xbf16>) {
  lamport.gemm_publish %attn, %o_proj into %partial
      {pdl}
      : memref<?x1024xbf16>, memref<8192x1024xbf16>, memref<?x8192xbf16>
  lamport.publish_rows %partial into %mailbox {pdl}
      : memref<?x8192xbf16>, !boundary
  lamport.all_reduce %mailbox into %reduced
      {sum_order = #lamport.sum_order<rank_ascending>, pdl}
      : !boundary, memref<?x8192xbf16>
  lamport.dual_norm %reduced, %stream gates(%alpha, %beta)
      post_weight %post_weight : memref<8192xbf16>
      next_weight %next_weight into %out
      {eps = 1.0e-06 : f32, pdl}
      : memref<?x8192xbf16>, memref<?x8192xf32>, memref<1xf32>,
        memref<1xf32>, memref<8192xbf16>, memref<?x8192xbf16>
  return
}
