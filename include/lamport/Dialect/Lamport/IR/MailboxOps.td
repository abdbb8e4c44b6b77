//===- MailboxOps.td - Kernel-level mailbox primitives -----*- tablegen -*-===//
//
// Part of the Lamport project.
//
// The fragment-level primitives that live inside gpu.func kernels: publish,
// poll, poll_at, rearm, the column all-gather read poll_owned, and
// address_digest, which reads a publish's addresses early.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_DIALECT_LAMPORT_IR_MAILBOXOPS_TD
#define LAMPORT_DIALECT_LAMPORT_IR_MAILBOXOPS_TD

include "lamport/Dialect/Lamport/IR/LamportDialect.td"
include "lamport/Dialect/Lamport/IR/LamportTypes.td"
include "lamport/Dialect/Lamport/IR/LamportAttrs.td"
include "mlir/IR/CommonTypeConstraints.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

/// A thread's fragments: vector<F x 8 x bf16>, one row per 16-byte fragment.
def Lamport_FragmentsType : VectorOfRankAndType<[2], [BF16]>;
/// The fragments a publish stores: vector<N x bf16> with N a multiple of 8.
def Lamport_PublishValueType : VectorOfRankAndType<[1], [BF16]>;

def Lamport_MailboxPublishOp : Lamport_KernelOp<"mailbox.publish"> {
  let summary = "store fragments into slot [stage, rank] of every rank's copy";
  let description = [{
    Stores `value` (N consecutive BF16 lanes, N a multiple of 8, so N / 8
    16-byte fragments) at row `row`, column `col` of slot `[stage, rank]`,
    where `rank` is the publishing rank of the mailbox value. Every BF16 lane
    equal to -0.0 is stored as +0.0 so that published data never looks like
    the sentinel.

    Without `to`, the fragments reach every rank's copy: one `multimem.st`
    per fragment to the multicast address (`transport = multicast`), or one
    store per peer (`transport = unicast`). Without a `transport` attribute
    the lowering pass's option decides. With `to %rank` (route rows) the
    fragments go into that one rank's copy alone, through its peer address.

    `release_before` issues a system-scope release fence before the stores,
    ordering this thread's earlier reads and re-arms before the data.

    ```mlir
    lamport.mailbox.publish %v, %mb[%stage, %row, %col]
        {transport = #lamport.transport<multicast>}
        : vector<8xbf16>, !lamport.mailbox<tp = 8, capacity = 16, width = 8192>
    lamport.mailbox.publish %v, %mb[%stage, %row, %col] to %owner
        : vector<8xbf16>, !lamport.mailbox<tp = 8, capacity = 16, width = 8192>
    ```
  }];
  let arguments = (ins Lamport_PublishValueType:$value,
                       Lamport_MailboxType:$mailbox, I32:$stage, Index:$row,
                       Index:$col, Optional<I32>:$target,
                       OptionalAttr<Lamport_TransportAttr>:$transport,
                       UnitAttr:$release_before);
  let assemblyFormat = [{
    $value `,` $mailbox `[` $stage `,` $row `,` $col `]` (`to` $target^)?
    attr-dict `:` type($value) `,` qualified(type($mailbox))
  }];
  let hasVerifier = 1;
}

def Lamport_MailboxAddressDigestOp
    : Lamport_KernelOp<"mailbox.address_digest", [Pure]> {
  let summary = "the descriptor's addresses, folded, to read them early";
  let description = [{
    The XOR of every address and index the kernel's publishes and polls of
    this mailbox read from its mailbox descriptor: the rank, the multicast
    address and every peer's copy (a `lamport.mailbox.publish`, by its
    transport) and this rank's copy (a poll). The value means
    nothing; reading it early is the point. The descriptor is a by-value
    kernel parameter, which ptxas reads from the constant bank where each
    value is used, so a publish at the end of a kernel meets the first
    reads of the peer addresses there: constant-cache misses on the tail of
    the kernel. A kernel that can consume this value early, in an operation
    ptxas must keep there (the GEMM's never-taken guard store before
    `griddepcontrol.wait`), brings those lines in while its loads fly.

    ```mlir
    %digest = lamport.mailbox.address_digest %mb
        : !lamport.mailbox<tp = 16, capacity = 16, width = 512>
    ```
  }];
  let arguments = (ins Lamport_MailboxType:$mailbox);
  let results = (outs I64:$digest);
  let assemblyFormat = [{
    $mailbox attr-dict `:` qualified(type($mailbox))
  }];
}

class Lamport_PollOpBase<string mnemonic> : Lamport_KernelOp<mnemonic> {
  let results = (outs Lamport_FragmentsType:$fragments);
  let hasVerifier = 1;
}

