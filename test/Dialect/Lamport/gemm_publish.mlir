// RUN: lamport-opt %s -split-input-file | FileCheck %s
// RUN: lamport-opt %s -split-input-file | lamport-opt -split-input-file | FileCheck %s
// RUN: lamport-opt %s -split-input-file --mlir-print-op-generic | lamport-opt -split-input-file | FileCheck %s

// Round trip of lamport.gemm_publish: the plain GEMM, the GEMM that
// publishes into a mailbox (with a transport, with a ticket stage), and the
// tactic attribute it carries.

// The plain small-M GEMM: no mailbox, so M goes up to 16.
// CHECK-LABEL: func.func @gemm
// CHECK-SAME: (%[[X:[a-z0-9]+]]: memref<?x4096xbf16>, %[[W:[a-z0-9]+]]: memref<512x4096xbf16>, %[[Y:[a-z0-9]+]]: memref<?x512xbf16>)
// CHECK: lamport.gemm_publish %[[X]], %[[W]] into %[[Y]] tactic(#lamport.tactic<splits = 8, kw = 64, accs = 4, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8, 16, 16, 16, 16, 16, 16, 16, 16]>) : memref<?x4096xbf16>, memref<512x4096xbf16>, memref<?x512xbf16>
func.func @gemm(%x: memref<?x4096xbf16>, %w: memref<512x4096xbf16>,
                %y: memref<?x512xbf16>) {
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 8, kw = 64, accs = 4,
          token_tiles = [8, 8, 8, 8, 8, 8, 8, 8,
                         16, 16, 16, 16, 16, 16, 16, 16]>)
      : memref<?x4096xbf16>, memref<512x4096xbf16>, memref<?x512xbf16>
  return
}

// -----

