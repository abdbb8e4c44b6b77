//===- Passes.td - Lamport dialect transformation passes ---*- tablegen -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_DIALECT_LAMPORT_TRANSFORMS_PASSES_TD
#define LAMPORT_DIALECT_LAMPORT_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def LamportGenerateKernels : Pass<"lamport-generate-kernels", "ModuleOp"> {
  let summary = "Turn program-level lamport ops into GPU kernels and launches";
  let description = [{
    A *program* is a `func.func` whose body applies program-level lamport ops
    (`lamport.publish_rows`, `lamport.poll_rows`, `lamport.all_reduce`,
    `lamport.gemm_publish`, ...)
    to its arguments: one decode step of one rank. Every such op implements
    `ProgramOpInterface`; the kernel generator attached to it
    (`KernelGeneratorOpInterface`, an external model this pass registers)
    creates `gpu.module`s holding its `gpu.func` kernels, built from
    kernel-level lamport ops (`lamport.mailbox.*`, `lamport.stage.*`,
    `lamport.cluster.*`, `lamport.pdl.wait`, `lamport.l2.*`) and
    arith/scf/vector/memref/gpu/nvvm ops, never PTX text, and replaces the
    op by their `gpu.launch_func`s; the module becomes a
    `gpu.container_module`.

    Kernel parameters follow docs/bundle.md: the mailbox by value, then the
    buffers as static-shape memrefs in the global address space (the token
    dimension M replaced by the mailbox capacity), then the i32 token count
    M. Grids are fixed at compile time for the capacity, so one kernel
    serves every M; threads past M idle. Each kernel records what the bundle
    writer needs (`lamport.op`, `lamport.attributes`, `lamport.pdl`, and a
    `lamport.param` / `lamport.io` attribute per argument).

    `lamport.gemm_publish` is the exception to the capacity-sized grid: its
    tactic fixes the launch, grid (N / 16, splits) with a cluster of
    `splits` CTAs along y and K / (splits * kw) warps per CTA, its mailbox is
    optional, and its token tile is the largest the op's M can need (x's
    static M, else min(16, capacity)); the kernel is described in
    docs/design/gemm.md.

    Program-level ops that have no kernel generator yet are left in place;
    tools that need every op lowered report them.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::NVVM::NVVMDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect",
  ];
  let options = [
    Option<"transport", "transport", "::mlir::lamport::Transport",
           "::mlir::lamport::Transport::unicast",
           "Transport of publishes whose op sets none",
           [{::llvm::cl::values(
               clEnumValN(::mlir::lamport::Transport::unicast, "unicast",
                          "one store per peer"),
               clEnumValN(::mlir::lamport::Transport::multicast, "multicast",
                          "one multimem.st to the multicast address"))}]>,
    Option<"threadsPerCta", "threads-per-cta", "unsigned", "128",
           "Most threads per CTA of a generated kernel (a multiple of 32)">,
    Option<"maxCtas", "max-ctas", "unsigned", "128",
           "Most CTAs of a generated kernel: in the loopback transport every "
           "rank's kernels share one GPU, so spinning consumers must leave "
           "room for publishers">,
    Option<"bulkCopies", "bulk-copies", "::mlir::lamport::BulkCopies",
           "::mlir::lamport::BulkCopies::automatic",
           "How the GEMM bulk pipeline fills a stage that is not contiguous: "
           "by tensor copies through a tensor map of the weight that the "
           "runtime encodes (docs/bundle.md, tensor_map) where the CTA "
           "streams rows under 2 KiB through its ring (auto, the default) "
           "or wherever (tensor), or one bulk copy a row (rows)",
           [{::llvm::cl::values(
               clEnumValN(::mlir::lamport::BulkCopies::automatic, "auto",
                          "tensor copies where rows are under 2 KiB"),
               clEnumValN(::mlir::lamport::BulkCopies::rows, "rows",
                          "one bulk copy a row, no tensor map"),
               clEnumValN(::mlir::lamport::BulkCopies::tensor, "tensor",
                          "tensor copies wherever a stage is not contiguous"))}]>,
  ];
}

