// REQUIRES: ptxas
// `pipeline = bulk`: the weights reach shared memory by the bulk-copy
// engine. Unpooler at tp = 4, M = 16, two splits, two tiles: each stage is
// 32 rows x 1024 K (64 KiB), rows of 2 KiB, one copy per row, issued by all
// 32 producer lanes in one instruction, so the CTA's two stages (its whole
// share of 128 KiB) are two copy instructions, each after the producer's
// arrival expecting the stage's bytes, all before griddepcontrol.wait. One
// pass, and a stage's fragments take 32 registers (2 chunks x 2 tiles x
// 2 rows x 4 words), so both stages are waited for and read (8 16-byte
// shared loads each: chunks x tiles x rows) before griddepcontrol.wait
// too; x loads after it (2 token blocks x 4 chunks of 16 bytes), then the
// MMAs (2 token blocks x 2 tiles x 2 steps x 4 chunks).
// The ring (2 x 32 x (2048 + 64) bytes) and the reduction ((16 + 2) x 16 x
// 32 x 4) are the launch's dynamic shared memory. Each assembles with
// ptxas, on both chips.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: lamport-compile %s --program rows -o %t/rows_sm90 --protocol-check=false
// RUN: FileCheck %s --check-prefix=ROWS < %t/rows_sm90/gemm_publish_0.ptx
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/rows_sm90/manifest.json
// RUN: test -s %t/rows_sm90/gemm_publish_0.cubin
// RUN: lamport-compile %s --program rows -o %t/rows_sm100a --chip sm_100a --protocol-check=false
// RUN: FileCheck %s --check-prefix=ROWS < %t/rows_sm100a/gemm_publish_0.ptx
// RUN: test -s %t/rows_sm100a/gemm_publish_0.cubin
//
// ROWS:            .extern .shared .align 16 .b8 ring[];
// ROWS:            .visible .entry gemm_publish_0(
// ROWS-NOT:        .param .align 64
// ROWS-COUNT-4:    mbarrier.init.shared.b64 [ring_
// ROWS:            bar.sync 0;
// ROWS-NOT:        ld.global
// ROWS-COUNT-2:    cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint
// ROWS-NOT:        cp.async.bulk
// ROWS:            mbarrier.try_wait.parity.shared.b64
// ROWS-COUNT-8:    ld.shared.v{{4.b32|2.b64}}
// ROWS:            mbarrier.try_wait.parity.shared.b64
// ROWS-COUNT-8:    ld.shared.v{{4.b32|2.b64}}
// ROWS-NOT:        mma.sync
// ROWS:            griddepcontrol.wait;
// ROWS-NOT:        mbarrier.try_wait
// ROWS:            ld.volatile.global.b32
// ROWS-COUNT-8:    ld.global.v{{4.b32|2.b64}}
// ROWS-NOT:        ld.global
// ROWS-NOT:        mbarrier.try_wait
// ROWS-COUNT-32:   mma.sync.aligned.m16n8k16
// ROWS-NOT:        cp.async.bulk
// ROWS:            st.async.shared::cluster
// ROWS:            ret;
//
// MANIFEST:        "shared_bytes": 172032,
// MANIFEST:        "stage_k": 1024
// MANIFEST-NOT:    tensor_map
//
// The same with two stages of 32 KiB: rows of 1 KiB, shorter than the
// 2 KiB from which row copies stream as fast as tensor copies, and four
// loads through two slots, so the CTA streams and each stage is filled by
// tensor copies instead: boxes of 256 K x the 32 rows through the weight's
// tensor map (a 64-byte aligned kernel parameter the runtime encodes,
// addressed in place and prefetched before the ring's set-up), two a
// stage, one from each of two producer lanes. Two stages' copies go before
// the wait, the other two after the MMAs of the loads before them. The
// slots hold the boxes densely (2 x 32 KiB, 128-byte aligned), and the
// manifest lists the tensor map of the weight (argument 1) after the
// buffers.
// RUN: lamport-compile %s --program boxes -o %t/boxes_sm90 --protocol-check=false --bulk-copies=auto
// RUN: FileCheck %s --check-prefix=BOXES < %t/boxes_sm90/gemm_publish_1.ptx
// RUN: FileCheck %s --check-prefix=BOXMANIFEST < %t/boxes_sm90/manifest.json
// RUN: test -s %t/boxes_sm90/gemm_publish_1.cubin
// RUN: lamport-compile %s --program boxes -o %t/boxes_sm100a --chip sm_100a --protocol-check=false --bulk-copies=auto
// RUN: FileCheck %s --check-prefix=BOXES < %t/boxes_sm100a/gemm_publish_1.ptx
// RUN: test -s %t/boxes_sm100a/gemm_publish_1.cubin
//
// With --bulk-copies=rows the same program takes one copy a row and no
// tensor map; without the option it takes the boxes (auto is the default).
// RUN: lamport-compile %s --program boxes -o %t/boxes_rows --protocol-check=false --bulk-copies=rows
// RUN: FileCheck %s --check-prefix=ROWMANIFEST < %t/boxes_rows/manifest.json
// RUN: lamport-compile %s --program boxes -o %t/boxes_default --protocol-check=false
// RUN: FileCheck %s --check-prefix=BOXMANIFEST < %t/boxes_default/manifest.json
// ROWMANIFEST:     "shared_bytes":
// ROWMANIFEST-NOT: tensor_map
//
// BOXES:           .extern .shared .align 128 .b8 ring[];
// BOXES:           .visible .entry gemm_publish_1(
// BOXES:           .param .align 64 .b8 gemm_publish_1_param_4[128],
// BOXES:           cvta.param.u64
// BOXES:           prefetch.tensormap
// BOXES:           bar.sync 0;
// BOXES-COUNT-2:   cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.L2::cache_hint
// BOXES-NOT:       cp.async.bulk
// BOXES:           griddepcontrol.wait;
// BOXES:           mma.sync.aligned.m16n8k16
// BOXES:           cp.async.bulk.tensor.2d
// BOXES:           cp.async.bulk.tensor.2d
// BOXES-NOT:       cp.async.bulk
// BOXES:           ret;
//
// BOXMANIFEST:     "shared_bytes": 102400,
// BOXMANIFEST:     "stage_k": 512
// BOXMANIFEST:     {"kind": "tensor_map", "argument": 1, "size": 128, "align": 64, "box": [256, 32]},
//
// O_proj at tp = 16, M = 8, one split, four passes: a stage is the block's
// 16 whole rows (16 KiB, contiguous: one copy) and the ring has two, so
// two loads go before the wait and each later one after the MMAs of the
// load before it, once every thread released its slot. With several
// passes no stage is read before the wait. The refill is an
// async-proxy write after the consumers' generic reads of the slot: each
// release takes the proxy fence first.
// RUN: lamport-compile %s --program refills -o %t/refills_sm90 --protocol-check=false
// RUN: FileCheck %s --check-prefix=REFILLS < %t/refills_sm90/gemm_publish_2.ptx
// RUN: test -s %t/refills_sm90/gemm_publish_2.cubin
// RUN: lamport-compile %s --program refills -o %t/refills_sm100a --chip sm_100a --protocol-check=false
// RUN: test -s %t/refills_sm100a/gemm_publish_2.cubin
//
// REFILLS:         .visible .entry gemm_publish_2(
// REFILLS-COUNT-2: cp.async.bulk.shared::cluster.global
// REFILLS-NOT:     cp.async.bulk
// REFILLS-NOT:     mbarrier.try_wait
// REFILLS:         griddepcontrol.wait;
// REFILLS:         mbarrier.try_wait.parity.shared.b64
// REFILLS:         fence.proxy.async.shared::cta;
// REFILLS-NEXT:    mbarrier.arrive.shared.b64
// REFILLS:         fence.proxy.async.shared::cta;
// REFILLS-NEXT:    mbarrier.arrive.shared.b64
// REFILLS-NOT:     mbarrier.arrive.shared.b64
// REFILLS:         mbarrier.try_wait.parity.shared.b64
// REFILLS:         mbarrier.arrive.expect_tx.shared.b64
// REFILLS:         cp.async.bulk.shared::cluster.global
// REFILLS:         mbarrier.arrive.expect_tx.shared.b64
// REFILLS:         cp.async.bulk.shared::cluster.global
// REFILLS-NOT:     cp.async.bulk
// REFILLS:         ret;
//
// The same with `early_reads = 1`: the first load is waited for, read (2
// chunks x 2 rows: 4 shared loads) and released (its slot is refilled by
// the third load) before griddepcontrol.wait; the second after it; the
// refills still follow the MMAs of the load before them, after the wait.
// RUN: lamport-compile %s --program early_refills -o %t/early_sm90 --protocol-check=false
// RUN: FileCheck %s --check-prefix=EARLY < %t/early_sm90/gemm_publish_3.ptx
// RUN: test -s %t/early_sm90/gemm_publish_3.cubin
// RUN: lamport-compile %s --program early_refills -o %t/early_sm100a --chip sm_100a --protocol-check=false
// RUN: test -s %t/early_sm100a/gemm_publish_3.cubin
//
// EARLY:           .visible .entry gemm_publish_3(
// EARLY-COUNT-2:   cp.async.bulk.shared::cluster.global
// EARLY-NOT:       cp.async.bulk
// EARLY:           mbarrier.try_wait.parity.shared.b64
// EARLY-COUNT-4:   ld.shared.v{{4.b32|2.b64}}
// EARLY:           fence.proxy.async.shared::cta;
// EARLY-NEXT:      mbarrier.arrive.shared.b64
// EARLY-NOT:       mbarrier.try_wait
// EARLY-NOT:       cp.async.bulk
// EARLY:           griddepcontrol.wait;
// EARLY:           mbarrier.try_wait.parity.shared.b64
// EARLY:           cp.async.bulk.shared::cluster.global
// EARLY:           cp.async.bulk.shared::cluster.global
// EARLY-NOT:       cp.async.bulk
// EARLY:           ret;
//
// And `early_reads = 0` keeps a one-pass CTA (the rows program's tactic)
// from reading its ring before the wait.
// RUN: lamport-compile %s --program late_rows -o %t/late_sm90 --protocol-check=false
// RUN: FileCheck %s --check-prefix=LATE < %t/late_sm90/gemm_publish_4.ptx
//
// LATE:            .visible .entry gemm_publish_4(
// LATE-COUNT-2:    cp.async.bulk.shared::cluster.global
// LATE-NOT:        mbarrier.try_wait
// LATE-NOT:        ld.shared.v
// LATE:            griddepcontrol.wait;
// LATE:            mbarrier.try_wait.parity.shared.b64
// LATE:            ret;

