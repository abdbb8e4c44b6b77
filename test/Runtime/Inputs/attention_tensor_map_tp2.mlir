// The attention boundary at tp 2 with a GEMM whose bulk stages (32 rows of
// 1 KiB) are filled by tensor copies: its kernel takes the weight's tensor
// map (test/Runtime/fake-tensor-map.test).

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
      tactic(#lamport.tactic<splits = 1, kw = 256, accs = 1, tiles = 2,
          passes = 2, early_dependents = true, pipeline = bulk,
          stage_bytes = 32768, producer_lanes = 2,
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
