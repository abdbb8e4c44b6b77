//===- BoundaryOps.td - Program-level publish and consume --*- tablegen -*-===//
//
// Part of the Lamport project.
//
// The ops a decode-step program is made of, besides lamport.gemm_publish:
// the shared-only publisher, the consumers of a mailbox (plain read-back,
// all-reduce, the fused all-reduce + dual norm, the column all-gather) and
// the standalone dual norm that follows an external all-reduce.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_DIALECT_LAMPORT_IR_BOUNDARYOPS_TD
#define LAMPORT_DIALECT_LAMPORT_IR_BOUNDARYOPS_TD

include "lamport/Dialect/Lamport/IR/LamportDialect.td"
include "lamport/Dialect/Lamport/IR/LamportTypes.td"
include "lamport/Dialect/Lamport/IR/LamportAttrs.td"
include "lamport/Dialect/Lamport/IR/GemmOps.td"
include "mlir/IR/CommonTypeConstraints.td"

def Lamport_BF16Tensor3 : MemRefRankOf<[BF16], [3]>;
def Lamport_F32Matrix : MemRefRankOf<[F32], [2]>;
def Lamport_BF16Vector : MemRefRankOf<[BF16], [1]>;
def Lamport_F32Vector : MemRefRankOf<[F32], [1]>;

def Lamport_PublishRowsOp : Lamport_ProgramOp<"publish_rows"> {
  let summary = "the shared-only publisher: rows [m, width] into a mailbox";
  let description = [{
    Publishes this rank's `rows` (`[m, width]` BF16, 1 <= m <= min(16,
    capacity)) into slot `[NEXT, rank]` of every rank's copy of `mailbox`,
    -0.0 stored as +0.0, then sets ACTIVE. `release_before` fences before
    the stores (the seeds' `release_before_store`); `pdl` waits on the
    previous kernel with `griddepcontrol.wait` and lets the next one start
    early.

    ```mlir
    lamport.publish_rows %rows into %mb {pdl}
        : memref<?x8192xbf16>,
          !lamport.mailbox<tp = 8, capacity = 16, width = 8192>
    ```
  }];
  let arguments = (ins Lamport_BF16Matrix:$rows, Lamport_MailboxType:$mailbox,
                       OptionalAttr<Lamport_TransportAttr>:$transport,
                       UnitAttr:$release_before, UnitAttr:$pdl);
  let assemblyFormat = [{
    $rows `into` $mailbox attr-dict `:` type($rows) `,`
    qualified(type($mailbox))
  }];
  let hasVerifier = 1;
}

def Lamport_PollRowsOp : Lamport_ProgramOp<"poll_rows"> {
  let summary = "read every rank's slot of the ACTIVE stage back, re-arm it";
  let description = [{
    The plain consumer: waits for the first m rows of all tp slots of the
    ACTIVE stage of this rank's copy, writes them to `out` (`[tp, m, width]`),
    re-arms them and advances NEXT. What a test of the transport reads.

    ```mlir
    lamport.poll_rows %mb into %out
        : !lamport.mailbox<tp = 8, capacity = 16, width = 8192>,
          memref<8x?x8192xbf16>
    ```
  }];
  let arguments = (ins Lamport_MailboxType:$mailbox, Lamport_BF16Tensor3:$out,
                       OptionalAttr<I64Attr>:$timeout_ns, UnitAttr:$pdl);
  let assemblyFormat = [{
    $mailbox `into` $out attr-dict `:` qualified(type($mailbox)) `,` type($out)
  }];
  let hasVerifier = 1;
}

def Lamport_AllReduceOp : Lamport_ProgramOp<"all_reduce"> {
  let summary = "sum every rank's slot of the ACTIVE stage into out";
  let description = [{
    The one-shot all-reduce consumer: for each of the m tokens, waits for the
    tp partials of the ACTIVE stage, adds them in FP32 in the fixed
    `sum_order`, rounds to BF16 into `out` (`[m, width]`), re-arms what it
    read and advances NEXT.

    ```mlir
    lamport.all_reduce %mb into %out
        {sum_order = #lamport.sum_order<rank_ascending>}
        : !lamport.mailbox<tp = 8, capacity = 16, width = 8192>,
          memref<?x8192xbf16>
    ```
  }];
  let arguments = (ins Lamport_MailboxType:$mailbox, Lamport_BF16Matrix:$out,
                       DefaultValuedAttr<Lamport_SumOrderAttr,
                           "SumOrder::rank_ascending">:$sum_order,
                       OptionalAttr<I64Attr>:$timeout_ns, UnitAttr:$pdl);
  let assemblyFormat = [{
    $mailbox `into` $out attr-dict `:` qualified(type($mailbox)) `,` type($out)
  }];
  let hasVerifier = 1;
}

class Lamport_DualNormOpBase<string mnemonic, dag input,
                             list<Trait> traits = []>
    : Lamport_ProgramOp<mnemonic, traits> {
  let arguments = !con(input, (ins Lamport_F32Matrix:$stream,
      Lamport_F32Vector:$alpha, Lamport_F32Vector:$beta,
      Optional<Lamport_BF16Vector>:$post_weight,
      Lamport_BF16Vector:$next_weight, Lamport_BF16Matrix:$out,
      DefaultValuedAttr<F32Attr, "1.0e-6f">:$eps, UnitAttr:$pdl));
  let hasVerifier = 1;
}