// The unpooler at tp = 8: a column block published zero-copy.
// CHECK: !mailbox_tp8_c16_w1024 = !lamport.mailbox<tp = 8, capacity = 16, width = 1024>
// CHECK-LABEL: func.func @gemm_publish
// CHECK-SAME: (%[[X:[a-z0-9]+]]: memref<?x4096xbf16>, %[[W:[a-z0-9]+]]: memref<1024x4096xbf16>, %[[Y:[a-z0-9]+]]: memref<?x1024xbf16>, %[[MB:[a-z0-9]+]]: !mailbox_tp8_c16_w1024)
// CHECK: lamport.gemm_publish %[[X]], %[[W]] into %[[Y]] mailbox %[[MB]] : !mailbox_tp8_c16_w1024 tactic(#lamport.tactic<splits = 4, kw = 64, accs = 2, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8, 16, 16, 16, 16, 16, 16, 16, 16]>) {pdl, transport = #lamport.transport<multicast>} : memref<?x4096xbf16>, memref<1024x4096xbf16>, memref<?x1024xbf16>
func.func @gemm_publish(%x: memref<?x4096xbf16>, %w: memref<1024x4096xbf16>,
                        %y: memref<?x1024xbf16>,
                        %mb: !lamport.mailbox<tp = 8, capacity = 16, width = 1024>) {
  lamport.gemm_publish %x, %w into %y
      mailbox %mb : !lamport.mailbox<tp = 8, capacity = 16, width = 1024>
      tactic(#lamport.tactic<splits = 4, kw = 64, accs = 2,
          token_tiles = [8, 8, 8, 8, 8, 8, 8, 8,
                         16, 16, 16, 16, 16, 16, 16, 16]>)
      {pdl, transport = #lamport.transport<multicast>}
      : memref<?x4096xbf16>, memref<1024x4096xbf16>, memref<?x1024xbf16>
  return
}

// -----

// With a ticket the stage comes from the ticket word. A mailbox of capacity
// 4 caps M at 4, so four token tiles suffice.
// CHECK: !mailbox_tp8_c4_w8192 = !lamport.mailbox<tp = 8, capacity = 4, width = 8192>
// CHECK-LABEL: func.func @gemm_publish_ticket
// CHECK-SAME: (%[[X:[a-z0-9]+]]: memref<4x1024xbf16>, %[[W:[a-z0-9]+]]: memref<8192x1024xbf16>, %[[Y:[a-z0-9]+]]: memref<4x8192xbf16>, %[[MB:[a-z0-9]+]]: !mailbox_tp8_c4_w8192, %[[T:[a-z0-9]+]]: memref<1xi32>)
// CHECK: lamport.gemm_publish %[[X]], %[[W]] into %[[Y]] mailbox %[[MB]] : !mailbox_tp8_c4_w8192 ticket %[[T]] : memref<1xi32> tactic(#lamport.tactic<splits = 1, kw = 64, accs = 1, token_tiles = [8, 8, 8, 8]>) {transport = #lamport.transport<unicast>} : memref<4x1024xbf16>, memref<8192x1024xbf16>, memref<4x8192xbf16>
func.func @gemm_publish_ticket(
    %x: memref<4x1024xbf16>, %w: memref<8192x1024xbf16>,
    %y: memref<4x8192xbf16>,
    %mb: !lamport.mailbox<tp = 8, capacity = 4, width = 8192>,
    %ticket: memref<1xi32>) {
  lamport.gemm_publish %x, %w into %y
      mailbox %mb : !lamport.mailbox<tp = 8, capacity = 4, width = 8192>
      ticket %ticket : memref<1xi32>
      tactic(#lamport.tactic<splits = 1, kw = 64, accs = 1,
          token_tiles = [8, 8, 8, 8]>)
      {transport = #lamport.transport<unicast>}
      : memref<4x1024xbf16>, memref<8192x1024xbf16>, memref<4x8192xbf16>
  return
}

// -----

// The edges of the launch rules: one warp per CTA (K = splits * kw) and the
// most warps (32), with 16 token tiles for every M.
// CHECK-LABEL: func.func @gemm_launch_edges
// CHECK: lamport.gemm_publish %{{.*}}, %{{.*}} into %{{.*}} tactic(#lamport.tactic<splits = 2, kw = 16, accs = 1, token_tiles = [16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16]>) : memref<1x32xbf16>, memref<16x32xbf16>, memref<1x16xbf16>
// CHECK: lamport.gemm_publish %{{.*}}, %{{.*}} into %{{.*}} tactic(#lamport.tactic<splits = 1, kw = 128, accs = 2, token_tiles = [16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16]>) : memref<16x4096xbf16>, memref<32x4096xbf16>, memref<16x32xbf16>
func.func @gemm_launch_edges(%x1: memref<1x32xbf16>, %w1: memref<16x32xbf16>,
                             %y1: memref<1x16xbf16>,
                             %x2: memref<16x4096xbf16>,
                             %w2: memref<32x4096xbf16>,
                             %y2: memref<16x32xbf16>) {
  lamport.gemm_publish %x1, %w1 into %y1
      tactic(#lamport.tactic<splits = 2, kw = 16, accs = 1,
          token_tiles = [16, 16, 16, 16, 16, 16, 16, 16,
                         16, 16, 16, 16, 16, 16, 16, 16]>)
      : memref<1x32xbf16>, memref<16x32xbf16>, memref<1x16xbf16>
  lamport.gemm_publish %x2, %w2 into %y2
      tactic(#lamport.tactic<splits = 1, kw = 128, accs = 2,
          token_tiles = [16, 16, 16, 16, 16, 16, 16, 16,
                         16, 16, 16, 16, 16, 16, 16, 16]>)
      : memref<16x4096xbf16>, memref<32x4096xbf16>, memref<16x32xbf16>
  return
}

// -----

// Several tiles of 16 features per CTA: the o_proj shape with 2 tiles (256
// CTAs of 32 features), and the smallest weight 4 tiles launch (one CTA of
// 64 features).
// CHECK-LABEL: func.func @gemm_tiles
// CHECK: lamport.gemm_publish %{{.*}}, %{{.*}} into %{{.*}} tactic(#lamport.tactic<splits = 1, kw = 128, accs = 2, tiles = 2, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8, 16, 16, 16, 16, 16, 16, 16, 16]>) {pdl} : memref<?x2048xbf16>, memref<8192x2048xbf16>, memref<?x8192xbf16>
// CHECK: lamport.gemm_publish %{{.*}}, %{{.*}} into %{{.*}} tactic(#lamport.tactic<splits = 1, kw = 32, accs = 1, tiles = 4, token_tiles = [16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16]>) : memref<1x32xbf16>, memref<64x32xbf16>, memref<1x64xbf16>
func.func @gemm_tiles(%x1: memref<?x2048xbf16>, %w1: memref<8192x2048xbf16>,
                      %y1: memref<?x8192xbf16>, %x2: memref<1x32xbf16>,
                      %w2: memref<64x32xbf16>, %y2: memref<1x64xbf16>) {
  lamport.gemm_publish %x1, %w1 into %y1
      tactic(#lamport.tactic<splits = 1, kw = 128, accs = 2, tiles = 2,
          token_tiles = [8, 8, 8, 8, 8, 8, 8, 8,
                         16, 16, 16, 16, 16, 16, 16, 16]>) {pdl}
      : memref<?x2048xbf16>, memref<8192x2048xbf16>, memref<?x8192xbf16>
  lamport.gemm_publish %x2, %w2 into %y2
      tactic(#lamport.tactic<splits = 1, kw = 32, accs = 1, tiles = 4,
          token_tiles = [16, 16, 16, 16, 16, 16, 16, 16,
                         16, 16, 16, 16, 16, 16, 16, 16]>)
      : memref<1x32xbf16>, memref<64x32xbf16>, memref<1x64xbf16>
  return
}

// -----

// Several tactics split M between them, printed as the list they were
// written as: the first serves M = 1..4, the second 5..8, the third 9..16.

// CHECK-LABEL: func.func @gemm_tactic_per_m
// CHECK: tactic(#lamport.tactic<splits = 1, kw = 128, accs = 2, token_tiles = [8, 8, 8, 8]>, #lamport.tactic<splits = 2, kw = 64, accs = 4, early_dependents = true, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>, #lamport.tactic<splits = 2, kw = 128, accs = 1, min_ctas_per_sm = 1, token_tiles = [16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16]>)
func.func @gemm_tactic_per_m(%x: memref<?x4096xbf16>,
                             %w: memref<1024x4096xbf16>,
                             %y: memref<?x1024xbf16>) {
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 128, accs = 2,
                             token_tiles = [8, 8, 8, 8]>,
             #lamport.tactic<splits = 2, kw = 64, accs = 4,
                             early_dependents = true,
                             token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
             #lamport.tactic<splits = 2, kw = 128, accs = 1,
                             min_ctas_per_sm = 1,
                             token_tiles = [16, 16, 16, 16, 16, 16, 16, 16,
                                            16, 16, 16, 16, 16, 16, 16, 16]>)
      : memref<?x4096xbf16>, memref<1024x4096xbf16>, memref<?x1024xbf16>
  return
}

// -----

// With a static M (x and y of 2 rows, no mailbox) the tactic covers that M
// alone: token tiles for M 1..2, not 1..16.
// CHECK-LABEL: func.func @static_m
// CHECK: tactic(#lamport.tactic<splits = 1, kw = 64, accs = 2, token_tiles = [8, 8]>)
func.func @static_m(%x: memref<2x1024xbf16>, %w: memref<8192x1024xbf16>,
                    %y: memref<2x8192xbf16>) {
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 64, accs = 2,
          token_tiles = [8, 8]>)
      : memref<2x1024xbf16>, memref<8192x1024xbf16>, memref<2x8192xbf16>
  return
}

