// RUN: lamport-opt %s -split-input-file -verify-diagnostics

// Every rule of lamport.gemm_publish's verifier: operand shapes, the
// mailbox and ticket, the launch rules of the tactic (the seeds'
// launch_unsupported, and the tiles of 16 features per CTA), the token count
// and the token tiles; and the element types ODS checks.

func.func @weight_dynamic(%x: memref<?x1024xbf16>, %w: memref<?x1024xbf16>,
                          %y: memref<?x8192xbf16>) {
  // expected-error @+1 {{'lamport.gemm_publish' op the weight must have a static [N, K] shape, got 'memref<?x1024xbf16>'}}
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 64, accs = 2, token_tiles = [8]>)
      : memref<?x1024xbf16>, memref<?x1024xbf16>, memref<?x8192xbf16>
  return
}

// -----

func.func @x_k_mismatch(%x: memref<?x2048xbf16>, %w: memref<8192x1024xbf16>,
                        %y: memref<?x8192xbf16>) {
  // expected-error @+1 {{'lamport.gemm_publish' op x 'memref<?x2048xbf16>' must be [M, K] with K = 1024 (the weight's K)}}
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 64, accs = 2, token_tiles = [8]>)
      : memref<?x2048xbf16>, memref<8192x1024xbf16>, memref<?x8192xbf16>
  return
}

// -----

func.func @x_k_dynamic(%x: memref<?x?xbf16>, %w: memref<8192x1024xbf16>,
                       %y: memref<?x8192xbf16>) {
  // expected-error @+1 {{'lamport.gemm_publish' op x 'memref<?x?xbf16>' must be [M, K] with K = 1024 (the weight's K)}}
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 64, accs = 2, token_tiles = [8]>)
      : memref<?x?xbf16>, memref<8192x1024xbf16>, memref<?x8192xbf16>
  return
}

// -----

func.func @y_n_mismatch(%x: memref<?x1024xbf16>, %w: memref<8192x1024xbf16>,
                        %y: memref<?x4096xbf16>) {
  // expected-error @+1 {{'lamport.gemm_publish' op y 'memref<?x4096xbf16>' must be [M, N] with N = 8192 (the weight's N)}}
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 64, accs = 2, token_tiles = [8]>)
      : memref<?x1024xbf16>, memref<8192x1024xbf16>, memref<?x4096xbf16>
  return
}

// -----

func.func @m_mismatch(%x: memref<2x1024xbf16>, %w: memref<8192x1024xbf16>,
                      %y: memref<3x8192xbf16>) {
  // expected-error @+1 {{'lamport.gemm_publish' op x has M = 2 but y has M = 3}}
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 64, accs = 2, token_tiles = [8]>)
      : memref<2x1024xbf16>, memref<8192x1024xbf16>, memref<3x8192xbf16>
  return
}

// -----

