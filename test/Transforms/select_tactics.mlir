// RUN: lamport-opt %s --split-input-file --lamport-select-tactics="tactic-table=%S/Inputs/tactics_small.json" | FileCheck %s
// RUN: lamport-opt %s --split-input-file --lamport-select-tactics="tactic-table=%S/Inputs/tactics_small.json explain" --verify-diagnostics -o /dev/null
// RUN: lamport-opt %s --split-input-file --lamport-select-tactics="no-table" | FileCheck %s --check-prefix=MODEL
// RUN: lamport-opt %s --split-input-file --lamport-select-tactics="no-table candidates=3" | FileCheck %s --check-prefix=CANDIDATES

// lamport-select-tactics: each gemm_publish without tactics gets, per M,
// the table's entry (N, K, range of M, publishing or not, transport) or the
// cost model's pick; consecutive M with one tactic share it, with the token
// tiles of M 1..its last M (8 up to 8, 16 above).

// A dynamic M takes an entry per range: two tactics.
// CHECK-LABEL: func.func @table_dynamic
// CHECK: tactic(#lamport.tactic<splits = 1, kw = 128, accs = 2, min_ctas_per_sm = 1, early_dependents = true, token_tiles = [8, 8, 8, 8]>, #lamport.tactic<splits = 2, kw = 64, accs = 1, tiles = 2, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8, 16, 16, 16, 16, 16, 16, 16, 16]>)
// MODEL-LABEL: func.func @table_dynamic
// MODEL: tactic(#lamport.tactic<splits = 1, kw = 128,
// MODEL-SAME: token_tiles = [8, 8, 8, 8, 8, 8, 8, 8, 16, 16, 16, 16, 16, 16, 16, 16]>)
func.func @table_dynamic(%x: memref<?x4096xbf16>, %w: memref<1024x4096xbf16>,
                         %y: memref<?x1024xbf16>) {
  // expected-remark @+1 {{tactics for N = 1024, K = 4096: M 1..4 s1 kw128 a2 occ1 early from the table}}
  lamport.gemm_publish %x, %w into %y {pdl}
      : memref<?x4096xbf16>, memref<1024x4096xbf16>, memref<?x1024xbf16>
  return
}

// -----

// A static M needs only that M: one tactic, token tiles up to it.
// CHECK-LABEL: func.func @table_static
// CHECK: tactic(#lamport.tactic<splits = 2, kw = 64, accs = 1, tiles = 2, token_tiles = [8, 8, 8, 8, 8, 8]>)
// CANDIDATES-LABEL: func.func @table_static
// CANDIDATES: lamport.candidates = [#lamport.tactic<{{[^>]*}}token_tiles = [8, 8, 8, 8, 8, 8]>, #lamport.tactic<{{[^>]*}}>, #lamport.tactic<{{[^>]*}}>]
func.func @table_static(%x: memref<6x4096xbf16>, %w: memref<1024x4096xbf16>,
                        %y: memref<6x1024xbf16>) {
  // expected-remark @+1 {{M 6..6 s2 kw64 tiles2 a1 from the table}}
  lamport.gemm_publish %x, %w into %y
      : memref<6x4096xbf16>, memref<1024x4096xbf16>, memref<6x1024xbf16>
  return
}

// -----

// Publishing is part of the key, and so is the transport: the multicast
// entry does not serve a unicast publish, so the model chooses.
// CHECK-LABEL: func.func @publishing
// CHECK: tactic(#lamport.tactic<splits = 4, kw = 128, accs = 4, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8, 16, 16, 16, 16, 16, 16, 16, 16]>)
// CHECK-SAME: transport = #lamport.transport<multicast>
// CHECK: lamport.gemm_publish
// CHECK-NOT: splits = 4, kw = 128, accs = 4, token_tiles
// CHECK: return
func.func @publishing(%x: memref<?x4096xbf16>, %w: memref<1024x4096xbf16>,
                      %y: memref<?x1024xbf16>, %y2: memref<?x1024xbf16>,
                      %mb: !lamport.mailbox<tp = 8, capacity = 16, width = 1024>) {
  // expected-remark @+1 {{M 1..16 s4 kw128 a4 from the table}}
  lamport.gemm_publish %x, %w into %y
      mailbox %mb : !lamport.mailbox<tp = 8, capacity = 16, width = 1024>
      {transport = #lamport.transport<multicast>}
      : memref<?x4096xbf16>, memref<1024x4096xbf16>, memref<?x1024xbf16>
  // expected-remark-re @+1 {{from the cost model (no entry in the table {{.*}}/Inputs/tactics_small.json; estimate}}
  lamport.gemm_publish %x, %w into %y2
      mailbox %mb : !lamport.mailbox<tp = 8, capacity = 16, width = 1024>
      : memref<?x4096xbf16>, memref<1024x4096xbf16>, memref<?x1024xbf16>
  return
}

// -----

// Tactics written on the op always win, even where the table has an entry.
// CHECK-LABEL: func.func @written
// CHECK: tactic(#lamport.tactic<splits = 4, kw = 64, accs = 2, token_tiles = [8, 8]>)
func.func @written(%x: memref<2x4096xbf16>, %w: memref<1024x4096xbf16>,
                   %y: memref<2x1024xbf16>) {
  // expected-remark @+1 {{tactics written on the op: kept (the cost model's estimate for s4 kw64 a2 at M = 2:}}
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 4, kw = 64, accs = 2, token_tiles = [8, 8]>)
      : memref<2x4096xbf16>, memref<1024x4096xbf16>, memref<2x1024xbf16>
  return
}