def Lamport_AllReduceDualNormOp
    : Lamport_DualNormOpBase<"all_reduce_dual_norm",
          (ins Lamport_MailboxType:$mailbox,
               Optional<Lamport_BF16Matrix>:$partial,
               DefaultValuedAttr<Lamport_SumOrderAttr,
                   "SumOrder::rank_ascending">:$sum_order,
               OptionalAttr<I64Attr>:$timeout_ns,
               OptionalAttr<Lamport_TransportAttr>:$transport),
          [AttrSizedOperandSegments]> {
  let summary = "the decode boundary: all-reduce fused with the dual norm";
  let description = [{
    For each of the m tokens (H = the mailbox width): waits for the tp
    partials of the ACTIVE stage and sums them in FP32 in `sum_order`
    (r = sum); then

        h          = r * rsqrt(mean(r^2) + eps) [* post_weight]
        stream     = alpha * stream + beta * h        (FP32, in place)
        out        = bf16(stream * rsqrt(mean(stream^2) + eps) * next_weight)

    `alpha` and `beta` are `[1]` (a scalar gate) or `[H]` (per channel);
    without `post_weight` the post-attention norm has no weight. Re-arms what
    it read and advances NEXT.

    With `publishing(%partial)` the op is the whole boundary in one kernel:
    each thread first publishes its fragments of this rank's `partial`
    (`[m, H]` BF16, -0.0 stored as +0.0) into slot `[NEXT, rank]` of every
    rank's copy (`transport` as for `lamport.publish_rows`), then polls and
    sums that generation. No separate publisher runs, so the stage comes from
    NEXT; every CTA counts itself in once its threads have read NEXT (an
    arrival count, `lamport.stage.arrive`), and the last to arrive sets
    ACTIVE and advances NEXT when its row is done.

    ```mlir
    lamport.all_reduce_dual_norm %mb, %stream gates(%alpha, %beta)
        next_weight %nw into %out {eps = 1.0e-06 : f32}
        : !lamport.mailbox<tp = 8, capacity = 16, width = 8192>,
          memref<?x8192xf32>, memref<1xf32>, memref<8192xf32>,
          memref<8192xbf16>, memref<?x8192xbf16>
    lamport.all_reduce_dual_norm %mb publishing(%partial : memref<?x8192xbf16>),
        %stream gates(%alpha, %beta) next_weight %nw into %out
        : !lamport.mailbox<tp = 8, capacity = 16, width = 8192>,
          memref<?x8192xf32>, memref<1xf32>, memref<1xf32>,
          memref<8192xbf16>, memref<?x8192xbf16>
    ```
  }];
  let assemblyFormat = [{
    $mailbox (`publishing` `(` $partial^ `:` type($partial) `)`)?
    `,` $stream `gates` `(` $alpha `,` $beta `)`
    (`post_weight` $post_weight^ `:` type($post_weight))?
    `next_weight` $next_weight `into` $out attr-dict `:`
    qualified(type($mailbox)) `,`
    type($stream) `,` type($alpha) `,` type($beta) `,` type($next_weight)
    `,` type($out)
  }];
}

def Lamport_DualNormOp
    : Lamport_DualNormOpBase<"dual_norm", (ins Lamport_BF16Matrix:$reduced)> {
  let summary = "the dual norm after an external all-reduce";
  let description = [{
    `lamport.all_reduce_dual_norm` for an input that is already reduced
    (`reduced`, BF16 `[m, H]`): the path of TP groups whose all-reduce is
    another library's (NCCL across GPUs) or a device-local reduction.

    ```mlir
    lamport.dual_norm %r, %stream gates(%alpha, %beta)
        next_weight %nw into %out
        : memref<?x8192xbf16>, memref<?x8192xf32>, memref<1xf32>,
          memref<1xf32>, memref<8192xbf16>, memref<?x8192xbf16>
    ```
  }];
  let assemblyFormat = [{
    $reduced `,` $stream `gates` `(` $alpha `,` $beta `)`
    (`post_weight` $post_weight^ `:` type($post_weight))?
    `next_weight` $next_weight `into` $out attr-dict `:` type($reduced) `,`
    type($stream) `,` type($alpha) `,` type($beta) `,` type($next_weight)
    `,` type($out)
  }];
}

def Lamport_AllGatherOp : Lamport_ProgramOp<"all_gather"> {
  let summary = "column all-gather: every rank's column block into one row";
  let description = [{
    Each rank publishes its `[m, width]` column block; this consumer fills
    `out` (`[m, tp * width]`) fragment by fragment from the owning rank's
    slot of the ACTIVE stage (`lamport.mailbox.poll_owned`), re-arms what it
    read and advances NEXT.

    ```mlir
    lamport.all_gather %mb into %out
        : !lamport.mailbox<tp = 8, capacity = 16, width = 1024>,
          memref<?x8192xbf16>
    ```
  }];
  let arguments = (ins Lamport_MailboxType:$mailbox, Lamport_BF16Matrix:$out,
                       OptionalAttr<I64Attr>:$timeout_ns, UnitAttr:$pdl);
  let assemblyFormat = [{
    $mailbox `into` $out attr-dict `:` qualified(type($mailbox)) `,` type($out)
  }];
  let hasVerifier = 1;
}

#endif // LAMPORT_DIALECT_LAMPORT_IR_BOUNDARYOPS_TD
