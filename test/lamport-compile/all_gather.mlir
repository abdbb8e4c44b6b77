// REQUIRES: ptxas
// The column all-gather behind a publisher, tp = 8, width 1024 (the
// unpooler's column blocks), for both chips: the manifest binds the
// gathered row as the kernel's "out"; the consumer's PTX waits on the
// previous kernel first, polls one fragment of its owner's slot with the
// op's deadline, re-arms exactly that fragment with the sentinel, stores it
// to out and lets the next kernel start last.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: lamport-compile %s -o %t/sm90
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/sm90/manifest.json
// RUN: FileCheck %s --check-prefixes=PTX,SM90 < %t/sm90/all_gather_0.ptx
// RUN: test -s %t/sm90/publish_rows_0.cubin
// RUN: test -s %t/sm90/all_gather_0.cubin
// RUN: lamport-compile %s -o %t/sm100a --chip sm_100a
// RUN: FileCheck %s --check-prefix=MANIFEST100 < %t/sm100a/manifest.json
// RUN: FileCheck %s --check-prefixes=PTX,SM100A < %t/sm100a/all_gather_0.ptx
// RUN: test -s %t/sm100a/all_gather_0.cubin
//
// MANIFEST:      "program": "gather",
// MANIFEST:      "mailboxes": [
// MANIFEST-NEXT:   {"id": 0, "name": "mb", "tp": 8, "capacity": 16, "width": 1024}
// MANIFEST:      "arguments": [
// MANIFEST-NEXT:   {"index": 0, "name": "y", "kind": "buffer", "dtype": "bf16", "shape": [-1, 1024], "io": "in"},
// MANIFEST-NEXT:   {"index": 1, "name": "mb", "kind": "mailbox", "mailbox": 0},
// MANIFEST-NEXT:   {"index": 2, "name": "out", "kind": "buffer", "dtype": "bf16", "shape": [-1, 8192], "io": "out"}
// MANIFEST:      "name": "all_gather_0",
// MANIFEST-NEXT: "op": "all_gather",
// MANIFEST-NEXT: "ptx": "all_gather_0.ptx",
// MANIFEST-NEXT: "cubin": "all_gather_0.cubin",
// 16 tokens x 1024 fragments of the gathered row = 16384 work items: the
// 128-CTA cap of 128 threads, a grid-stride loop for the rest.
// MANIFEST-NEXT: "grid": [128, 1, 1],
// MANIFEST-NEXT: "block": [128, 1, 1],
// MANIFEST-NEXT: "cluster": [1, 1, 1],
// MANIFEST-NEXT: "shared_bytes": 0,
// MANIFEST-NEXT: "pdl": true,
// MANIFEST-NEXT: "mailbox_use": "poll",
// MANIFEST-NEXT: "attributes": {"timeout_ns": 50000},
// MANIFEST-NEXT: "params": [
// MANIFEST-NEXT:   {"kind": "mailbox", "argument": 1, "size": 104, "align": 8},
// MANIFEST-NEXT:   {"kind": "buffer", "argument": 2, "io": "out", "size": 8, "align": 8, "role": "out"},
// MANIFEST-NEXT:   {"kind": "tokens", "size": 4, "align": 4}
// MANIFEST-NEXT: ]
// MANIFEST:      "launches": [
// MANIFEST-NEXT:   {"kernel": "publish_rows_0"},
// MANIFEST-NEXT:   {"kernel": "all_gather_0"}
// MANIFEST-NEXT: ]
//
// MANIFEST100: "chip": "sm_100a",
// MANIFEST100: "name": "all_gather_0",
//
// PTX:      .visible .entry all_gather_0(
// PTX-NEXT: .param .align 8 .b8 all_gather_0_param_0[104],
// PTX-NEXT: .param .u64 .ptr .global .align 1 all_gather_0_param_1,
// PTX-NEXT: .param .u32 all_gather_0_param_2
// PTX-NOT:  1000000000
// The override of the polls' timeout, read before the PDL wait.
// PTX:      ld.global.b64 %rd[[OVERRIDE:[0-9]+]], [lamport_poll_timeout_ns];
// PTX:      griddepcontrol.wait;
// One volatile 16-byte load of the owner's fragment (sm_100a spells it
// v2.b64), loaded again into the same registers while it holds a sentinel
// lane; the op's 50 us arm the deadline, not the 1 s default, unless the
// host set the module's override.
// PTX:      ld.volatile.global.{{v4.b32|v2.b64}} {[[FRAGMENT:[^}]+]]}, [%rd[[ADDRESS:[0-9]+]]];
// PTX:      selp.b64 %rd[[TIMEOUT:[0-9]+]], 50000, %rd[[OVERRIDE]],
// PTX:      %globaltimer
// PTX:      add.s64 {{.*}}, %rd[[TIMEOUT]];
// PTX:      ld.volatile.global.{{v4.b32|v2.b64}} {[[FRAGMENT]]}, [%rd[[ADDRESS]]];
// The re-arm of exactly that fragment: the sentinel over its address.
// SM90:        st.global.v4.b32 [%rd[[ADDRESS]]], {-2147450880, -2147450880, -2147450880, -2147450880};
// SM100A:      mov.b32 %r[[HALF:[0-9]+]], -2147450880;
// SM100A-NEXT: mov.b64 %rd[[SENTINEL:[0-9]+]], {%r[[HALF]], %r[[HALF]]};
// SM100A-NEXT: st.global.v2.b64 [%rd[[ADDRESS]]], {%rd[[SENTINEL]], %rd[[SENTINEL]]};
// Then the fragment into out, the one store of it.
// PTX:      st.global.{{v4.b32|v2.b64}} [%rd{{[0-9]+}}], {[[FRAGMENT]]};
// PTX-NOT:  st.global.{{v4.b32|v2.b64}}
// PTX:      griddepcontrol.launch_dependents;
// PTX-NEXT: ret;
// PTX-NOT:  griddepcontrol
// PTX:      trap;
// PTX-NOT:  1000000000

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 1024>

func.func @gather(%y: memref<?x1024xbf16>, %mb: !mb,
                  %out: memref<?x8192xbf16>) {
  lamport.publish_rows %y into %mb {pdl} : memref<?x1024xbf16>, !mb
  lamport.all_gather %mb into %out {timeout_ns = 50000 : i64, pdl}
      : !mb, memref<?x8192xbf16>
  return
}