// -----

// A written tactic of the bulk pipeline is kept too, with the bulk-stream
// family's estimate, and the remark names the ring.
// CHECK-LABEL: func.func @written_bulk
// CHECK: tactic(#lamport.tactic<splits = 1, kw = 256, accs = 2, passes = 2, pipeline = bulk, stages = 3, stage_bytes = 32768, producer_lanes = 16, token_tiles = [8, 8]>)
func.func @written_bulk(%x: memref<2x2048xbf16>, %w: memref<8192x2048xbf16>,
                        %y: memref<2x8192xbf16>) {
  // expected-remark @+1 {{tactics written on the op: kept (the cost model's estimate for s1 kw256 p2 a2 bulk 3 x 32 KiB, 16 lanes at M = 2:}}
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 256, accs = 2, passes = 2, pipeline = bulk, stages = 3, stage_bytes = 32768, producer_lanes = 16, token_tiles = [8, 8]>)
      : memref<2x2048xbf16>, memref<8192x2048xbf16>, memref<2x8192xbf16>
  return
}

// -----

// A table entry's `early_reads` comes with its tactic, and the remark says
// how many loads are read before the PDL wait.
// CHECK-LABEL: func.func @table_early_reads
// CHECK: tactic(#lamport.tactic<splits = 1, kw = 256, accs = 2, passes = 2, min_ctas_per_sm = 1, early_dependents = true, pipeline = bulk, stages = 3, stage_bytes = 32768, producer_lanes = 16, early_reads = 1, token_tiles = [8, 8, 8, 8]>)
func.func @table_early_reads(%x: memref<4x2048xbf16>, %w: memref<8192x2048xbf16>,
                             %y: memref<4x8192xbf16>) {
  // expected-remark @+1 {{tactics for N = 8192, K = 2048: M 4..4 s1 kw256 p2 a2 occ1 early bulk 3 x 32 KiB, 16 lanes, 1 read early from the table}}
  lamport.gemm_publish %x, %w into %y {pdl}
      : memref<4x2048xbf16>, memref<8192x2048xbf16>, memref<4x8192xbf16>
  return
}

// -----

// A written ring the bulk kernel refuses (17 stages) is kept, with no
// estimate: lamport-generate-kernels then says why it has no kernel.
// CHECK-LABEL: func.func @written_bulk_refused
// CHECK: tactic(#lamport.tactic<splits = 1, kw = 256, accs = 2, passes = 2, pipeline = bulk, stages = 17,
func.func @written_bulk_refused(%x: memref<2x2048xbf16>, %w: memref<8192x2048xbf16>,
                                %y: memref<2x8192xbf16>) {
  // expected-remark @+1 {{tactics written on the op: kept (the cost model has no estimate for s1 kw256 p2 a2 bulk 17 x 32 KiB: its kernel does not launch this shape, as lamport-generate-kernels will say)}}
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 256, accs = 2, passes = 2, pipeline = bulk, stages = 17, stage_bytes = 32768, token_tiles = [8, 8]>)
      : memref<2x2048xbf16>, memref<8192x2048xbf16>, memref<2x8192xbf16>
  return
}

// -----

// A shape no swept tactic launches still gets one: K = 7392 = 32 x 231
// takes a kw outside the sweep's 64 and 128 (672: 11 warps).
// MODEL-LABEL: func.func @odd_k
// MODEL: tactic(#lamport.tactic<splits = 1, kw = 672,
func.func @odd_k(%x: memref<?x7392xbf16>, %w: memref<8192x7392xbf16>,
                 %y: memref<?x8192xbf16>) {
  // expected-remark-re @+1 {{from the cost model (no entry in the table {{.*}}/Inputs/tactics_small.json; estimate}}
  lamport.gemm_publish %x, %w into %y
      : memref<?x7392xbf16>, memref<8192x7392xbf16>, memref<?x8192xbf16>
  return
}
