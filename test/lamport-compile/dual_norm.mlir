// REQUIRES: ptxas
// The standalone dual norm down to bundles for both chips: no mailbox, the
// all-reduced rows come in as a buffer. H = 12288 is 1536 fragments, one
// cluster of 8 CTAs of 128 threads per token, two fragments a thread (the
// second only where f < 1536); per-channel alpha, scalar
// beta, no post_weight. The PTX reduces each row over the cluster by
// sending each CTA's sum to every CTA (threads 0..7 one st.async each into
// distributed shared memory, an mbarrier per sum) and divides by H with div.rn (H is no power of
// two), never an approximate square root.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: lamport-compile %s -o %t/sm90
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/sm90/manifest.json
// RUN: FileCheck %s --check-prefix=PTX < %t/sm90/dual_norm_0.ptx
// RUN: test -s %t/sm90/dual_norm_0.cubin
// RUN: lamport-compile %s -o %t/sm100a --chip sm_100a
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/sm100a/manifest.json
// RUN: FileCheck %s --check-prefix=PTX < %t/sm100a/dual_norm_0.ptx
// RUN: test -s %t/sm100a/dual_norm_0.cubin
//
// MANIFEST:      "mailboxes": [],
// MANIFEST:      "arguments": [
// MANIFEST-NEXT:   {"index": 0, "name": "reduced", "kind": "buffer", "dtype": "bf16", "shape": [-1, 12288], "io": "in"},
// MANIFEST-NEXT:   {"index": 1, "name": "stream", "kind": "buffer", "dtype": "f32", "shape": [-1, 12288], "io": "inout"},
// MANIFEST-NEXT:   {"index": 2, "name": "alpha", "kind": "buffer", "dtype": "f32", "shape": [12288], "io": "in"},
// MANIFEST-NEXT:   {"index": 3, "name": "beta", "kind": "buffer", "dtype": "f32", "shape": [1], "io": "in"},
// MANIFEST-NEXT:   {"index": 4, "name": "next_weight", "kind": "buffer", "dtype": "bf16", "shape": [12288], "io": "in"},
// MANIFEST-NEXT:   {"index": 5, "name": "out", "kind": "buffer", "dtype": "bf16", "shape": [-1, 12288], "io": "out"}
// MANIFEST-NEXT: ],
// MANIFEST:      "name": "dual_norm_0",
// MANIFEST-NEXT: "op": "dual_norm",
// MANIFEST:      "grid": [16, 8, 1],
// MANIFEST-NEXT: "block": [128, 1, 1],
// MANIFEST-NEXT: "cluster": [1, 8, 1],
// MANIFEST-NEXT: "shared_bytes": 0,
// MANIFEST-NEXT: "pdl": true,
// MANIFEST-NEXT: "attributes": {"eps": 9.99999974{{[0-9]*}}e-06},
// MANIFEST-NEXT: "params": [
// MANIFEST-NEXT:   {"kind": "buffer", "argument": 0, "io": "in", "size": 8, "align": 8, "role": "reduced"},
// MANIFEST-NEXT:   {"kind": "buffer", "argument": 1, "io": "inout", "size": 8, "align": 8, "role": "stream"},
// MANIFEST-NEXT:   {"kind": "buffer", "argument": 2, "io": "in", "size": 8, "align": 8, "role": "alpha"},
// MANIFEST-NEXT:   {"kind": "buffer", "argument": 3, "io": "in", "size": 8, "align": 8, "role": "beta"},
// MANIFEST-NEXT:   {"kind": "buffer", "argument": 4, "io": "in", "size": 8, "align": 8, "role": "next_weight"},
// MANIFEST-NEXT:   {"kind": "buffer", "argument": 5, "io": "out", "size": 8, "align": 8, "role": "out"},
// MANIFEST-NEXT:   {"kind": "tokens", "size": 4, "align": 4}
// MANIFEST-NEXT: ]
//
// PTX:       .visible .entry dual_norm_0(
// PTX-NOT:   ld.volatile
// PTX:       fence.mbarrier_init.release.cluster;
// PTX:       barrier.cluster.arrive;
// The norm weights are loaded before the wait; the never-taken store (M >
// INT32_MAX) keeps ptxas from hoisting the wait above those loads.
// PTX:       ld.global.v4.b32
// PTX:       @never st.global.b32
// PTX-NEXT:  // end inline asm
// PTX-NEXT:  griddepcontrol.wait;
// PTX-NEXT:  barrier.cluster.wait;
// PTX:       griddepcontrol.launch_dependents;
// PTX-COUNT-5: shfl.sync.bfly.b32
// PTX:       bar.sync 0;
// PTX:       st.async.shared::cluster.mbarrier::complete_tx::bytes.b32
// PTX-NOT:   st.async
// PTX:       mbarrier.try_wait.parity.shared.b64
// PTX:       div.rn.f32 {{.*}}, 0f46400000;
// PTX-NEXT:  add.rn.f32
// PTX-NEXT:  sqrt.rn.f32
// PTX-NEXT:  {{div|rcp}}.rn.f32
// PTX-COUNT-5: shfl.sync.bfly.b32
// PTX:       st.async.shared::cluster.mbarrier::complete_tx::bytes.b32
// PTX-NOT:   st.async
// PTX:       mbarrier.try_wait.parity.shared.b64
// PTX:       div.rn.f32 {{.*}}, 0f46400000;
// PTX-NEXT:  add.rn.f32
// PTX-NEXT:  sqrt.rn.f32
// PTX-NEXT:  {{div|rcp}}.rn.f32
// PTX:       cvt.rn.bf16x2.f32
// PTX-NOT:   barrier.cluster
// PTX-NOT:   griddepcontrol.launch_dependents
// PTX-NOT:   approx
// PTX-NOT:   trap

func.func @post_attention_norm(
    %reduced: memref<?x12288xbf16>, %stream: memref<?x12288xf32>,
    %alpha: memref<12288xf32>, %beta: memref<1xf32>,
    %next_weight: memref<12288xbf16>, %out: memref<?x12288xbf16>) {
  lamport.dual_norm %reduced, %stream gates(%alpha, %beta)
      next_weight %next_weight into %out {eps = 1.0e-05 : f32, pdl}
      : memref<?x12288xbf16>, memref<?x12288xf32>, memref<12288xf32>,
        memref<1xf32>, memref<12288xbf16>, memref<?x12288xbf16>
  return
}