func.func @rows(%x: memref<16x4096xbf16>, %w: memref<2048x4096xbf16>,
                %y: memref<16x2048xbf16>,
                %mb: !lamport.mailbox<tp = 4, capacity = 16, width = 2048>) {
  lamport.gemm_publish %x, %w into %y
      mailbox %mb : !lamport.mailbox<tp = 4, capacity = 16, width = 2048>
      tactic(#lamport.tactic<splits = 2, kw = 128, accs = 1, tiles = 2,
          min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk,
          stages = 2, stage_bytes = 65536, producer_lanes = 32,
          token_tiles = [8, 8, 8, 8, 8, 8, 8, 8,
                         16, 16, 16, 16, 16, 16, 16, 16]>) {pdl}
      : memref<16x4096xbf16>, memref<2048x4096xbf16>, memref<16x2048xbf16>
  return
}

func.func @boxes(%x: memref<16x4096xbf16>, %w: memref<2048x4096xbf16>,
                %y: memref<16x2048xbf16>,
                %mb: !lamport.mailbox<tp = 4, capacity = 16, width = 2048>) {
  lamport.gemm_publish %x, %w into %y
      mailbox %mb : !lamport.mailbox<tp = 4, capacity = 16, width = 2048>
      tactic(#lamport.tactic<splits = 2, kw = 128, accs = 1, tiles = 2,
          min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk,
          stages = 2, stage_bytes = 32768, producer_lanes = 32,
          token_tiles = [8, 8, 8, 8, 8, 8, 8, 8,
                         16, 16, 16, 16, 16, 16, 16, 16]>) {pdl}
      : memref<16x4096xbf16>, memref<2048x4096xbf16>, memref<16x2048xbf16>
  return
}