func.func @ticket_without_mailbox(%x: memref<?x1024xbf16>,
                                  %w: memref<8192x1024xbf16>,
                                  %y: memref<?x8192xbf16>,
                                  %t: memref<1xi32>) {
  // expected-error @+1 {{'lamport.gemm_publish' op a ticket stage needs a mailbox}}
  lamport.gemm_publish %x, %w into %y ticket %t : memref<1xi32>
      tactic(#lamport.tactic<splits = 1, kw = 64, accs = 2, token_tiles = [8]>)
      : memref<?x1024xbf16>, memref<8192x1024xbf16>, memref<?x8192xbf16>
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

func.func @ticket_not_one_word(%x: memref<?x1024xbf16>,
                               %w: memref<8192x1024xbf16>,
                               %y: memref<?x8192xbf16>, %mb: !mb,
                               %t: memref<2xi32>) {
  // expected-error @+1 {{'lamport.gemm_publish' op the ticket must be int32 [1], got 'memref<2xi32>'}}
  lamport.gemm_publish %x, %w into %y mailbox %mb : !mb ticket %t : memref<2xi32>
      tactic(#lamport.tactic<splits = 1, kw = 64, accs = 2, token_tiles = [8]>)
      : memref<?x1024xbf16>, memref<8192x1024xbf16>, memref<?x8192xbf16>
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

func.func @ticket_not_i32(%x: memref<?x1024xbf16>, %w: memref<8192x1024xbf16>,
                          %y: memref<?x8192xbf16>, %mb: !mb,
                          %t: memref<1xi64>) {
  // expected-error @+1 {{'lamport.gemm_publish' op operand #4 must be 1D memref of 32-bit signless integer values, but got 'memref<1xi64>'}}
  lamport.gemm_publish %x, %w into %y mailbox %mb : !mb ticket %t : memref<1xi64>
      tactic(#lamport.tactic<splits = 1, kw = 64, accs = 2, token_tiles = [8]>)
      : memref<?x1024xbf16>, memref<8192x1024xbf16>, memref<?x8192xbf16>
  return
}

// -----

func.func @transport_without_mailbox(%x: memref<?x1024xbf16>,
                                     %w: memref<8192x1024xbf16>,
                                     %y: memref<?x8192xbf16>) {
  // expected-error @+1 {{'lamport.gemm_publish' op a transport needs a mailbox to publish into}}
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 64, accs = 2, token_tiles = [8]>)
      {transport = #lamport.transport<unicast>}
      : memref<?x1024xbf16>, memref<8192x1024xbf16>, memref<?x8192xbf16>
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 1024>

func.func @mailbox_width_not_n(%x: memref<?x1024xbf16>,
                               %w: memref<8192x1024xbf16>,
                               %y: memref<?x8192xbf16>, %mb: !mb) {
  // expected-error @+1 {{'lamport.gemm_publish' op mailbox width 1024 != GEMM N 8192}}
  lamport.gemm_publish %x, %w into %y mailbox %mb : !mb
      tactic(#lamport.tactic<splits = 1, kw = 64, accs = 2, token_tiles = [8]>)
      : memref<?x1024xbf16>, memref<8192x1024xbf16>, memref<?x8192xbf16>
  return
}

// -----

func.func @n_not_tile(%x: memref<?x1024xbf16>, %w: memref<8200x1024xbf16>,
                      %y: memref<?x8200xbf16>) {
  // expected-error @+1 {{'lamport.gemm_publish' op N = 8200 must be a positive multiple of 16 (the MMA's weight rows per CTA)}}
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 64, accs = 2, token_tiles = [8]>)
      : memref<?x1024xbf16>, memref<8200x1024xbf16>, memref<?x8200xbf16>
  return
}

// -----

func.func @n_zero(%x: memref<?x1024xbf16>, %w: memref<0x1024xbf16>,
                  %y: memref<?x0xbf16>) {
  // expected-error @+1 {{'lamport.gemm_publish' op N = 0 must be a positive multiple of 16 (the MMA's weight rows per CTA)}}
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 64, accs = 2, token_tiles = [8]>)
      : memref<?x1024xbf16>, memref<0x1024xbf16>, memref<?x0xbf16>
  return
}

// -----

// Tiles of 16 features per CTA: 1, 2 or 4.
func.func @tiles_not_allowed(%x: memref<?x1024xbf16>,
                             %w: memref<8160x1024xbf16>,
                             %y: memref<?x8160xbf16>) {
  // expected-error @+1 {{'lamport.gemm_publish' op tiles = 3 must be one of 1, 2, 4}}
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 64, accs = 2, tiles = 3,
                             token_tiles = [8]>)
      : memref<?x1024xbf16>, memref<8160x1024xbf16>, memref<?x8160xbf16>
  return
}

// -----

func.func @tiles_too_many(%x: memref<?x1024xbf16>,
                          %w: memref<8192x1024xbf16>,
                          %y: memref<?x8192xbf16>) {
  // expected-error @+1 {{'lamport.gemm_publish' op tiles = 8 must be one of 1, 2, 4}}
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 64, accs = 2, tiles = 8,
                             token_tiles = [8]>)
      : memref<?x1024xbf16>, memref<8192x1024xbf16>, memref<?x8192xbf16>
  return
}

// -----

func.func @tiles_zero(%x: memref<?x1024xbf16>, %w: memref<8192x1024xbf16>,
                      %y: memref<?x8192xbf16>) {
  // expected-error @+1 {{'lamport.gemm_publish' op tiles = 0 must be one of 1, 2, 4}}
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 64, accs = 2, tiles = 0,
                             token_tiles = [8]>)
      : memref<?x1024xbf16>, memref<8192x1024xbf16>, memref<?x8192xbf16>
  return
}

// -----

// N = 8208 is 513 tiles of 16: whole tiles, but not whole CTAs of 2.
func.func @n_not_two_tiles(%x: memref<?x1024xbf16>, %w: memref<8208x1024xbf16>,
                           %y: memref<?x8208xbf16>) {
  // expected-error @+1 {{'lamport.gemm_publish' op N = 8208 must be a positive multiple of 32 (the MMA's 16 weight rows x 2 tiles per CTA)}}
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 64, accs = 2, tiles = 2,
                             token_tiles = [8]>)
      : memref<?x1024xbf16>, memref<8208x1024xbf16>, memref<?x8208xbf16>
  return
}

// -----

// N = 8224 is 257 CTAs of 2 tiles but not a whole number of CTAs of 4.
func.func @n_not_four_tiles(%x: memref<?x1024xbf16>,
                            %w: memref<8224x1024xbf16>,
                            %y: memref<?x8224xbf16>) {
  // expected-error @+1 {{'lamport.gemm_publish' op N = 8224 must be a positive multiple of 64 (the MMA's 16 weight rows x 4 tiles per CTA)}}
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 64, accs = 2, tiles = 4,
                             token_tiles = [8]>)
      : memref<?x1024xbf16>, memref<8224x1024xbf16>, memref<?x8224xbf16>
  return
}

