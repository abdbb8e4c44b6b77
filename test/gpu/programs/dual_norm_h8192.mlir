// The standalone dual norm of the attention boundary (H = 8192), for
// lamport-boundary-bench's NCCL baseline: NCCL all-reduces the
// o_proj partials into %reduced, then this kernel does on every rank what
// the fused boundary's consumer does after its own sum
// (docs/examples/attention_boundary_tp*.mlir):
//
//   h      = rmsnorm(reduced) * post_weight          (post_attn_norm)
//   stream = alpha * stream + beta * h               (gated FP32 residual)
//   out    = bf16(rmsnorm(stream) * next_weight)     (pre_ffn_norm)
//
// Its arguments, roles, shapes, eps and scalar gates are the fused
// boundary's, so both get the same inputs for one seed and, fed the same
// integer r, write the same bytes. It has no mailbox: the launch shape is
// fixed for up to 16 tokens (one grid row each), the capacity of the fused
// boundary's mailbox; PDL lets its prologue overlap the all-reduce's tail.

func.func @dual_norm(
    // The all-reduced o_proj partials, [M, H] BF16.
    %reduced: memref<?x8192xbf16>,
    // The FP32 residual stream, updated in place.
    %stream: memref<?x8192xf32>,
    // The residual gates: scalars, as in the fused boundary.
    %alpha: memref<1xf32>, %beta: memref<1xf32>,
    %post_weight: memref<8192xbf16>, %next_weight: memref<8192xbf16>,
    // The next layer's input, normalized.
    %out: memref<?x8192xbf16>) {
  lamport.dual_norm %reduced, %stream gates(%alpha, %beta)
      post_weight %post_weight : memref<8192xbf16>
      next_weight %next_weight into %out
      {eps = 1.0e-06 : f32, pdl}
      : memref<?x8192xbf16>, memref<?x8192xf32>, memref<1xf32>,
        memref<1xf32>, memref<8192xbf16>, memref<?x8192xbf16>
  return
}
