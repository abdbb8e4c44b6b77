// REQUIRES: ptxas
// The one-shot all-reduce consumer behind a publisher, tp = 4: the manifest
// records the sum order the runtime's reference must follow; the consumer's
// PTX polls with a deadline, sums in FP32 and rounds once to BF16.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: lamport-compile %s -o %t/sm90
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/sm90/manifest.json
// RUN: FileCheck %s --check-prefix=PTX < %t/sm90/all_reduce_0.ptx
// RUN: test -s %t/sm90/publish_rows_0.cubin
// RUN: test -s %t/sm90/all_reduce_0.cubin
// RUN: lamport-compile %s -o %t/sm100a --chip sm_100a --timeout-ns 2000000
// RUN: test -s %t/sm100a/all_reduce_0.cubin
// RUN: FileCheck %s --check-prefix=TIMEOUT < %t/sm100a/all_reduce_0.ptx
// RUN: FileCheck %s --check-prefix=TIMEOUT < %t/sm100a/manifest.json
//
// MANIFEST:      "program": "partial_sum",
// MANIFEST:      "mailboxes": [
// MANIFEST-NEXT:   {"id": 0, "name": "mb", "tp": 4, "capacity": 8, "width": 4096}
// MANIFEST:      "arguments": [
// MANIFEST-NEXT:   {"index": 0, "name": "partial", "kind": "buffer", "dtype": "bf16", "shape": [-1, 4096], "io": "in"},
// MANIFEST-NEXT:   {"index": 1, "name": "mb", "kind": "mailbox", "mailbox": 0},
// MANIFEST-NEXT:   {"index": 2, "name": "sum", "kind": "buffer", "dtype": "bf16", "shape": [-1, 4096], "io": "out"}
// MANIFEST:      "name": "all_reduce_0",
// MANIFEST-NEXT: "op": "all_reduce",
// 8 tokens x 512 fragments = 4096 work items: 32 CTAs of 128 threads.
// MANIFEST:      "grid": [32, 1, 1],
// MANIFEST-NEXT: "block": [128, 1, 1],
// MANIFEST:      "pdl": false,
// MANIFEST-NEXT: "mailbox_use": "poll",
// MANIFEST-NEXT: "attributes": {"sum_order": "pairwise", "timeout_ns": 5000000},
// MANIFEST-NEXT: "params": [
// MANIFEST-NEXT:   {"kind": "mailbox", "argument": 1, "size": 72, "align": 8},
// MANIFEST-NEXT:   {"kind": "buffer", "argument": 2, "io": "out", "size": 8, "align": 8, "role": "out"},
// MANIFEST-NEXT:   {"kind": "tokens", "size": 4, "align": 4}
// MANIFEST:      "launches": [
// MANIFEST-NEXT:   {"kernel": "publish_rows_0"},
// MANIFEST-NEXT:   {"kernel": "all_reduce_0"}
// MANIFEST-NEXT: ]
//
// PTX: .visible .entry all_reduce_0(
// PTX-NOT: griddepcontrol
// PTX: ld.volatile.global
// PTX: add.rn.f32
// PTX: cvt.rn.bf16{{(x2)?}}.f32
// PTX: %globaltimer
// PTX: trap;
//
// The op's timeout wins over --timeout-ns: 5 ms, not 2 ms, in the PTX and
// in the manifest's record of how long the kernel's polls wait.
// TIMEOUT: 5000000
// TIMEOUT-NOT: 2000000

!mb = !lamport.mailbox<tp = 4, capacity = 8, width = 4096>

func.func @partial_sum(%partial: memref<?x4096xbf16>, %mb: !mb,
                       %sum: memref<?x4096xbf16>) {
  lamport.publish_rows %partial into %mb : memref<?x4096xbf16>, !mb
  lamport.all_reduce %mb into %sum
      {sum_order = #lamport.sum_order<pairwise>, timeout_ns = 5000000 : i64}
      : !mb, memref<?x4096xbf16>
  return
}