def LamportSelectTactics : Pass<"lamport-select-tactics", "ModuleOp"> {
  let summary = "Choose the tactics of every lamport.gemm_publish without them";
  let description = [{
    For each `lamport.gemm_publish` without `tactic(...)`, chooses, for each
    M the op can take (x's static M, else 1..its bound), the tactic that
    serves it, and writes them as the op's tactic list (consecutive M with
    the same tactic share one; docs/tactics.md):

    1. the chip's **tactic table** (`data/tactics/<chip>.json`, installed
       to `share/lamport/tactics`; `tactic-table=PATH` reads another),
       whose entries are keyed by N, K, a range of M, publishing or not
       and transport, and say where they were measured;
    2. for M no entry covers, the **cost model** of the generator's
       kernels: bytes in flight per CTA and per SM, warps, registers, CTAs
       per SM and waves over the chip's SMs, the split-K cluster's
       exchange and the fixed costs of docs/performance.md, over every
       tactic of every kernel family that can launch the shape; each
       estimate is multiplied by the tactic's slowdown at the timed points
       the table keeps for the shape nearest in N and K (the prior: how
       far behind its best the same kernel ran there, else its typical
       candidate), and where the two families' best weighed
       estimates lie within 10% the family that ran faster there goes
       first.

    Tactics written on the op always win: such an op is left as it is. A
    shape no tactic of any family can launch is one error that says why
    each family cannot. With `explain`, each op gets a remark saying where
    its tactics came from (table entry, or the model's estimate and the
    runner-up).

    `candidates=N` is for lamport-tune: each op also gets
    `lamport.candidates`, for its largest M, the model's best tactic of
    each of the N best launch shapes (splits, kw, tiles, passes), in the
    order of its estimate: the sweep space is the model's, defined once.
    `wide-sweep` widens it by 8 splits and kw 256 (docs/tactics.md): for
    lamport-tune at large K, where they can win, not for the model's own
    picks. `candidate-variants` follows each of those tactics with its
    launch shape's best at every other `late_chunks` and with the bulk
    pipeline's rings for it, and ends the list with the bulk pipeline's own
    launch shapes (one split, several passes, 4-16 warps: lamport-tune
    --variants): the knobs the model does not rank, which the tuner times.
  }];
  let options = [
    Option<"chip", "chip", "std::string", "\"sm_90\"",
           "Chip whose tactic table and cost model figures apply: sm_90, "
           "sm_90a, sm_100, sm_100a or sm_100f">,
    Option<"tacticTable", "tactic-table", "std::string", "",
           "Tactic table to read instead of the chip's installed one "
           "(empty: the chip's; no-table reads none)">,
    Option<"noTable", "no-table", "bool", "false",
           "Read no tactic table: the cost model alone chooses every tactic "
           "(an error with tactic-table or prior-only)">,
    Option<"priorOnly", "prior-only", "bool", "false",
           "Take no tactic from the table, only the timed points of its "
           "nearest shape as the cost model's prior: the choice a shape "
           "the table lacks gets">,
    Option<"transport", "transport", "::mlir::lamport::Transport",
           "::mlir::lamport::Transport::unicast",
           "Transport of publishes whose op sets none",
           [{::llvm::cl::values(
               clEnumValN(::mlir::lamport::Transport::unicast, "unicast",
                          "one store per peer"),
               clEnumValN(::mlir::lamport::Transport::multicast, "multicast",
                          "one multimem.st to the multicast address"))}]>,
    Option<"explain", "explain", "bool", "false",
           "Remark, for each op, where its tactics came from and why">,
    Option<"candidates", "candidates", "unsigned", "0",
           "Also attach the model's N best tactics (lamport-tune)">,
    Option<"candidateVariants", "candidate-variants", "bool", "false",
           "Follow each candidate with its launch shape's other late-chunk "
           "counts and bulk rings, and add the bulk pipeline's own launch "
           "shapes (lamport-tune --variants)">,
    Option<"wideSweep", "wide-sweep", "bool", "false",
           "Also sweep 8 splits and kw 256, which lose at most shapes and "
           "which the model ranks less well (lamport-tune --wide)">,
    Option<"bulkCopies", "bulk-copies", "::mlir::lamport::BulkCopies",
           "::mlir::lamport::BulkCopies::automatic",
           "How lamport-generate-kernels will fill the bulk pipeline's "
           "stages (its own bulk-copies option), which the bulk-stream "
           "family's estimates and producer lanes follow",
           [{::llvm::cl::values(
               clEnumValN(::mlir::lamport::BulkCopies::automatic, "auto",
                          "tensor copies where rows are under 2 KiB"),
               clEnumValN(::mlir::lamport::BulkCopies::rows, "rows",
                          "one bulk copy a row, no tensor map"),
               clEnumValN(::mlir::lamport::BulkCopies::tensor, "tensor",
                          "tensor copies wherever a stage is not contiguous"))}]>,
  ];
}