// -----

func.func @n_zero_tiles(%x: memref<?x1024xbf16>, %w: memref<0x1024xbf16>,
                        %y: memref<?x0xbf16>) {
  // expected-error @+1 {{'lamport.gemm_publish' op N = 0 must be a positive multiple of 64 (the MMA's 16 weight rows x 4 tiles per CTA)}}
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 64, accs = 2, tiles = 4,
                             token_tiles = [8]>)
      : memref<?x1024xbf16>, memref<0x1024xbf16>, memref<?x0xbf16>
  return
}

// -----

func.func @splits_not_power_of_two(%x: memref<?x1536xbf16>,
                                   %w: memref<8192x1536xbf16>,
                                   %y: memref<?x8192xbf16>) {
  // expected-error @+1 {{'lamport.gemm_publish' op splits = 3 must be one of 1, 2, 4, 8}}
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 3, kw = 64, accs = 2, token_tiles = [8]>)
      : memref<?x1536xbf16>, memref<8192x1536xbf16>, memref<?x8192xbf16>
  return
}

// -----

func.func @splits_too_many(%x: memref<?x4096xbf16>, %w: memref<512x4096xbf16>,
                           %y: memref<?x512xbf16>) {
  // expected-error @+1 {{'lamport.gemm_publish' op splits = 16 must be one of 1, 2, 4, 8}}
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 16, kw = 64, accs = 2, token_tiles = [8]>)
      : memref<?x4096xbf16>, memref<512x4096xbf16>, memref<?x512xbf16>
  return
}

// -----

func.func @accs_not_allowed(%x: memref<?x1024xbf16>,
                            %w: memref<8192x1024xbf16>,
                            %y: memref<?x8192xbf16>) {
  // expected-error @+1 {{'lamport.gemm_publish' op accs = 3 must be one of 1, 2, 4}}
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 64, accs = 3, token_tiles = [8]>)
      : memref<?x1024xbf16>, memref<8192x1024xbf16>, memref<?x8192xbf16>
  return
}

// -----

func.func @min_ctas_per_sm_too_many(%x: memref<?x1024xbf16>,
                                    %w: memref<8192x1024xbf16>,
                                    %y: memref<?x8192xbf16>) {
  // expected-error @+1 {{'lamport.gemm_publish' op min_ctas_per_sm = 33 must be at most 32 (the most CTAs one SM holds), or 0 for no hint}}
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 64, accs = 2,
                             min_ctas_per_sm = 33, token_tiles = [8]>)
      : memref<?x1024xbf16>, memref<8192x1024xbf16>, memref<?x8192xbf16>
  return
}

// -----

func.func @accs_too_many(%x: memref<?x1024xbf16>,
                         %w: memref<8192x1024xbf16>,
                         %y: memref<?x8192xbf16>) {
  // expected-error @+1 {{'lamport.gemm_publish' op accs = 8 must be one of 1, 2, 4}}
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 64, accs = 8, token_tiles = [8]>)
      : memref<?x1024xbf16>, memref<8192x1024xbf16>, memref<?x8192xbf16>
  return
}

// -----

func.func @kw_not_mma_k(%x: memref<?x1024xbf16>, %w: memref<8192x1024xbf16>,
                        %y: memref<?x8192xbf16>) {
  // expected-error @+1 {{'lamport.gemm_publish' op kw = 24 must be a positive multiple of 16 (the MMA's K)}}
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 24, accs = 2, token_tiles = [8]>)
      : memref<?x1024xbf16>, memref<8192x1024xbf16>, memref<?x8192xbf16>
  return
}

// -----

func.func @kw_zero(%x: memref<?x1024xbf16>, %w: memref<8192x1024xbf16>,
                   %y: memref<?x8192xbf16>) {
  // expected-error @+1 {{'lamport.gemm_publish' op kw = 0 must be a positive multiple of 16 (the MMA's K)}}
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 0, accs = 2, token_tiles = [8]>)
      : memref<?x1024xbf16>, memref<8192x1024xbf16>, memref<?x8192xbf16>
  return
}

