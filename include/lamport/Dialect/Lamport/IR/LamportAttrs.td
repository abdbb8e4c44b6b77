//===- LamportAttrs.td - Lamport dialect attributes --------*- tablegen -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_DIALECT_LAMPORT_IR_LAMPORTATTRS_TD
#define LAMPORT_DIALECT_LAMPORT_IR_LAMPORTATTRS_TD

include "lamport/Dialect/Lamport/IR/LamportDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

//===----------------------------------------------------------------------===//
// Transport
//===----------------------------------------------------------------------===//

def Lamport_TransportMulticast : I32EnumAttrCase<"multicast", 0>;
def Lamport_TransportUnicast : I32EnumAttrCase<"unicast", 1>;

def Lamport_Transport : I32EnumAttr<"Transport",
    "how a publish reaches every rank's copy", [
      Lamport_TransportMulticast, Lamport_TransportUnicast
    ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::lamport";
}

def Lamport_TransportAttr : EnumAttr<Lamport_Dialect, Lamport_Transport,
                                     "transport"> {
  let summary = "multicast (one multimem.st) or unicast (one store per peer)";
  let assemblyFormat = "`<` $value `>`";
}

//===----------------------------------------------------------------------===//
// Sum order
//===----------------------------------------------------------------------===//

def Lamport_SumRankAscending : I32EnumAttrCase<"rank_ascending", 0>;
def Lamport_SumPairwise : I32EnumAttrCase<"pairwise", 1>;

def Lamport_SumOrder : I32EnumAttr<"SumOrder",
    "the fixed order in which an all-reduce adds the ranks' partials", [
      Lamport_SumRankAscending, Lamport_SumPairwise
    ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::lamport";
}

def Lamport_SumOrderAttr : EnumAttr<Lamport_Dialect, Lamport_SumOrder,
                                    "sum_order"> {
  let summary = "the order an all-reduce adds partials in";
  let description = [{
    `rank_ascending` adds the ranks' partials left to right,
    `((p0 + p1) + p2) + ...`; `pairwise` adds them as a balanced tree over
    rank order, `(p0 + p1) + (p2 + p3)` and so on. Either way the order is
    fixed, so every rank computes the same bits.
  }];
  let assemblyFormat = "`<` $value `>`";
}

//===----------------------------------------------------------------------===//
// GEMM tactic
//===----------------------------------------------------------------------===//

def Lamport_GemmPipelineRegisters : I32EnumAttrCase<"registers", 0>;
def Lamport_GemmPipelineBulk : I32EnumAttrCase<"bulk", 1>;

def Lamport_GemmPipeline : I32EnumAttr<"GemmPipeline",
    "how a gemm_publish kernel streams its weights", [
      Lamport_GemmPipelineRegisters, Lamport_GemmPipelineBulk
    ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::lamport";
}

/// A count parameter that may be left out: it then takes `value` and is not
/// printed (existing IR keeps its meaning and its spelling).
class Lamport_DefaultedCountParameter<string desc, string value>
    : Lamport_CountParameter<desc> {
  let defaultValue = value;
}

