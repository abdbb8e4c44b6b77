//===- StageOps.td - Stage words and tickets ---------------*- tablegen -*-===//
//
// Part of the Lamport project.
//
// Each rank keeps two stage words per mailbox: ACTIVE (the generation the
// next consumer reads) and NEXT (the generation the next publisher writes).
// A publisher writes slot [NEXT, rank] and then sets ACTIVE; the consumer
// reads ACTIVE, and one thread advances NEXT to (ACTIVE + 1) % 3.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_DIALECT_LAMPORT_IR_STAGEOPS_TD
#define LAMPORT_DIALECT_LAMPORT_IR_STAGEOPS_TD

include "lamport/Dialect/Lamport/IR/LamportDialect.td"
include "lamport/Dialect/Lamport/IR/LamportTypes.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Lamport_StageActiveOp : Lamport_KernelOp<"stage.active"> {
  let summary = "read the ACTIVE stage word";
  let description = [{
    The generation the consumer of this step reads (a volatile load of this
    rank's ACTIVE word, written by the publisher that ran before it).

    ```mlir
    %s = lamport.stage.active %mb
        : !lamport.mailbox<tp = 8, capacity = 16, width = 8192>
    ```
  }];
  let arguments = (ins Lamport_MailboxType:$mailbox);
  let results = (outs I32:$stage);
  let builders = [
    OpBuilder<(ins "Value":$mailbox), [{
      build($_builder, $_state, $_builder.getI32Type(), mailbox);
    }]>
  ];
  let assemblyFormat = "$mailbox attr-dict `:` qualified(type($mailbox))";
}

def Lamport_StageNextOp : Lamport_KernelOp<"stage.next"> {
  let summary = "read the NEXT stage word";
  let description = [{
    The generation the publisher of this step writes.

    ```mlir
    %s = lamport.stage.next %mb
        : !lamport.mailbox<tp = 8, capacity = 16, width = 8192>
    ```
  }];
  let arguments = (ins Lamport_MailboxType:$mailbox);
  let results = (outs I32:$stage);
  let builders = [
    OpBuilder<(ins "Value":$mailbox), [{
      build($_builder, $_state, $_builder.getI32Type(), mailbox);
    }]>
  ];
  let assemblyFormat = "$mailbox attr-dict `:` qualified(type($mailbox))";
}

def Lamport_StageSetActiveOp : Lamport_KernelOp<"stage.set_active"> {
  let summary = "publish the stage just written as ACTIVE";
  let description = [{
    Written once per launch by one thread after every store of the publish:
    the lowering orders the data before the word with a system-scope
    release fence. With `read_after_grid` the writer states that every
    reader of ACTIVE runs after this grid has completed (the next kernel on
    the rank's stream, in stream order or after `griddepcontrol.wait`),
    which already orders every store of the grid before the read: no fence.
    The kernel generators' publishers and consumers are separate kernels,
    so theirs all are.

    ```mlir
    lamport.stage.set_active %mb, %s
        : !lamport.mailbox<tp = 8, capacity = 16, width = 8192>
    lamport.stage.set_active %mb, %s {read_after_grid}
        : !lamport.mailbox<tp = 8, capacity = 16, width = 8192>
    ```
  }];
  let arguments = (ins Lamport_MailboxType:$mailbox, I32:$stage,
                       UnitAttr:$read_after_grid);
  let assemblyFormat = [{
    $mailbox `,` $stage attr-dict `:` qualified(type($mailbox))
  }];
  let hasVerifier = 1;
}

def Lamport_StageAdvanceOp : Lamport_KernelOp<"stage.advance"> {
  let summary = "set NEXT to (active + 1) % 3 after a read";
  let description = [{
    Written once per launch by one thread of the consumer: the next publish
    goes to the generation after the one just read.

    ```mlir
    lamport.stage.advance %mb, %active
        : !lamport.mailbox<tp = 8, capacity = 16, width = 8192>
    ```
  }];
  let arguments = (ins Lamport_MailboxType:$mailbox, I32:$active);
  let assemblyFormat = [{
    $mailbox `,` $active attr-dict `:` qualified(type($mailbox))
  }];
  let hasVerifier = 1;
}

def Lamport_StageArriveOp : Lamport_KernelOp<"stage.arrive"> {
  let summary = "count a CTA out of a grid that publishes and consumes";
  let description = [{
    For a kernel that both publishes and consumes the generation `stage` it
    read from NEXT (`lamport.all_reduce_dual_norm` with `publishing`):
    every thread of each of the grid's `ctas` CTAs calls it once, after a
    CTA barrier that follows every thread's read of NEXT. Thread 0 of the
    CTA counts the CTA in: it increments this rank's ARRIVALS word with
    release semantics at GPU scope (wrapping to 0 at the last arrival, so
    the count is ready for the next launch) and gets how many CTAs arrived
    before its own; every other thread gets `ctas`. The thread that gets
    `ctas - 1` is the last arrival, which alone may then set ACTIVE and
    advance NEXT: no CTA of the grid can read NEXT after it moved. It must
    acquire first (a GPU-scope acquire-release fence between its test of the
    count and its writes): the op does not, and returns the count rather
    than the test, so that a CTA can count itself out early and look at the
    count late without waiting for the atomic's round trip in between.

    ```mlir
    %before = lamport.stage.arrive %mb {ctas = 64}
        : !lamport.mailbox<tp = 8, capacity = 16, width = 8192>
    ```
  }];
  let arguments = (ins Lamport_MailboxType:$mailbox, I64Attr:$ctas);
  let results = (outs I32:$before);
  let builders = [
    OpBuilder<(ins "Value":$mailbox, "int64_t":$ctas), [{
      build($_builder, $_state, $_builder.getI32Type(), mailbox,
            $_builder.getI64IntegerAttr(ctas));
    }]>
  ];
  let assemblyFormat = "$mailbox attr-dict `:` qualified(type($mailbox))";
  let hasVerifier = 1;
}

def Lamport_StageFromTicketOp : Lamport_KernelOp<"stage.from_ticket", [Pure]> {
  let summary = "the stage of a ticket: its upper 16 bits";
  let description = [{
    A ticket is an int32 word whose upper 16 bits hold a stage, so a producer
    can take its stage from another boundary's ticket instead of stage words.

    ```mlir
    %s = lamport.stage.from_ticket %ticket
    ```
  }];
  let arguments = (ins I32:$ticket);
  let results = (outs I32:$stage);
  let builders = [
    OpBuilder<(ins "Value":$ticket), [{
      build($_builder, $_state, $_builder.getI32Type(), ticket);
    }]>
  ];
  let assemblyFormat = "$ticket attr-dict";
  let hasFolder = 1;
}

def Lamport_StageToTicketOp : Lamport_KernelOp<"stage.to_ticket", [Pure]> {
  let summary = "the ticket of a stage: stage << 16";
  let description = [{
    ```mlir
    %t = lamport.stage.to_ticket %stage
    ```
  }];
  let arguments = (ins I32:$stage);
  let results = (outs I32:$ticket);
  let builders = [
    OpBuilder<(ins "Value":$stage), [{
      build($_builder, $_state, $_builder.getI32Type(), stage);
    }]>
  ];
  let assemblyFormat = "$stage attr-dict";
  let hasFolder = 1;
}

#endif // LAMPORT_DIALECT_LAMPORT_IR_STAGEOPS_TD