// -----

// A static M may keep tactics for larger M (a program written for several
// batch sizes): they serve M past the first tactic's, up to the op's bound,
// and only the one serving the static M is generated.
// CHECK-LABEL: func.func @static_m_several_tactics
// CHECK: tactic(#lamport.tactic<splits = 1, kw = 64, accs = 2, token_tiles = [8]>, #lamport.tactic<splits = 2, kw = 64, accs = 2, token_tiles = [8, 8, 8, 8, 8, 8, 8, 8, 16, 16, 16, 16, 16, 16, 16, 16]>)
func.func @static_m_several_tactics(%x: memref<1x1024xbf16>,
                                    %w: memref<8192x1024xbf16>,
                                    %y: memref<1x8192xbf16>) {
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 64, accs = 2, token_tiles = [8]>,
             #lamport.tactic<splits = 2, kw = 64, accs = 2,
                 token_tiles = [8, 8, 8, 8, 8, 8, 8, 8,
                                16, 16, 16, 16, 16, 16, 16, 16]>)
      : memref<1x1024xbf16>, memref<8192x1024xbf16>, memref<1x8192xbf16>
  return
}

// -----

// tactic(...) may be left out: the op is a complete program, and
// lamport-select-tactics gives it tactics before kernel generation. It
// prints without the group.
// CHECK-LABEL: func.func @no_tactics
// CHECK: lamport.gemm_publish %{{.*}}, %{{.*}} into %{{.*}} mailbox %{{.*}} : !mailbox_tp8_c16_w8192 {pdl} : memref<?x1024xbf16>, memref<8192x1024xbf16>, memref<?x8192xbf16>
func.func @no_tactics(%x: memref<?x1024xbf16>, %w: memref<8192x1024xbf16>,
                      %y: memref<?x8192xbf16>,
                      %mb: !lamport.mailbox<tp = 8, capacity = 16, width = 8192>) {
  lamport.gemm_publish %x, %w into %y
      mailbox %mb : !lamport.mailbox<tp = 8, capacity = 16, width = 8192>
      {pdl}
      : memref<?x1024xbf16>, memref<8192x1024xbf16>, memref<?x8192xbf16>
  return
}