def Lamport_TacticAttr : AttrDef<Lamport_Dialect, "Tactic"> {
  let mnemonic = "tactic";
  let summary = "launch shape of lamport.gemm_publish";
  let description = [{
    How the small-M GEMM splits its work: `splits` CTAs share K (a cluster of
    `splits` CTAs along grid y), each warp owns `kw` consecutive K, `accs`
    independent accumulators per warp hide MMA latency, each CTA owns `tiles`
    tiles of 16 output features (1, 2 or 4; 1 when left out, and then not
    printed) whose MMAs share the warp's activation fragments, `passes`
    blocks of 16 x tiles features one CTA takes in turn (1, 2, 4 or 8, more
    than 1 with splits = 1 only; 1 when left out, not printed), loading the
    next block's weights while it multiplies and reduces the current one,
    with x loaded once for all, `min_ctas_per_sm` asks ptxas to leave
    registers for that many CTAs on one SM (PTX `.minnctapersm`; 0, the
    default, not printed, asks nothing: ptxas then keeps registers low on its
    own), `early_dependents = true` lets the next kernel launch (PTX
    `griddepcontrol.launch_dependents`) before the weight loads instead of
    after the MMAs (false, the default, not printed), `late_chunks` is how
    many of each warp's last 32-wide K chunks load their weights after the
    PDL wait, behind x, instead of before it (0, the default, not printed:
    x's loads otherwise queue behind the CTA's whole weight share), and
    `token_tiles[m-1]` is the token tile (8 or 16) the kernel uses for m
    tokens. Warps per CTA follow: K / (splits * kw); CTAs along grid x:
    N / (16 * tiles * passes). `splits`, `kw`, `accs` and `token_tiles` are
    required, the others default; the knobs may be written in any order and
    print in that of the examples below, token_tiles last.

    `pipeline` picks how the weights travel: `registers` (the default, not
    printed) loads them straight into registers with 16-byte loads; `bulk`
    streams them through a ring of `stages` shared-memory stages (4 when
    left out) of `stage_bytes` bytes each (16384 when left out: the CTA's
    16 x tiles weight rows times a K range of the slice), filled by the
    bulk-copy engine (`cp.async.bulk`, completion counted by an mbarrier's
    transactions) from `producer_lanes` lanes of warp 0 (1 when left out),
    and read by every warp with 16-byte shared loads. `stages`,
    `stage_bytes` and `producer_lanes` are printed only where they differ
    from their defaults, and the register pipeline takes them only there.
    `early_reads` is how many of the ring's first loads each warp reads
    into registers before the PDL wait (at most `stages`); left out (not
    printed), the generator decides: with one pass, as many as fit 64
    registers of weight fragments, with several, none.

    ```mlir
    #lamport.tactic<splits = 4, kw = 64, accs = 2,
                    token_tiles = [8, 8, 8, 8, 8, 8, 8, 8,
                                   16, 16, 16, 16, 16, 16, 16, 16]>
    #lamport.tactic<splits = 1, kw = 128, accs = 2, tiles = 2,
                    token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>
    #lamport.tactic<splits = 1, kw = 128, accs = 2, min_ctas_per_sm = 1,
                    token_tiles = [16]>
    #lamport.tactic<splits = 1, kw = 128, accs = 2, early_dependents = true,
                    token_tiles = [8]>
    #lamport.tactic<splits = 1, kw = 128, accs = 2, passes = 4,
                    token_tiles = [16]>
    #lamport.tactic<splits = 2, kw = 128, accs = 1, tiles = 2,
                    late_chunks = 2, token_tiles = [16]>
    #lamport.tactic<splits = 2, kw = 128, accs = 1, tiles = 2,
                    pipeline = bulk, stages = 4, stage_bytes = 32768,
                    token_tiles = [16]>
    #lamport.tactic<splits = 1, kw = 512, accs = 2, passes = 2,
                    pipeline = bulk, stages = 3, stage_bytes = 32768,
                    early_reads = 1, token_tiles = [8]>
    ```
  }];
  let parameters = (ins
      Lamport_CountParameter<"CTAs of one cluster sharing K: 1, 2, 4 or 8">
          :$splits,
      Lamport_CountParameter<"consecutive K per warp, a multiple of 16">:$kw,
      Lamport_CountParameter<"accumulators per warp: 1, 2 or 4">:$accs,
      Lamport_DefaultedCountParameter<"tiles of 16 output features per CTA, "
                                      "sharing x: 1, 2 or 4", "1">:$tiles,
      Lamport_DefaultedCountParameter<"blocks of 16 x tiles features one CTA "
                                      "takes in turn: 1, 2, 4 or 8 (more "
                                      "than 1 needs splits = 1)", "1">:$passes,
      Lamport_DefaultedCountParameter<"CTAs per SM ptxas leaves registers "
                                      "for (.minnctapersm), 0 for no hint, "
                                      "at most 32", "0">:$min_ctas_per_sm,
      DefaultValuedParameter<"bool", "false", "whether the next kernel may "
                             "launch before the weight loads rather than "
                             "after the MMAs">:$early_dependents,
      Lamport_DefaultedCountParameter<"a warp's last chunks of 32 K whose "
                                      "weights load after the PDL wait, "
                                      "behind x; 0 for none", "0">
          :$late_chunks,
      DefaultValuedParameter<"::mlir::lamport::GemmPipeline",
                             "::mlir::lamport::GemmPipeline::registers",
                             "registers, or bulk: a shared-memory ring "
                             "filled by the bulk-copy engine">:$pipeline,
      Lamport_DefaultedCountParameter<"stages of the bulk pipeline's ring",
                                      "4">:$stages,
      Lamport_DefaultedCountParameter<"bytes of one stage of the bulk "
                                      "pipeline's ring", "16384">
          :$stage_bytes,
      Lamport_DefaultedCountParameter<"lanes of warp 0 that issue the bulk "
                                      "pipeline's copies", "1">
          :$producer_lanes,
      OptionalParameter<"std::optional<unsigned>", "loads of the bulk "
                        "pipeline's ring read before the PDL wait; left out, "
                        "the generator's rule">:$early_reads,
      ArrayRefParameter<"int64_t", "token_tiles[m - 1]: the token tile, 8 or "
                                   "16, the kernel uses for m tokens">
          :$token_tiles);
  // Parsed by hand (TacticAttr::parse): the knobs may come in any order,
  // and a misspelt, repeated or missing knob is an error that names it. The
  // printer writes them in the order of the parameters, defaults left out.
  let hasCustomAssemblyFormat = 1;
  let extraClassDeclaration = [{
    /// Every knob as a plain value, each left out defaulted as the
    /// attribute defaults it: a tactic that differs from another in a few
    /// knobs is get(context, knobs) of the other's getKnobs() with those
    /// changed, and one of the register pipeline names only what it sets.
    struct Knobs {
      unsigned splits = 1, kw = 0, accs = 1, tiles = 1, passes = 1,
               minCtasPerSm = 0;
      bool earlyDependents = false;
      unsigned lateChunks = 0;
      ::mlir::lamport::GemmPipeline pipeline =
          ::mlir::lamport::GemmPipeline::registers;
      unsigned stages = 4, stageBytes = 16384, producerLanes = 1;
      std::optional<unsigned> earlyReads;
      ::llvm::SmallVector<int64_t> tokenTiles;
    };
    Knobs getKnobs() const;
    static TacticAttr get(::mlir::MLIRContext *context, const Knobs &knobs);
    /// The knobs' names as written in `#lamport.tactic<...>`, in the order
    /// they print, token_tiles last.
    static ::llvm::ArrayRef<::llvm::StringLiteral> getKnobNames();
  }];
}

#endif // LAMPORT_DIALECT_LAMPORT_IR_LAMPORTATTRS_TD