// -----

func.func @k_does_not_split(%x: memref<?x1000xbf16>,
                            %w: memref<8192x1000xbf16>,
                            %y: memref<?x8192xbf16>) {
  // expected-error @+1 {{'lamport.gemm_publish' op K = 1000 does not split into 2 x warps x 64}}
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 2, kw = 64, accs = 2, token_tiles = [8]>)
      : memref<?x1000xbf16>, memref<8192x1000xbf16>, memref<?x8192xbf16>
  return
}

// -----

func.func @too_many_warps(%x: memref<?x4096xbf16>, %w: memref<512x4096xbf16>,
                          %y: memref<?x512xbf16>) {
  // 4096 / (1 * 64) = 64 warps.
  // expected-error @+1 {{'lamport.gemm_publish' op 64 warps per CTA; needs 1..32 (K / (splits * kw))}}
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 64, accs = 2, token_tiles = [8]>)
      : memref<?x4096xbf16>, memref<512x4096xbf16>, memref<?x512xbf16>
  return
}

// -----

func.func @no_warps(%x: memref<?x0xbf16>, %w: memref<512x0xbf16>,
                    %y: memref<?x512xbf16>) {
  // expected-error @+1 {{'lamport.gemm_publish' op 0 warps per CTA; needs 1..32 (K / (splits * kw))}}
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 64, accs = 2, token_tiles = [8]>)
      : memref<?x0xbf16>, memref<512x0xbf16>, memref<?x512xbf16>
  return
}

// -----

func.func @m_above_16(%x: memref<17x1024xbf16>, %w: memref<8192x1024xbf16>,
                      %y: memref<17x8192xbf16>) {
  // expected-error @+1 {{'lamport.gemm_publish' op x has M = 17 tokens; needs 1 <= M <= 16}}
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 64, accs = 2,
          token_tiles = [8, 8, 8, 8, 8, 8, 8, 8,
                         16, 16, 16, 16, 16, 16, 16, 16]>)
      : memref<17x1024xbf16>, memref<8192x1024xbf16>, memref<17x8192xbf16>
  return
}

// -----

func.func @m_zero(%x: memref<0x1024xbf16>, %w: memref<8192x1024xbf16>,
                  %y: memref<0x8192xbf16>) {
  // expected-error @+1 {{'lamport.gemm_publish' op x has M = 0 tokens; needs 1 <= M <= 16}}
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 64, accs = 2,
          token_tiles = [8, 8, 8, 8, 8, 8, 8, 8,
                         16, 16, 16, 16, 16, 16, 16, 16]>)
      : memref<0x1024xbf16>, memref<8192x1024xbf16>, memref<0x8192xbf16>
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 4, width = 8192>

// With a mailbox M is also bounded by its capacity.
func.func @m_above_capacity(%x: memref<5x1024xbf16>,
                            %w: memref<8192x1024xbf16>,
                            %y: memref<5x8192xbf16>, %mb: !mb) {
  // expected-error @+1 {{'lamport.gemm_publish' op x has M = 5 tokens; needs 1 <= M <= 4}}
  lamport.gemm_publish %x, %w into %y mailbox %mb : !mb
      tactic(#lamport.tactic<splits = 1, kw = 64, accs = 2,
          token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>)
      : memref<5x1024xbf16>, memref<8192x1024xbf16>, memref<5x8192xbf16>
  return
}

// -----

// A static y is checked even where x is dynamic.
func.func @y_m_above_16(%x: memref<?x1024xbf16>, %w: memref<8192x1024xbf16>,
                        %y: memref<32x8192xbf16>) {
  // expected-error @+1 {{'lamport.gemm_publish' op y has M = 32 tokens; needs 1 <= M <= 16}}
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 64, accs = 2,
          token_tiles = [8, 8, 8, 8, 8, 8, 8, 8,
                         16, 16, 16, 16, 16, 16, 16, 16]>)
      : memref<?x1024xbf16>, memref<8192x1024xbf16>, memref<32x8192xbf16>
  return
}

// -----

// Without a mailbox M goes to 16, so 8 tiles are too few.
func.func @token_tiles_too_few(%x: memref<?x1024xbf16>,
                               %w: memref<8192x1024xbf16>,
                               %y: memref<?x8192xbf16>) {
  // expected-error @+1 {{'lamport.gemm_publish' op token tiles [8, 8, 8, 8, 8, 8, 8, 8] do not cover M 1..16: token_tiles[m - 1] must be 8 or 16 and at least m}}
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 64, accs = 2,
          token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>)
      : memref<?x1024xbf16>, memref<8192x1024xbf16>, memref<?x8192xbf16>
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 12, width = 8192>

