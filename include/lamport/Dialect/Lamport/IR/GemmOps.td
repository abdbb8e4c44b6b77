//===- GemmOps.td - The small-M GEMM with a publish epilogue -*- tablegen -*-=//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_DIALECT_LAMPORT_IR_GEMMOPS_TD
#define LAMPORT_DIALECT_LAMPORT_IR_GEMMOPS_TD

include "lamport/Dialect/Lamport/IR/LamportDialect.td"
include "lamport/Dialect/Lamport/IR/LamportTypes.td"
include "lamport/Dialect/Lamport/IR/LamportAttrs.td"
include "mlir/IR/CommonTypeConstraints.td"

/// One or more tactics; printed and parsed as a comma-separated list.
def Lamport_TacticListAttr
    : ConfinedAttr<TypedArrayAttrBase<Lamport_TacticAttr,
                                      "list of GEMM tactics">,
                   [ArrayMinCount<1>]>;

def Lamport_BF16Matrix : MemRefRankOf<[BF16], [2]>;
def Lamport_TicketType : MemRefRankOf<[I32], [1]>;

def Lamport_GemmPublishOp : Lamport_ProgramOp<"gemm_publish",
                                       [AttrSizedOperandSegments]> {
  let summary = "y[M, N] = x[M, K] @ W[N, K]^T, optionally published";
  let description = [{
    The small-M decode GEMM: BF16 in and out, FP32 accumulate, 1 <= M <= 16
    tokens. With a `mailbox` (width N) its epilogue also publishes y into slot
    `[NEXT, rank]` of every rank's copy (-0.0 stored as +0.0) and sets ACTIVE:
    the same bytes and stage word `lamport.publish_rows` would write. With a
    `ticket` (an int32 [1] word, stage << 16) the stage is the ticket's and no
    stage word is written.

    The `tactic` fixes the launch (docs/tactics.md): grid (N / (16 * tiles), splits), a
    cluster of `splits` CTAs sharing K, K / (splits * kw) warps per CTA,
    `accs` accumulators per warp, `tiles` tiles of 16 features per CTA
    sharing the activations, and the token tile for each M. Partials are
    summed in a fixed order (warps, then splits), so results are bitwise
    reproducible and do not depend on `tiles`.

    Several tactics, in order, split the range of M between them: each
    serves the M its `token_tiles` covers that no earlier one does, so their
    `token_tiles` grow strictly longer and the last covers every M the op
    takes. Each entry is a tile for its M (8 or 16, at least M), also where
    no launch uses it, and a list holds at most 16. The best launch for 16
    tokens is rarely the best for one (docs/design/gemm.md); with M
    dynamic, M picks the kernel at launch.

    `tactic(...)` may be left out: lamport-select-tactics (in lamport-compile
    and the lowering pipelines, before kernel generation) fills it in from
    the chip's tactic table or the cost model, and a tactic written here
    always wins. Kernel generation refuses an op without tactics.

    ```mlir
    lamport.gemm_publish %x, %w into %y
        mailbox %mb : !lamport.mailbox<tp = 8, capacity = 16, width = 1024>
        tactic(#lamport.tactic<splits = 4, kw = 64, accs = 2,
            token_tiles = [8, 8, 8, 8, 8, 8, 8, 8,
                           16, 16, 16, 16, 16, 16, 16, 16]>)
        : memref<?x4096xbf16>, memref<1024x4096xbf16>, memref<?x1024xbf16>
    // M = 1..8 on one split, 9..16 on two.
    lamport.gemm_publish %x, %w into %y
        tactic(#lamport.tactic<splits = 1, kw = 128, accs = 2,
                   token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
               #lamport.tactic<splits = 2, kw = 128, accs = 2,
                   min_ctas_per_sm = 1, token_tiles = [16]>)
        : memref<?x4096xbf16>, memref<1024x4096xbf16>, memref<?x1024xbf16>
    ```
  }];
  let arguments = (ins Lamport_BF16Matrix:$x, Lamport_BF16Matrix:$weight,
                       Lamport_BF16Matrix:$y,
                       Optional<Lamport_MailboxType>:$mailbox,
                       Optional<Lamport_TicketType>:$ticket,
                       OptionalAttr<Lamport_TacticListAttr>:$tactics,
                       OptionalAttr<Lamport_TransportAttr>:$transport,
                       UnitAttr:$pdl);
  let assemblyFormat = [{
    $x `,` $weight `into` $y
    (`mailbox` $mailbox^ `:` qualified(type($mailbox)))?
    (`ticket` $ticket^ `:` type($ticket))?
    (`tactic` `(` custom<TacticList>($tactics)^ `)`)?
    attr-dict `:` type($x) `,` type($weight) `,` type($y)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Output features of one tile: the 16 weight rows of one MMA A operand.
    /// A CTA owns `tiles` of them.
    static constexpr int64_t kFeaturesPerTile = 16;
    /// K of one chunk: 16 bytes of one weight row per lane, 4 lanes a row.
    /// A tactic's late_chunks counts these.
    static constexpr int64_t kChunkK = 32;
    /// Most warps one CTA launches (1,024 threads).
    static constexpr int64_t kMaxWarps = 32;
    /// Most chunks a thread's unrolled loop holds: kw / kChunkK, times the
    /// tiles in the register pipeline (their weights) or once in the bulk
    /// pipeline (x). Past it the kernel spills what it holds and its
    /// compile time grows as the square (512 chunks took 37 s, 2048 did not
    /// finish in two minutes).
    static constexpr int64_t kMaxHeldChunks = 128;
    /// Largest M this op accepts: 16, or the mailbox capacity if smaller.
    int64_t getMaxTokens();
    /// Why `tactic` cannot launch an [n, k] weight, or an empty string: the
    /// rules of the kernel's launch shape, shared with tactic selection.
    static std::string launchUnsupported(int64_t n, int64_t k,
                                         TacticAttr tactic);
    /// The tactics, in the order they split M between them; empty where the
    /// op has none yet (lamport-select-tactics gives it some).
    SmallVector<TacticAttr> getTacticList() {
      if (!getTactics())
        return {};
      return llvm::to_vector(getTactics()->getAsRange<TacticAttr>());
    }
    /// The tactic that serves `m` tokens: the first whose token_tiles
    /// reaches m (the verifier makes sure one does, up to getMaxTokens()).
    /// Null where the op has no tactics.
    TacticAttr getTacticFor(int64_t m);
    /// The most tokens one launch of the op can carry, which its tactics
    /// must cover: x's (or y's) static M, else getMaxTokens().
    int64_t getNeededTokens();
  }];
}

#endif // LAMPORT_DIALECT_LAMPORT_IR_GEMMOPS_TD
