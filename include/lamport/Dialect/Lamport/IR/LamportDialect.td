//===- LamportDialect.td - Lamport dialect definition ------*- tablegen -*-===//
//
// Part of the Lamport project: an MLIR compiler for the NVLink Lamport
// mailbox pattern of LLM decode under tensor parallelism.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_DIALECT_LAMPORT_IR_LAMPORTDIALECT_TD
#define LAMPORT_DIALECT_LAMPORT_IR_LAMPORTDIALECT_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/OpBase.td"
include "lamport/Dialect/Lamport/IR/LamportInterfaces.td"

def Lamport_Dialect : Dialect {
  let name = "lamport";
  let cppNamespace = "::mlir::lamport";
  let summary = "The Lamport mailbox protocol of tensor-parallel LLM decode";
  let description = [{
    A Lamport mailbox is a `[3 generations, tp, capacity, width]` BF16 buffer
    on every rank of a tensor-parallel (TP) group, in symmetric memory. A
    publisher stores its rows into slot `[stage, rank]` of every rank's copy
    (an NVLink multicast store, or one unicast store per peer), storing BF16
    -0.0 as +0.0. Every slot starts as, and is re-armed to, the sentinel BF16
    -0.0 (0x8000). A reader polls its own copy in 16-byte fragments until no
    BF16 lane of a fragment is the sentinel, uses the data and re-arms it.
    Three generations rotate, so no barrier is needed; every poll is bounded by
    `%globaltimer` and traps once its timeout has passed.

    The dialect has two levels. Kernel-level ops live inside `gpu.func`
    kernels: the protocol's primitives (`lamport.mailbox.*`,
    `lamport.stage.*`), which work on 16-byte fragments, and the mechanisms
    the kernel generators share (`lamport.cluster.*` exchanges,
    `lamport.pdl.wait`, `lamport.l2.*` streaming loads). Program-level ops (`lamport.gemm_publish`,
    `lamport.publish_rows`, `lamport.poll_rows`, `lamport.all_reduce`,
    `lamport.all_reduce_dual_norm`, `lamport.dual_norm`,
    `lamport.all_gather`) work on whole memrefs of a decode step; passes turn
    each into a kernel built from the primitives plus a launch.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::LLVM::LLVMDialect"];
  let hasConstantMaterializer = 1;
  // The tensor maps of a generated kernel (docs/bundle.md, `tensor_map`),
  // which three stages read after generation: `tensor_of` and `box` on
  // each tensor map argument of the gpu.func (the launch plan writes them
  // into the manifest); `tensor_map_args`, the indices of those arguments,
  // on the kernel function, since lowering to NVVM drops argument
  // attributes before the pass that makes them byval grid constants; and
  // `tensor_maps` on the launch, (operand, its buffer's operand, box
  // inner, box outer) of each map operand flattened, for the host lowering,
  // which encodes them at launch once the kernel is a binary.
  let discardableAttrs = (ins
    "::mlir::IntegerAttr":$tensor_of,
    "::mlir::DenseI64ArrayAttr":$box,
    "::mlir::DenseI64ArrayAttr":$tensor_map_args,
    "::mlir::DenseI64ArrayAttr":$tensor_maps
  );
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let extraClassDeclaration = [{
    /// Buffer generations a mailbox rotates through: the slot being re-armed
    /// is never the one being written, so no barrier is needed.
    static constexpr unsigned kGenerations = 3;
    /// BF16 lanes in one 16-byte fragment, the unit of polling.
    static constexpr unsigned kFragmentLanes = 8;
    /// The sentinel: BF16 negative zero, compared bit for bit.
    static constexpr uint16_t kSentinelBits = 0x8000;
    /// Bits a ticket shifts its stage by: the stage is the upper half of
    /// the int32 word. The folds and the lowering both read this.
    static constexpr unsigned kTicketStageShift = 16;
    /// Poll timeout used when neither the op nor the pass sets one.
    static constexpr int64_t kDefaultTimeoutNs = 1000000000;
    /// Largest TP group a mailbox descriptor carries peers for.
    static constexpr unsigned kMaxTp = 64;
    /// Most rows a mailbox slot holds, and most BF16 in a row: the bounds
    /// of a manifest's `capacity` and `width` (docs/bundle.schema.json),
    /// which the runtime refuses beyond. Each keeps a row and column index
    /// of the timeout record an i32.
    static constexpr unsigned kMaxCapacity = 1u << 16;
    static constexpr unsigned kMaxWidth = 1u << 24;
    /// Largest decode batch (tokens) the program-level ops accept.
    static constexpr unsigned kMaxTokens = 16;
  }];
}

class Lamport_Op<string mnemonic, list<Trait> traits = []>
    : Op<Lamport_Dialect, mnemonic, traits>;

/// Marks an op that lives inside a generated kernel (gpu.func) and that
/// convert-lamport-to-nvvm lowers: every op that is not program-level.
def Lamport_KernelLevel : NativeOpTrait<"KernelLevel"> {
  let cppNamespace = "::mlir::OpTrait::lamport";
}

/// A kernel-level op: see Lamport_KernelLevel.
class Lamport_KernelOp<string mnemonic, list<Trait> traits = []>
    : Lamport_Op<mnemonic, traits # [Lamport_KernelLevel]>;

/// A program-level op: see Lamport_ProgramOpInterface.
class Lamport_ProgramOp<string mnemonic, list<Trait> traits = []>
    : Lamport_Op<mnemonic, traits # [
          DeclareOpInterfaceMethods<Lamport_ProgramOpInterface>]>;

/// A count or size parameter of a type or attribute. The stock unsigned
/// parser wraps `-1` to 4294967295; this one rejects a negative value.
class Lamport_CountParameter<string desc>
    : AttrOrTypeParameter<"unsigned", desc> {
  let parser = "parseCountParameter($_parser)";
}

#endif // LAMPORT_DIALECT_LAMPORT_IR_LAMPORTDIALECT_TD