// A tile of 8 cannot hold 9 tokens.
func.func @token_tile_too_small(%x: memref<?x1024xbf16>,
                                %w: memref<8192x1024xbf16>,
                                %y: memref<?x8192xbf16>, %mb: !mb) {
  // expected-error @+1 {{'lamport.gemm_publish' op token tiles [8, 8, 8, 8, 8, 8, 8, 8, 8, 16, 16, 16] do not cover M 1..12: token_tiles[m - 1] must be 8 or 16 and at least m}}
  lamport.gemm_publish %x, %w into %y mailbox %mb : !mb
      tactic(#lamport.tactic<splits = 1, kw = 64, accs = 2,
          token_tiles = [8, 8, 8, 8, 8, 8, 8, 8, 8, 16, 16, 16]>)
      : memref<?x1024xbf16>, memref<8192x1024xbf16>, memref<?x8192xbf16>
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 2, width = 8192>

// Only tiles of 8 and 16 are generated.
func.func @token_tile_not_generated(%x: memref<?x1024xbf16>,
                                    %w: memref<8192x1024xbf16>,
                                    %y: memref<?x8192xbf16>, %mb: !mb) {
  // expected-error @+1 {{'lamport.gemm_publish' op token tiles [8, 4] do not cover M 1..2: token_tiles[m - 1] must be 8 or 16 and at least m}}
  lamport.gemm_publish %x, %w into %y mailbox %mb : !mb
      tactic(#lamport.tactic<splits = 1, kw = 64, accs = 2,
          token_tiles = [8, 4]>)
      : memref<?x1024xbf16>, memref<8192x1024xbf16>, memref<?x8192xbf16>
  return
}

// -----

// With a static M of 4 the op launches M = 4 only, but the entries past it
// must still be tiles: 7 is a typo the kernel would never be asked about.
func.func @token_tile_unused_invalid(%x: memref<4x1024xbf16>,
                                     %w: memref<8192x1024xbf16>,
                                     %y: memref<4x8192xbf16>) {
  // expected-error @+1 {{'lamport.gemm_publish' op token_tiles[4] = 7 is not a token tile for M = 5 (8 or 16 and at least M): entries no launch uses must be valid too}}
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 64, accs = 2,
          token_tiles = [8, 8, 8, 8, 7]>)
      : memref<4x1024xbf16>, memref<8192x1024xbf16>, memref<4x8192xbf16>
  return
}

// -----

// An unused entry smaller than its M is refused as well.
func.func @token_tile_unused_too_small(%x: memref<4x1024xbf16>,
                                       %w: memref<8192x1024xbf16>,
                                       %y: memref<4x8192xbf16>) {
  // expected-error @+1 {{'lamport.gemm_publish' op token_tiles[8] = 8 is not a token tile for M = 9 (8 or 16 and at least M): entries no launch uses must be valid too}}
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 64, accs = 2,
          token_tiles = [8, 8, 8, 8, 8, 8, 8, 8, 8]>)
      : memref<4x1024xbf16>, memref<8192x1024xbf16>, memref<4x8192xbf16>
  return
}

// -----

// No launch carries more than 16 tokens, so a 17th entry is an error.
func.func @token_tiles_past_sixteen(%x: memref<?x1024xbf16>,
                                    %w: memref<8192x1024xbf16>,
                                    %y: memref<?x8192xbf16>) {
  // expected-error @+1 {{'lamport.gemm_publish' op token_tiles has 17 entries; a launch carries at most 16 tokens}}
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 64, accs = 2,
          token_tiles = [8, 8, 8, 8, 8, 8, 8, 8,
                         16, 16, 16, 16, 16, 16, 16, 16, 16]>)
      : memref<?x1024xbf16>, memref<8192x1024xbf16>, memref<?x8192xbf16>
  return
}

// -----

// An earlier tactic's entries past the static M are checked too.
func.func @earlier_tactic_unused_invalid(%x: memref<4x1024xbf16>,
                                         %w: memref<8192x1024xbf16>,
                                         %y: memref<4x8192xbf16>) {
  // expected-error @+1 {{'lamport.gemm_publish' op tactic 0: token_tiles[8] = 12 is not a token tile for M = 9 (8 or 16 and at least M): entries no launch uses must be valid too}}
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 64, accs = 2,
                             token_tiles = [8, 8, 8, 8, 8, 8, 8, 8, 12]>,
             #lamport.tactic<splits = 1, kw = 64, accs = 2,
                             token_tiles = [8, 8, 8, 8, 8, 8, 8, 8,
                                            16, 16, 16, 16, 16, 16, 16, 16]>)
      : memref<4x1024xbf16>, memref<8192x1024xbf16>, memref<4x8192xbf16>
  return
}