func.func @refills(%x: memref<8x512xbf16>, %w: memref<8192x512xbf16>,
                   %y: memref<8x8192xbf16>) {
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 64, accs = 2, passes = 4,
          early_dependents = true, pipeline = bulk, stages = 2,
          token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>) {pdl}
      : memref<8x512xbf16>, memref<8192x512xbf16>, memref<8x8192xbf16>
  return
}

func.func @early_refills(%x: memref<8x512xbf16>, %w: memref<8192x512xbf16>,
                         %y: memref<8x8192xbf16>) {
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 64, accs = 2, passes = 4,
          early_dependents = true, pipeline = bulk, stages = 2,
          early_reads = 1, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>) {pdl}
      : memref<8x512xbf16>, memref<8192x512xbf16>, memref<8x8192xbf16>
  return
}

func.func @late_rows(%x: memref<16x4096xbf16>, %w: memref<2048x4096xbf16>,
                     %y: memref<16x2048xbf16>) {
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 2, kw = 128, accs = 1, tiles = 2,
          min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk,
          stages = 2, stage_bytes = 65536, producer_lanes = 32,
          early_reads = 0, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8,
                                          16, 16, 16, 16, 16, 16, 16, 16]>) {pdl}
      : memref<16x4096xbf16>, memref<2048x4096xbf16>, memref<16x2048xbf16>
  return
}
