// RUN: lamport-opt %s -split-input-file -verify-diagnostics

// Every rule of the program-level publishers' and consumers' verifiers:
// widths against the mailbox, token counts against min(16, capacity), the
// dual norm's shapes, gates and eps; and the element types ODS checks.

//===----------------------------------------------------------------------===//
// lamport.publish_rows
//===----------------------------------------------------------------------===//

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

func.func @publish_rows_width(%rows: memref<?x4096xbf16>, %mb: !mb) {
  // expected-error @+1 {{'lamport.publish_rows' op rows 'memref<?x4096xbf16>' must be [m, width] with width 8192 (the mailbox width)}}
  lamport.publish_rows %rows into %mb : memref<?x4096xbf16>, !mb
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

func.func @publish_rows_width_dynamic(%rows: memref<?x?xbf16>, %mb: !mb) {
  // expected-error @+1 {{'lamport.publish_rows' op rows 'memref<?x?xbf16>' must be [m, width] with width 8192 (the mailbox width)}}
  lamport.publish_rows %rows into %mb : memref<?x?xbf16>, !mb
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 4, width = 8192>

func.func @publish_rows_above_capacity(%rows: memref<5x8192xbf16>, %mb: !mb) {
  // expected-error @+1 {{'lamport.publish_rows' op rows has M = 5 tokens; needs 1 <= M <= 4}}
  lamport.publish_rows %rows into %mb : memref<5x8192xbf16>, !mb
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 32, width = 8192>

// A larger capacity does not lift the decode batch limit of 16.
func.func @publish_rows_above_16(%rows: memref<17x8192xbf16>, %mb: !mb) {
  // expected-error @+1 {{'lamport.publish_rows' op rows has M = 17 tokens; needs 1 <= M <= 16}}
  lamport.publish_rows %rows into %mb : memref<17x8192xbf16>, !mb
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

func.func @publish_rows_not_bf16(%rows: memref<?x8192xf32>, %mb: !mb) {
  // expected-error @+1 {{'lamport.publish_rows' op operand #0 must be 2D memref of bfloat16 type values, but got 'memref<?x8192xf32>'}}
  lamport.publish_rows %rows into %mb : memref<?x8192xf32>, !mb
  return
}

// -----

//===----------------------------------------------------------------------===//
// lamport.poll_rows
//===----------------------------------------------------------------------===//

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

func.func @poll_rows_slots(%mb: !mb, %out: memref<4x?x8192xbf16>) {
  // expected-error @+1 {{'lamport.poll_rows' op out 'memref<4x?x8192xbf16>': dimension 0 must be 8 (tp slots)}}
  lamport.poll_rows %mb into %out : !mb, memref<4x?x8192xbf16>
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

func.func @poll_rows_width(%mb: !mb, %out: memref<8x?x1024xbf16>) {
  // expected-error @+1 {{'lamport.poll_rows' op out 'memref<8x?x1024xbf16>': dimension 2 must be 8192 (the mailbox width)}}
  lamport.poll_rows %mb into %out : !mb, memref<8x?x1024xbf16>
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

func.func @poll_rows_no_rows(%mb: !mb, %out: memref<8x0x8192xbf16>) {
  // expected-error @+1 {{'lamport.poll_rows' op out has M = 0 tokens; needs 1 <= M <= 16}}
  lamport.poll_rows %mb into %out : !mb, memref<8x0x8192xbf16>
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

func.func @poll_rows_timeout(%mb: !mb, %out: memref<8x?x8192xbf16>) {
  // expected-error @+1 {{'lamport.poll_rows' op timeout_ns must be positive, got 0}}
  lamport.poll_rows %mb into %out {timeout_ns = 0 : i64}
      : !mb, memref<8x?x8192xbf16>
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

func.func @poll_rows_rank(%mb: !mb, %out: memref<?x8192xbf16>) {
  // expected-error @+1 {{'lamport.poll_rows' op operand #1 must be 3D memref of bfloat16 type values, but got 'memref<?x8192xbf16>'}}
  lamport.poll_rows %mb into %out : !mb, memref<?x8192xbf16>
  return
}

// -----

//===----------------------------------------------------------------------===//
// lamport.all_reduce
//===----------------------------------------------------------------------===//

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

func.func @all_reduce_width(%mb: !mb, %out: memref<?x4096xbf16>) {
  // expected-error @+1 {{'lamport.all_reduce' op out 'memref<?x4096xbf16>': dimension 1 must be 8192 (the mailbox width)}}
  lamport.all_reduce %mb into %out : !mb, memref<?x4096xbf16>
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 8, width = 8192>

func.func @all_reduce_above_capacity(%mb: !mb, %out: memref<9x8192xbf16>) {
  // expected-error @+1 {{'lamport.all_reduce' op out has M = 9 tokens; needs 1 <= M <= 8}}
  lamport.all_reduce %mb into %out : !mb, memref<9x8192xbf16>
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

func.func @all_reduce_timeout(%mb: !mb, %out: memref<?x8192xbf16>) {
  // expected-error @+1 {{'lamport.all_reduce' op timeout_ns must be positive, got -1}}
  lamport.all_reduce %mb into %out {timeout_ns = -1 : i64}
      : !mb, memref<?x8192xbf16>
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

func.func @all_reduce_sum_order(%mb: !mb, %out: memref<?x8192xbf16>) {
  // expected-error @+1 {{'lamport.all_reduce' op attribute 'sum_order' failed to satisfy constraint: the order an all-reduce adds partials in}}
  lamport.all_reduce %mb into %out {sum_order = #lamport.transport<unicast>}
      : !mb, memref<?x8192xbf16>
  return
}

// -----

//===----------------------------------------------------------------------===//
// lamport.all_gather
//===----------------------------------------------------------------------===//

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 1024>

func.func @all_gather_row(%mb: !mb, %out: memref<?x1024xbf16>) {
  // expected-error @+1 {{'lamport.all_gather' op out 'memref<?x1024xbf16>': dimension 1 must be 8192 (tp * mailbox width: the gathered row)}}
  lamport.all_gather %mb into %out : !mb, memref<?x1024xbf16>
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 1024>

func.func @all_gather_above_16(%mb: !mb, %out: memref<20x8192xbf16>) {
  // expected-error @+1 {{'lamport.all_gather' op out has M = 20 tokens; needs 1 <= M <= 16}}
  lamport.all_gather %mb into %out : !mb, memref<20x8192xbf16>
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 1024>

func.func @all_gather_timeout(%mb: !mb, %out: memref<?x8192xbf16>) {
  // expected-error @+1 {{'lamport.all_gather' op timeout_ns must be positive, got 0}}
  lamport.all_gather %mb into %out {timeout_ns = 0 : i64}
      : !mb, memref<?x8192xbf16>
  return
}

// -----

//===----------------------------------------------------------------------===//
// lamport.all_reduce_dual_norm
//===----------------------------------------------------------------------===//

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

func.func @dual_norm_stream_hidden(%mb: !mb, %stream: memref<?x4096xf32>,
                                   %a: memref<1xf32>, %b: memref<1xf32>,
                                   %nw: memref<8192xbf16>,
                                   %out: memref<?x8192xbf16>) {
  // expected-error @+1 {{'lamport.all_reduce_dual_norm' op stream 'memref<?x4096xf32>': dimension 1 must be 8192 (the hidden size)}}
  lamport.all_reduce_dual_norm %mb, %stream gates(%a, %b) next_weight %nw
      into %out : !mb, memref<?x4096xf32>, memref<1xf32>, memref<1xf32>,
      memref<8192xbf16>, memref<?x8192xbf16>
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

func.func @publishing_partial_width(%mb: !mb, %partial: memref<?x4096xbf16>,
                                    %stream: memref<?x8192xf32>,
                                    %a: memref<1xf32>, %b: memref<1xf32>,
                                    %nw: memref<8192xbf16>,
                                    %out: memref<?x8192xbf16>) {
  // expected-error @+1 {{'lamport.all_reduce_dual_norm' op partial 'memref<?x4096xbf16>': dimension 1 must be 8192 (the mailbox width)}}
  lamport.all_reduce_dual_norm %mb publishing(%partial : memref<?x4096xbf16>),
      %stream gates(%a, %b) next_weight %nw into %out
      : !mb, memref<?x8192xf32>, memref<1xf32>, memref<1xf32>,
        memref<8192xbf16>, memref<?x8192xbf16>
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

func.func @publishing_partial_tokens(%mb: !mb, %partial: memref<4x8192xbf16>,
                                     %stream: memref<2x8192xf32>,
                                     %a: memref<1xf32>, %b: memref<1xf32>,
                                     %nw: memref<8192xbf16>,
                                     %out: memref<2x8192xbf16>) {
  // expected-error @+1 {{'lamport.all_reduce_dual_norm' op partial has M = 4 but stream has M = 2}}
  lamport.all_reduce_dual_norm %mb publishing(%partial : memref<4x8192xbf16>),
      %stream gates(%a, %b) next_weight %nw into %out
      : !mb, memref<2x8192xf32>, memref<1xf32>, memref<1xf32>,
        memref<8192xbf16>, memref<2x8192xbf16>
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

func.func @transport_without_publish(%mb: !mb, %stream: memref<?x8192xf32>,
                                     %a: memref<1xf32>, %b: memref<1xf32>,
                                     %nw: memref<8192xbf16>,
                                     %out: memref<?x8192xbf16>) {
  // expected-error @+1 {{'lamport.all_reduce_dual_norm' op transport applies to the publish of `publishing(%partial)`, which this op lacks}}
  lamport.all_reduce_dual_norm %mb, %stream gates(%a, %b) next_weight %nw
      into %out {transport = #lamport.transport<unicast>}
      : !mb, memref<?x8192xf32>, memref<1xf32>, memref<1xf32>,
        memref<8192xbf16>, memref<?x8192xbf16>
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

func.func @dual_norm_out_hidden(%mb: !mb, %stream: memref<?x8192xf32>,
                                %a: memref<1xf32>, %b: memref<1xf32>,
                                %nw: memref<8192xbf16>,
                                %out: memref<?x4096xbf16>) {
  // expected-error @+1 {{'lamport.all_reduce_dual_norm' op out 'memref<?x4096xbf16>': dimension 1 must be 8192 (the hidden size)}}
  lamport.all_reduce_dual_norm %mb, %stream gates(%a, %b) next_weight %nw
      into %out : !mb, memref<?x8192xf32>, memref<1xf32>, memref<1xf32>,
      memref<8192xbf16>, memref<?x4096xbf16>
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

func.func @dual_norm_next_weight(%mb: !mb, %stream: memref<?x8192xf32>,
                                 %a: memref<1xf32>, %b: memref<1xf32>,
                                 %nw: memref<?xbf16>,
                                 %out: memref<?x8192xbf16>) {
  // expected-error @+1 {{'lamport.all_reduce_dual_norm' op next_weight 'memref<?xbf16>': dimension 0 must be 8192 (the hidden size)}}
  lamport.all_reduce_dual_norm %mb, %stream gates(%a, %b) next_weight %nw
      into %out : !mb, memref<?x8192xf32>, memref<1xf32>, memref<1xf32>,
      memref<?xbf16>, memref<?x8192xbf16>
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

func.func @dual_norm_post_weight(%mb: !mb, %stream: memref<?x8192xf32>,
                                 %a: memref<1xf32>, %b: memref<1xf32>,
                                 %pw: memref<4096xbf16>,
                                 %nw: memref<8192xbf16>,
                                 %out: memref<?x8192xbf16>) {
  // expected-error @+1 {{'lamport.all_reduce_dual_norm' op post_weight 'memref<4096xbf16>': dimension 0 must be 8192 (the hidden size)}}
  lamport.all_reduce_dual_norm %mb, %stream gates(%a, %b)
      post_weight %pw : memref<4096xbf16> next_weight %nw into %out
      : !mb, memref<?x8192xf32>, memref<1xf32>, memref<1xf32>,
        memref<8192xbf16>, memref<?x8192xbf16>
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

func.func @dual_norm_tokens_differ(%mb: !mb, %stream: memref<2x8192xf32>,
                                   %a: memref<1xf32>, %b: memref<1xf32>,
                                   %nw: memref<8192xbf16>,
                                   %out: memref<3x8192xbf16>) {
  // expected-error @+1 {{'lamport.all_reduce_dual_norm' op stream has M = 2 but out has M = 3}}
  lamport.all_reduce_dual_norm %mb, %stream gates(%a, %b) next_weight %nw
      into %out : !mb, memref<2x8192xf32>, memref<1xf32>, memref<1xf32>,
      memref<8192xbf16>, memref<3x8192xbf16>
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 4, width = 8192>

func.func @dual_norm_above_capacity(%mb: !mb, %stream: memref<8x8192xf32>,
                                    %a: memref<1xf32>, %b: memref<1xf32>,
                                    %nw: memref<8192xbf16>,
                                    %out: memref<8x8192xbf16>) {
  // expected-error @+1 {{'lamport.all_reduce_dual_norm' op stream has M = 8 tokens; needs 1 <= M <= 4}}
  lamport.all_reduce_dual_norm %mb, %stream gates(%a, %b) next_weight %nw
      into %out : !mb, memref<8x8192xf32>, memref<1xf32>, memref<1xf32>,
      memref<8192xbf16>, memref<8x8192xbf16>
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

// A static out is checked even where stream is dynamic.
func.func @dual_norm_out_above_16(%mb: !mb, %stream: memref<?x8192xf32>,
                                  %a: memref<1xf32>, %b: memref<1xf32>,
                                  %nw: memref<8192xbf16>,
                                  %out: memref<17x8192xbf16>) {
  // expected-error @+1 {{'lamport.all_reduce_dual_norm' op out has M = 17 tokens; needs 1 <= M <= 16}}
  lamport.all_reduce_dual_norm %mb, %stream gates(%a, %b) next_weight %nw
      into %out : !mb, memref<?x8192xf32>, memref<1xf32>, memref<1xf32>,
      memref<8192xbf16>, memref<17x8192xbf16>
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

func.func @dual_norm_alpha(%mb: !mb, %stream: memref<?x8192xf32>,
                           %a: memref<2xf32>, %b: memref<1xf32>,
                           %nw: memref<8192xbf16>,
                           %out: memref<?x8192xbf16>) {
  // expected-error @+1 {{'lamport.all_reduce_dual_norm' op alpha 'memref<2xf32>' must be [1] (a scalar gate) or [8192] (one gate per channel)}}
  lamport.all_reduce_dual_norm %mb, %stream gates(%a, %b) next_weight %nw
      into %out : !mb, memref<?x8192xf32>, memref<2xf32>, memref<1xf32>,
      memref<8192xbf16>, memref<?x8192xbf16>
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

func.func @dual_norm_beta_dynamic(%mb: !mb, %stream: memref<?x8192xf32>,
                                  %a: memref<1xf32>, %b: memref<?xf32>,
                                  %nw: memref<8192xbf16>,
                                  %out: memref<?x8192xbf16>) {
  // expected-error @+1 {{'lamport.all_reduce_dual_norm' op beta 'memref<?xf32>' must be [1] (a scalar gate) or [8192] (one gate per channel)}}
  lamport.all_reduce_dual_norm %mb, %stream gates(%a, %b) next_weight %nw
      into %out : !mb, memref<?x8192xf32>, memref<1xf32>, memref<?xf32>,
      memref<8192xbf16>, memref<?x8192xbf16>
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

func.func @dual_norm_eps_zero(%mb: !mb, %stream: memref<?x8192xf32>,
                              %a: memref<1xf32>, %b: memref<1xf32>,
                              %nw: memref<8192xbf16>,
                              %out: memref<?x8192xbf16>) {
  // expected-error @+1 {{'lamport.all_reduce_dual_norm' op eps must be positive}}
  lamport.all_reduce_dual_norm %mb, %stream gates(%a, %b) next_weight %nw
      into %out {eps = 0.0 : f32} : !mb, memref<?x8192xf32>, memref<1xf32>,
      memref<1xf32>, memref<8192xbf16>, memref<?x8192xbf16>
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

func.func @dual_norm_eps_nan(%mb: !mb, %stream: memref<?x8192xf32>,
                             %a: memref<1xf32>, %b: memref<1xf32>,
                             %nw: memref<8192xbf16>,
                             %out: memref<?x8192xbf16>) {
  // expected-error @+1 {{'lamport.all_reduce_dual_norm' op eps must be positive}}
  lamport.all_reduce_dual_norm %mb, %stream gates(%a, %b) next_weight %nw
      into %out {eps = 0x7FC00000 : f32} : !mb, memref<?x8192xf32>,
      memref<1xf32>, memref<1xf32>, memref<8192xbf16>, memref<?x8192xbf16>
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

func.func @dual_norm_timeout(%mb: !mb, %stream: memref<?x8192xf32>,
                             %a: memref<1xf32>, %b: memref<1xf32>,
                             %nw: memref<8192xbf16>,
                             %out: memref<?x8192xbf16>) {
  // expected-error @+1 {{'lamport.all_reduce_dual_norm' op timeout_ns must be positive, got 0}}
  lamport.all_reduce_dual_norm %mb, %stream gates(%a, %b) next_weight %nw
      into %out {timeout_ns = 0 : i64} : !mb, memref<?x8192xf32>,
      memref<1xf32>, memref<1xf32>, memref<8192xbf16>, memref<?x8192xbf16>
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

// The residual stream is FP32.
func.func @dual_norm_stream_bf16(%mb: !mb, %stream: memref<?x8192xbf16>,
                                 %a: memref<1xf32>, %b: memref<1xf32>,
                                 %nw: memref<8192xbf16>,
                                 %out: memref<?x8192xbf16>) {
  // expected-error @+1 {{'lamport.all_reduce_dual_norm' op operand #1 must be 2D memref of 32-bit float values, but got 'memref<?x8192xbf16>'}}
  lamport.all_reduce_dual_norm %mb, %stream gates(%a, %b) next_weight %nw
      into %out : !mb, memref<?x8192xbf16>, memref<1xf32>, memref<1xf32>,
      memref<8192xbf16>, memref<?x8192xbf16>
  return
}

// -----

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

func.func @dual_norm_weight_f32(%mb: !mb, %stream: memref<?x8192xf32>,
                                %a: memref<1xf32>, %b: memref<1xf32>,
                                %nw: memref<8192xf32>,
                                %out: memref<?x8192xbf16>) {
  // expected-error @+1 {{'lamport.all_reduce_dual_norm' op operand #4 must be 1D memref of bfloat16 type values, but got 'memref<8192xf32>'}}
  lamport.all_reduce_dual_norm %mb, %stream gates(%a, %b) next_weight %nw
      into %out : !mb, memref<?x8192xf32>, memref<1xf32>, memref<1xf32>,
      memref<8192xf32>, memref<?x8192xbf16>
  return
}

// -----

//===----------------------------------------------------------------------===//
// lamport.dual_norm
//===----------------------------------------------------------------------===//

func.func @dual_norm_reduced_dynamic(%r: memref<?x?xbf16>,
                                     %stream: memref<?x8192xf32>,
                                     %a: memref<1xf32>, %b: memref<1xf32>,
                                     %nw: memref<8192xbf16>,
                                     %out: memref<?x8192xbf16>) {
  // expected-error @+1 {{'lamport.dual_norm' op reduced 'memref<?x?xbf16>' must have a static hidden size}}
  lamport.dual_norm %r, %stream gates(%a, %b) next_weight %nw into %out
      : memref<?x?xbf16>, memref<?x8192xf32>, memref<1xf32>, memref<1xf32>,
        memref<8192xbf16>, memref<?x8192xbf16>
  return
}

// -----

func.func @dual_norm_reduced_tokens(%r: memref<4x8192xbf16>,
                                    %stream: memref<?x8192xf32>,
                                    %a: memref<1xf32>, %b: memref<1xf32>,
                                    %nw: memref<8192xbf16>,
                                    %out: memref<2x8192xbf16>) {
  // expected-error @+1 {{'lamport.dual_norm' op reduced has M = 4 but out has M = 2}}
  lamport.dual_norm %r, %stream gates(%a, %b) next_weight %nw into %out
      : memref<4x8192xbf16>, memref<?x8192xf32>, memref<1xf32>, memref<1xf32>,
        memref<8192xbf16>, memref<2x8192xbf16>
  return
}

// -----

// A static reduced is checked even where stream and out are dynamic.
func.func @dual_norm_reduced_above_16(%r: memref<32x8192xbf16>,
                                      %stream: memref<?x8192xf32>,
                                      %a: memref<1xf32>, %b: memref<1xf32>,
                                      %nw: memref<8192xbf16>,
                                      %out: memref<?x8192xbf16>) {
  // expected-error @+1 {{'lamport.dual_norm' op reduced has M = 32 tokens; needs 1 <= M <= 16}}
  lamport.dual_norm %r, %stream gates(%a, %b) next_weight %nw into %out
      : memref<32x8192xbf16>, memref<?x8192xf32>, memref<1xf32>, memref<1xf32>,
        memref<8192xbf16>, memref<?x8192xbf16>
  return
}

// -----

func.func @dual_norm_hidden_from_reduced(%r: memref<?x4096xbf16>,
                                         %stream: memref<?x8192xf32>,
                                         %a: memref<1xf32>, %b: memref<1xf32>,
                                         %nw: memref<8192xbf16>,
                                         %out: memref<?x8192xbf16>) {
  // expected-error @+1 {{'lamport.dual_norm' op stream 'memref<?x8192xf32>': dimension 1 must be 4096 (the hidden size)}}
  lamport.dual_norm %r, %stream gates(%a, %b) next_weight %nw into %out
      : memref<?x4096xbf16>, memref<?x8192xf32>, memref<1xf32>, memref<1xf32>,
        memref<8192xbf16>, memref<?x8192xbf16>
  return
}

// -----

func.func @dual_norm_gate_not_f32(%r: memref<?x8192xbf16>,
                                  %stream: memref<?x8192xf32>,
                                  %a: memref<1xbf16>, %b: memref<1xf32>,
                                  %nw: memref<8192xbf16>,
                                  %out: memref<?x8192xbf16>) {
  // expected-error @+1 {{'lamport.dual_norm' op operand #2 must be 1D memref of 32-bit float values, but got 'memref<1xbf16>'}}
  lamport.dual_norm %r, %stream gates(%a, %b) next_weight %nw into %out
      : memref<?x8192xbf16>, memref<?x8192xf32>, memref<1xbf16>,
        memref<1xf32>, memref<8192xbf16>, memref<?x8192xbf16>
  return
}