// -----

func.func @x_not_bf16(%x: memref<?x1024xf16>, %w: memref<8192x1024xbf16>,
                      %y: memref<?x8192xbf16>) {
  // expected-error @+1 {{'lamport.gemm_publish' op operand #0 must be 2D memref of bfloat16 type values, but got 'memref<?x1024xf16>'}}
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 64, accs = 2, token_tiles = [8]>)
      : memref<?x1024xf16>, memref<8192x1024xbf16>, memref<?x8192xbf16>
  return
}

// -----

func.func @weight_not_matrix(%x: memref<?x1024xbf16>,
                             %w: memref<8x1024x1024xbf16>,
                             %y: memref<?x8192xbf16>) {
  // expected-error @+1 {{'lamport.gemm_publish' op operand #1 must be 2D memref of bfloat16 type values, but got 'memref<8x1024x1024xbf16>'}}
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 64, accs = 2, token_tiles = [8]>)
      : memref<?x1024xbf16>, memref<8x1024x1024xbf16>, memref<?x8192xbf16>
  return
}

// -----

func.func @y_not_bf16(%x: memref<?x1024xbf16>, %w: memref<8192x1024xbf16>,
                      %y: memref<?x8192xf32>) {
  // expected-error @+1 {{'lamport.gemm_publish' op operand #2 must be 2D memref of bfloat16 type values, but got 'memref<?x8192xf32>'}}
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 64, accs = 2, token_tiles = [8]>)
      : memref<?x1024xbf16>, memref<8192x1024xbf16>, memref<?x8192xf32>
  return
}

// -----

func.func @passes_not_allowed(%x: memref<?x1024xbf16>,
                              %w: memref<8192x1024xbf16>,
                              %y: memref<?x8192xbf16>) {
  // expected-error @+1 {{'lamport.gemm_publish' op passes = 3 must be one of 1, 2, 4, 8}}
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 64, accs = 2, passes = 3,
                             token_tiles = [8]>)
      : memref<?x1024xbf16>, memref<8192x1024xbf16>, memref<?x8192xbf16>
  return
}

// -----

// 80 features are 5 tiles of 16: not a whole number of 4 passes of a tile.
func.func @passes_do_not_divide_n(%x: memref<?x1024xbf16>,
                                  %w: memref<80x1024xbf16>,
                                  %y: memref<?x80xbf16>) {
  // expected-error @+1 {{'lamport.gemm_publish' op N = 80 must be a multiple of 64 (the MMA's 16 weight rows x 1 tiles x 4 passes per CTA)}}
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 64, accs = 2, passes = 4,
                             token_tiles = [8]>)
      : memref<?x1024xbf16>, memref<80x1024xbf16>, memref<?x80xbf16>
  return
}

// -----

func.func @passes_with_splits(%x: memref<?x1024xbf16>,
                              %w: memref<8192x1024xbf16>,
                              %y: memref<?x8192xbf16>) {
  // expected-error @+1 {{'lamport.gemm_publish' op passes = 2 needs splits = 1 (the split-K sums reach rank 0 once per launch), not 2}}
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 2, kw = 64, accs = 2, passes = 2,
                             token_tiles = [8]>)
      : memref<?x1024xbf16>, memref<8192x1024xbf16>, memref<?x8192xbf16>
  return
}

// -----

// With several tactics, the one at fault is named by its place.
func.func @second_tactic_unsupported(%x: memref<?x1024xbf16>,
                                     %w: memref<8192x1024xbf16>,
                                     %y: memref<?x8192xbf16>) {
  // expected-error @+1 {{'lamport.gemm_publish' op tactic 1: passes = 2 needs splits = 1 (the split-K sums reach rank 0 once per launch), not 2}}
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 64, accs = 2,
                             token_tiles = [8]>,
             #lamport.tactic<splits = 2, kw = 64, accs = 2, passes = 2,
                             token_tiles = [8, 8, 8, 8, 8, 8, 8, 8,
                                            16, 16, 16, 16, 16, 16, 16, 16]>)
      : memref<?x1024xbf16>, memref<8192x1024xbf16>, memref<?x8192xbf16>
  return
}

// -----