def Lamport_MailboxPollOp : Lamport_PollOpBase<"mailbox.poll"> {
  let summary = "wait for `count` fragments at base + i * stride";
  let description = [{
    Polls this rank's own copy for F 16-byte fragments (F is the result's
    leading dimension, 1..32) at element offsets `base + i * stride`, where
    base is row `row`, column `col` of slot `[stage, slot]` and `stride` (in
    BF16 elements, a multiple of 8) is known at run time. All loads issue
    before any check; only fragments that still hold the sentinel (any BF16
    lane bit-equal to 0x8000) are loaded again. The first miss arms a
    deadline `timeout_ns` after `%globaltimer`; a poll still missing data
    after it traps. Without `timeout_ns`, the lowering pass's default holds.

    ```mlir
    %f = lamport.mailbox.poll %mb[%stage, %slot, %row, %col] stride %s
        : !lamport.mailbox<tp = 8, capacity = 16, width = 8192>
        -> vector<4x8xbf16>
    ```
  }];
  let arguments = (ins Lamport_MailboxType:$mailbox, I32:$stage, I32:$slot,
                       Index:$row, Index:$col, Index:$stride,
                       OptionalAttr<I64Attr>:$timeout_ns);
  let assemblyFormat = [{
    $mailbox `[` $stage `,` $slot `,` $row `,` $col `]` `stride` $stride
    attr-dict `:` qualified(type($mailbox)) `->` type($fragments)
  }];
}

def Lamport_MailboxPollAtOp : Lamport_PollOpBase<"mailbox.poll_at"> {
  let summary = "wait for the fragments at compile-time offsets";
  let description = [{
    As `lamport.mailbox.poll`, for fragments at `base + offsets[i]` (BF16
    elements, each a non-negative multiple of 8, one per result row).

    ```mlir
    %f = lamport.mailbox.poll_at %mb[%stage, %slot, %row, %col]
        offsets [0, 128, 8192]
        : !lamport.mailbox<tp = 8, capacity = 16, width = 8192>
        -> vector<3x8xbf16>
    ```
  }];
  let arguments = (ins Lamport_MailboxType:$mailbox, I32:$stage, I32:$slot,
                       Index:$row, Index:$col, DenseI64ArrayAttr:$offsets,
                       OptionalAttr<I64Attr>:$timeout_ns);
  let assemblyFormat = [{
    $mailbox `[` $stage `,` $slot `,` $row `,` $col `]` `offsets` $offsets
    attr-dict `:` qualified(type($mailbox)) `->` type($fragments)
  }];
}

def Lamport_MailboxRearmOp : Lamport_KernelOp<"mailbox.rearm"> {
  let summary = "store the sentinel over fragments that were read";
  let description = [{
    Stores the sentinel (eight BF16 -0.0, 16 bytes) over fragments of this
    rank's own copy, starting at row `row`, column `col` of slot
    `[stage, slot]`: one fragment; or `count` fragments `stride` elements
    apart; or the fragments at compile-time `offsets`, mirroring the poll
    that read them.

    ```mlir
    lamport.mailbox.rearm %mb[%stage, %slot, %row, %col]
        : !lamport.mailbox<tp = 8, capacity = 16, width = 8192>
    lamport.mailbox.rearm %mb[%stage, %slot, %row, %col] stride %s count 4
        : !lamport.mailbox<tp = 8, capacity = 16, width = 8192>
    ```
  }];
  let arguments = (ins Lamport_MailboxType:$mailbox, I32:$stage, I32:$slot,
                       Index:$row, Index:$col, Optional<Index>:$stride,
                       OptionalAttr<I64Attr>:$count,
                       OptionalAttr<DenseI64ArrayAttr>:$offsets);
  let assemblyFormat = [{
    $mailbox `[` $stage `,` $slot `,` $row `,` $col `]`
    (`stride` $stride^ `count` $count)? (`offsets` $offsets^)?
    attr-dict `:` qualified(type($mailbox))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Fragments this op re-arms.
    int64_t getFragmentCount() {
      if (getOffsets())
        return getOffsets()->size();
      return getCount() ? int64_t(*getCount()) : 1;
    }
  }];
}

def Lamport_MailboxPollOwnedOp : Lamport_KernelOp<"mailbox.poll_owned"> {
  let summary = "column all-gather read of one fragment from its owner rank";
  let description = [{
    Waits for global column fragment `fragment` (8 BF16 of the full
    `tp * width` row) of token `token` from the one rank that owns it: rank
    `fragment / (width / 8)`, local fragment `fragment % (width / 8)` of its
    slot at stage `stage`. Returns the fragment and re-arms it, in one op
    because the address, the poll and the re-arm share the owner arithmetic.

    ```mlir
    %f = lamport.mailbox.poll_owned %mb[%stage, %token, %fragment]
        : !lamport.mailbox<tp = 8, capacity = 16, width = 1024>
        -> vector<1x8xbf16>
    ```
  }];
  let arguments = (ins Lamport_MailboxType:$mailbox, I32:$stage, Index:$token,
                       Index:$fragment, OptionalAttr<I64Attr>:$timeout_ns);
  let results = (outs Lamport_FragmentsType:$fragments);
  let assemblyFormat = [{
    $mailbox `[` $stage `,` $token `,` $fragment `]`
    attr-dict `:` qualified(type($mailbox)) `->` type($fragments)
  }];
  let hasVerifier = 1;
}

#endif // LAMPORT_DIALECT_LAMPORT_IR_MAILBOXOPS_TD
