// The decode boundary alone at tp = 2 (hidden size H = 8192, M <= 16
// tokens): the o_proj partial [M, H] is already in memory (whatever GEMM made
// it ran before), and the boundary is what an all-reduce and the norms after
// it would do, in one kernel: lamport.all_reduce_dual_norm publishing this
// rank's partial into slot [NEXT, rank] of every rank's copy of the mailbox,
// then summing the 2 partials in rank order in FP32 and running the dual
// norm:
//
//   h      = rmsnorm(r) * post_weight                (post_attn_norm)
//   stream = alpha * stream + beta * h               (gated FP32 residual)
//   out    = bf16(rmsnorm(stream) * next_weight)     (pre_ffn_norm)
//
// Each thread publishes its fragments of the partial, then polls the same
// fragments of every rank's slot: no separate publisher launch, no barrier.
// It starts from the bytes NCCL's all-reduce starts from, so its time is
// comparable with the all-reduce's alone (lamport-boundary-bench
// --boundary; the target is at most half of it). attention_boundary_tp2.mlir is
// the same boundary with the publish fused into the o_proj GEMM's epilogue.

!boundary = !lamport.mailbox<tp = 2, capacity = 16, width = 8192>

func.func @reduce_norm_boundary(
    // This rank's o_proj partial.
    %partial: memref<?x8192xbf16>,
    %mailbox: !boundary,
    // The FP32 residual stream, updated in place.
    %stream: memref<?x8192xf32>,
    // The residual gates: scalars here; [8192] per-channel gates also work.
    %alpha: memref<1xf32>, %beta: memref<1xf32>,
    %post_weight: memref<8192xbf16>, %next_weight: memref<8192xbf16>,
    // The next layer's input, normalized.
    %out: memref<?x8192xbf16>) {
  lamport.all_reduce_dual_norm %mailbox
      publishing(%partial : memref<?x8192xbf16>),
      %stream gates(%alpha, %beta)
      post_weight %post_weight : memref<8192xbf16>
      next_weight %next_weight into %out
      {eps = 1.0e-06 : f32, sum_order = #lamport.sum_order<rank_ascending>,
       pdl}
      : !boundary, memref<?x8192xf32>, memref<1xf32>, memref<1xf32>,
        memref<8192xbf16>, memref<?x8192xbf16>
  return
}