// The second tactic covers no M past the first's 1..8: it would never run.
func.func @tactic_serves_nothing(%x: memref<?x1024xbf16>,
                                 %w: memref<8192x1024xbf16>,
                                 %y: memref<?x8192xbf16>) {
  // expected-error @+1 {{'lamport.gemm_publish' op tactic 1: serves no M: its token_tiles cover M 1..4 and earlier tactics already serve M 1..8}}
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 64, accs = 2,
                             token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
             #lamport.tactic<splits = 2, kw = 64, accs = 2,
                             token_tiles = [8, 8, 8, 8]>,
             #lamport.tactic<splits = 1, kw = 64, accs = 2,
                             token_tiles = [16, 16, 16, 16, 16, 16, 16, 16,
                                            16, 16, 16, 16, 16, 16, 16, 16]>)
      : memref<?x1024xbf16>, memref<8192x1024xbf16>, memref<?x8192xbf16>
  return
}

// -----

// A mailbox of capacity 8 takes M up to 8, all of it served by the first
// tactic: the second, for M = 9..16, would never run.
!mb8 = !lamport.mailbox<tp = 4, capacity = 8, width = 8192>
func.func @tactic_past_capacity(%x: memref<?x1024xbf16>,
                                %w: memref<8192x1024xbf16>,
                                %y: memref<?x8192xbf16>, %mb: !mb8) {
  // expected-error @+1 {{'lamport.gemm_publish' op tactic 1: serves no M: its token_tiles cover M 1..16 and earlier tactics already serve M 1..8 (every M the op takes)}}
  lamport.gemm_publish %x, %w into %y mailbox %mb : !mb8
      tactic(#lamport.tactic<splits = 1, kw = 64, accs = 2,
                             token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>,
             #lamport.tactic<splits = 1, kw = 64, accs = 2,
                             token_tiles = [16, 16, 16, 16, 16, 16, 16, 16,
                                            16, 16, 16, 16, 16, 16, 16, 16]>)
      : memref<?x1024xbf16>, memref<8192x1024xbf16>, memref<?x8192xbf16>
  return
}

// -----

// An earlier tactic's tiles must hold for the M it lists, served or not:
// its second entry, 2, is no tile at all.
func.func @earlier_tactic_bad_tile(%x: memref<?x1024xbf16>,
                                   %w: memref<8192x1024xbf16>,
                                   %y: memref<?x8192xbf16>) {
  // expected-error @+1 {{'lamport.gemm_publish' op tactic 0: token tiles [8, 2] do not cover M 1..2: token_tiles[m - 1] must be 8 or 16 and at least m}}
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 64, accs = 2,
                             token_tiles = [8, 2]>,
             #lamport.tactic<splits = 1, kw = 64, accs = 2,
                             token_tiles = [16, 16, 16, 16, 16, 16, 16, 16,
                                            16, 16, 16, 16, 16, 16, 16, 16]>)
      : memref<?x1024xbf16>, memref<8192x1024xbf16>, memref<?x8192xbf16>
  return
}

// -----

// The last tactic must reach every M the op takes (16 here).
func.func @last_tactic_short(%x: memref<?x1024xbf16>,
                             %w: memref<8192x1024xbf16>,
                             %y: memref<?x8192xbf16>) {
  // expected-error @+1 {{'lamport.gemm_publish' op tactic 1: token tiles [16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16] do not cover M 1..16: token_tiles[m - 1] must be 8 or 16 and at least m}}
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 64, accs = 2,
                             token_tiles = [8, 8, 8, 8]>,
             #lamport.tactic<splits = 1, kw = 64, accs = 2,
                             token_tiles = [16, 16, 16, 16, 16, 16, 16, 16,
                                            16, 16, 16, 16]>)
      : memref<?x1024xbf16>, memref<8192x1024xbf16>, memref<?x8192xbf16>
  return
}

// -----

func.func @late_chunks_leave_none(%x: memref<?x1024xbf16>,
                                  %w: memref<8192x1024xbf16>,
                                  %y: memref<?x8192xbf16>) {
  // expected-error @+1 {{'lamport.gemm_publish' op late_chunks = 2 must leave a chunk before the PDL wait: 2 x 32 K must be less than kw = 64}}
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 64, accs = 2, late_chunks = 2,
                             token_tiles = [8]>)
      : memref<?x1024xbf16>, memref<8192x1024xbf16>, memref<?x8192xbf16>
  return
}

// -----

func.func @ring_knobs_without_ring(%x: memref<?x1024xbf16>,
                                   %w: memref<8192x1024xbf16>,
                                   %y: memref<?x8192xbf16>) {
  // expected-error @+1 {{'lamport.gemm_publish' op stages = 3 needs pipeline = bulk (the register pipeline has no ring)}}
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 64, accs = 2, stages = 3,
                             token_tiles = [8]>)
      : memref<?x1024xbf16>, memref<8192x1024xbf16>, memref<?x8192xbf16>
  return
}

