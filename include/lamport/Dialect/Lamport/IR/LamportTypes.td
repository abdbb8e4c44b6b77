//===- LamportTypes.td - Lamport dialect types -------------*- tablegen -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_DIALECT_LAMPORT_IR_LAMPORTTYPES_TD
#define LAMPORT_DIALECT_LAMPORT_IR_LAMPORTTYPES_TD

include "lamport/Dialect/Lamport/IR/LamportDialect.td"
include "mlir/IR/AttrTypeBase.td"

class Lamport_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Lamport_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def Lamport_MailboxType : Lamport_Type<"Mailbox", "mailbox"> {
  let summary = "One TP group's [3, tp, capacity, width] BF16 mailbox";
  let description = [{
    The symmetric `[3, tp, capacity, width]` BF16 buffer of a TP group of `tp`
    ranks: three generations (stages), one slot per rank, each slot
    `capacity` rows of `width` BF16. A value of this type is one rank's view
    of the mailbox: its own copy, every peer's copy, the multicast address
    where the transport has one, and its stage words.

    ```mlir
    !lamport.mailbox<tp = 8, capacity = 16, width = 8192>
    ```
  }];
  let parameters = (ins
      Lamport_CountParameter<"ranks in the TP group, 1..64">:$tp,
      Lamport_CountParameter<"rows per slot: the most tokens of one step">
          :$capacity,
      Lamport_CountParameter<"BF16 per row, a multiple of 8 (whole 16-byte "
                             "fragments)">:$width);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Fragments (16 bytes, 8 BF16) in one row of a slot.
    unsigned getFragmentsPerRow() const { return getWidth() / 8; }
    /// BF16 elements in one slot: capacity rows of width.
    int64_t getSlotElements() const {
      return int64_t(getCapacity()) * getWidth();
    }
    /// BF16 elements in one rank's whole copy of the mailbox.
    int64_t getCopyElements() const {
      return 3 * int64_t(getTp()) * getSlotElements();
    }
    /// Most tokens a program-level op moves through this mailbox in one
    /// step: the decode batch limit, or the capacity where it is smaller.
    int64_t getMaxTokens() const;
  }];
}

#endif // LAMPORT_DIALECT_LAMPORT_IR_LAMPORTTYPES_TD