def LamportCheckProtocol : Pass<"lamport-check-protocol", "ModuleOp"> {
  let summary = "Reject programs and kernels that break the mailbox protocol";
  let description = [{
    Checks the rules of docs/protocol.md that the op verifiers cannot see
    because they involve more than one op.
    Each error points at one op and attaches a note at the other one (the
    earlier publisher, the consumer, the mailbox's first use); the pass
    reports every broken rule, then fails. lamport-compile runs it before
    lamport-generate-kernels unless `--protocol-check=false`.

    **Programs** (a `func.func` applying program-level ops, or launching
    kernels with `gpu.launch_func`, to its arguments: one decode step of one
    rank). The ops of a step are followed in program order; what each does
    to its mailbox comes from ProgramOpInterface (`getMailboxUse`), and for a
    launch from its kernel's body (a `lamport.mailbox.publish` of the
    mailbox parameter publishes, a poll consumes). The alternatives of an
    `scf.if` on the token count are followed from the same state and must
    leave every mailbox alike.

    1. *Consumed, never published*: a consumer of a mailbox
       (`lamport.poll_rows`, `all_reduce`, `all_gather`,
       `all_reduce_dual_norm`) needs a publish earlier in the step that no
       other consumer has taken; otherwise its poll waits for rows nobody
       writes until the timeout traps. The note points at the consumer that
       took the last publish, a publisher later in the step, or the mailbox
       argument.
    2. *Published, never consumed*: every publish needs a consumer later in
       the step. Otherwise no one reads or re-arms the rows and NEXT does
       not advance, so the next step publishes into the same generation.
    3. *Two publishes into one slot in one stage*: a second publish (or a
       fused `all_reduce_dual_norm ... publishing`) into a mailbox whose
       earlier publish no consumer has taken writes slot [NEXT, rank] of the
       same generation again, over rows a peer may be reading.
    4. *Rows*: a consumer whose token count M is static reads exactly the
       rows its publisher published when that count is static too: more
       waits for rows never written, fewer leaves rows that are never read
       or re-armed (a later poll of them would take stale data for new).
       A static count on one side and the step's M on the other is not
       decidable here. The capacity bound of each op's own rows is the op
       verifier's (`1 <= M <= min(16, capacity)`).
    5. *One TP group*: every mailbox argument of a program has the same
       `tp`, because a bundle runs on one TP group (lamport-run refuses a
       manifest whose mailboxes disagree). The error is at the first use of
       the mailbox that differs, the note at the first use of the first
       one. Producers and consumers of one mailbox cannot disagree on `tp`,
       `width` or `capacity`: they share one value of one type, and each
       mailbox argument is its own mailbox in the bundle.

    **Kernels** (`gpu.func` bodies using `lamport.mailbox.*` and
    `lamport.stage.*`). Values are compared as the same SSA value, equal
    constants, or the same side-effect-free op of equal operands; a stage
    word read twice is two values.

    6. *A publish rotates*: the stage of `lamport.mailbox.publish` is
       neither a constant (the generation would never rotate, so the next
       launch writes the generation a slower peer may still read) nor the
       value of `lamport.stage.active` on the same mailbox (the generation
       this rank's consumer reads). NEXT, a ticket's stage or a kernel
       argument pass.
    7. *One publish per fragment*: two publishes of the same mailbox, stage,
       row, column (and target rank), one before the other, store the same
       fragment twice: a peer may take the first.
    8. *ACTIVE names what was published*: in a kernel that publishes into a
       mailbox, `lamport.stage.set_active` takes a stage one of those
       publishes used.
    9. *NEXT advances past what was read*: `lamport.stage.advance` never
       takes a constant stage, and in a kernel that polls the mailbox it
       takes a stage one of those polls (`poll`, `poll_at`, `poll_owned`)
       read.
    10. *Re-arm after the read*: every `lamport.mailbox.rearm` follows (is
        dominated by) a `poll` or `poll_at` of the same mailbox, stage,
        slot, row and column whose fragments include the re-armed ones,
        and no such poll of the fragments comes after it: a re-arm before
        the read erases data not yet read, and the poll then waits until
        the timeout traps.

    Not decided statically, so not checked: stage values computed by
    arithmetic (`(active + 2) % 3`); whether a loop's later iteration reads
    what an earlier one re-armed; strides known only at run time that
    differ between a poll and its re-arm; the rows of launches of
    hand-written kernels; tickets handed from one program to another. A
    step is checked alone: every step of a bundle runs the same ops, so a
    step that leaves each mailbox as it found it can follow itself.
  }];
}

#endif // LAMPORT_DIALECT_LAMPORT_TRANSFORMS_PASSES_TD