// -----

func.func @stage_bytes_without_ring(%x: memref<?x1024xbf16>,
                                    %w: memref<8192x1024xbf16>,
                                    %y: memref<?x8192xbf16>) {
  // expected-error @+1 {{'lamport.gemm_publish' op stage_bytes = 32768 needs pipeline = bulk (the register pipeline has no ring)}}
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 64, accs = 2,
                             stage_bytes = 32768, token_tiles = [8]>)
      : memref<?x1024xbf16>, memref<8192x1024xbf16>, memref<?x8192xbf16>
  return
}

// -----

func.func @producer_lanes_without_ring(%x: memref<?x1024xbf16>,
                                       %w: memref<8192x1024xbf16>,
                                       %y: memref<?x8192xbf16>) {
  // expected-error @+1 {{'lamport.gemm_publish' op producer_lanes = 4 needs pipeline = bulk (the register pipeline has no ring)}}
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 64, accs = 2, producer_lanes = 4,
                             pipeline = registers, token_tiles = [8]>)
      : memref<?x1024xbf16>, memref<8192x1024xbf16>, memref<?x8192xbf16>
  return
}

// -----

func.func @early_reads_without_ring(%x: memref<?x1024xbf16>,
                                    %w: memref<8192x1024xbf16>,
                                    %y: memref<?x8192xbf16>) {
  // expected-error @+1 {{'lamport.gemm_publish' op early_reads = 1 needs pipeline = bulk (the register pipeline loads every weight before the PDL wait)}}
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 64, accs = 2, early_reads = 1,
                             token_tiles = [8]>)
      : memref<?x1024xbf16>, memref<8192x1024xbf16>, memref<?x8192xbf16>
  return
}

// -----

func.func @early_reads_past_first_fill(%x: memref<?x1024xbf16>,
                                       %w: memref<8192x1024xbf16>,
                                       %y: memref<?x8192xbf16>) {
  // expected-error @+1 {{'lamport.gemm_publish' op early_reads = 3 must be at most stages = 2: a load past the ring's first fill is copied only after the PDL wait}}
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 64, accs = 2, passes = 4,
                             pipeline = bulk, stages = 2, early_reads = 3,
                             token_tiles = [8]>)
      : memref<?x1024xbf16>, memref<8192x1024xbf16>, memref<?x8192xbf16>
  return
}

// -----

// With a static M the tactics need cover that M only, but all of it: x of
// 4 rows needs token tiles for M 1..4.
func.func @static_m_not_covered(%x: memref<4x1024xbf16>,
                                %w: memref<8192x1024xbf16>,
                                %y: memref<4x8192xbf16>) {
  // expected-error @+1 {{'lamport.gemm_publish' op token tiles [8, 8, 8] do not cover M 1..4: token_tiles[m - 1] must be 8 or 16 and at least m}}
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 64, accs = 2,
          token_tiles = [8, 8, 8]>)
      : memref<4x1024xbf16>, memref<8192x1024xbf16>, memref<4x8192xbf16>
  return
}

// -----

// The register pipeline holds the weights of kw / 32 chunks x tiles in a
// thread, at most 128 of them: 33 x 4 here.
func.func @register_chunks_past_a_thread(%x: memref<?x1056xbf16>,
                                         %w: memref<8192x1056xbf16>,
                                         %y: memref<?x8192xbf16>) {
  // expected-error @+1 {{'lamport.gemm_publish' op kw = 1056 x tiles = 4 holds 132 chunks of 32 K in a thread (the register pipeline holds the weights of each); at most 128: past that the kernel spills them and its compile time grows as the square of their count}}
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 1056, accs = 1, tiles = 4,
                             token_tiles = [8]>)
      : memref<?x1056xbf16>, memref<8192x1056xbf16>, memref<?x8192xbf16>
  return
}

// -----

// The bulk pipeline holds x of each chunk, whatever the tiles: kw = 4096 is
// the most (128 chunks), 4128 one chunk too many.
func.func @bulk_chunks_past_a_thread(%x: memref<?x4128xbf16>,
                                     %w: memref<8192x4128xbf16>,
                                     %y: memref<?x8192xbf16>) {
  // expected-error @+1 {{'lamport.gemm_publish' op kw = 4128 holds 129 chunks of 32 K in a thread (the bulk pipeline holds x of each); at most 128}}
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = 1, kw = 4128, accs = 1, passes = 2,
                             pipeline = bulk, token_tiles = [8]>)
      : memref<?x4128xbf16>, memref<8192x4128xbf16>, memref<?x8192xbf16>
  return
}
