// RUN: lamport-opt %s --lamport-generate-kernels --split-input-file --verify-diagnostics

// What the dual-norm kernels refuse rather than generate wrong code for.

// A row must be whole warps of 16-byte fragments: H = 384 is 48 fragments.
!mb = !lamport.mailbox<tp = 2, capacity = 4, width = 384>

func.func @fused_hidden_not_256(%mb: !mb, %stream: memref<?x384xf32>,
                                %a: memref<1xf32>, %b: memref<1xf32>,
                                %nw: memref<384xbf16>,
                                %out: memref<?x384xbf16>) {
  // expected-error @+1 {{'lamport.all_reduce_dual_norm' op has no kernel: hidden size H = 384 must be a multiple of 256: each thread takes 16-byte fragments of 8 channels and a row's sums reduce over whole warps, so H / 8 must be a multiple of 32}}
  lamport.all_reduce_dual_norm %mb, %stream gates(%a, %b) next_weight %nw
      into %out : !mb, memref<?x384xf32>, memref<1xf32>, memref<1xf32>,
      memref<384xbf16>, memref<?x384xbf16>
  return
}

// -----

// The standalone op takes any static H, so even one below a fragment.
func.func @standalone_hidden_not_256(%r: memref<?x100xbf16>,
                                     %stream: memref<?x100xf32>,
                                     %a: memref<1xf32>, %b: memref<1xf32>,
                                     %nw: memref<100xbf16>,
                                     %out: memref<?x100xbf16>) {
  // expected-error @+1 {{'lamport.dual_norm' op has no kernel: hidden size H = 100 must be a multiple of 256}}
  lamport.dual_norm %r, %stream gates(%a, %b) next_weight %nw into %out
      : memref<?x100xbf16>, memref<?x100xf32>, memref<1xf32>, memref<1xf32>,
        memref<100xbf16>, memref<?x100xbf16>
  return
}

// -----

// Past 4 fragments a thread (8 CTAs x 256 threads x 4 x 8 = 65536 channels).
func.func @hidden_too_large(%r: memref<?x65792xbf16>,
                            %stream: memref<?x65792xf32>,
                            %a: memref<1xf32>, %b: memref<1xf32>,
                            %nw: memref<65792xbf16>,
                            %out: memref<?x65792xbf16>) {
  // expected-error @+1 {{'lamport.dual_norm' op has no kernel: hidden size H = 65792 needs 5 fragments per thread; a thread keeps its fragments in registers between the two norms and takes at most 4 (H <= 65536)}}
  lamport.dual_norm %r, %stream gates(%a, %b) next_weight %nw into %out
      : memref<?x65792xbf16>, memref<?x65792xf32>, memref<1xf32>,
        memref<1xf32>, memref<65792xbf16>, memref<?x65792xbf16>
  return
}

// -----

// Buffers are dense row-major in the default or global address space.
!mb = !lamport.mailbox<tp = 2, capacity = 4, width = 256>

func.func @strided_stream(%mb: !mb,
                          %stream: memref<?x256xf32, strided<[512, 1]>>,
                          %a: memref<1xf32>, %b: memref<1xf32>,
                          %nw: memref<256xbf16>, %out: memref<?x256xbf16>) {
  // expected-error @+1 {{'lamport.all_reduce_dual_norm' op has no kernel for stream 'memref<?x256xf32, strided<[512, 1]>>': a kernel indexes its buffers as dense row-major memrefs, so the layout must be the identity}}
  lamport.all_reduce_dual_norm %mb, %stream gates(%a, %b) next_weight %nw
      into %out : !mb, memref<?x256xf32, strided<[512, 1]>>, memref<1xf32>,
      memref<1xf32>, memref<256xbf16>, memref<?x256xbf16>
  return
}

// -----

func.func @shared_weight(%r: memref<?x256xbf16>, %stream: memref<?x256xf32>,
                         %a: memref<1xf32>, %b: memref<1xf32>,
                         %pw: memref<256xbf16, 3>, %nw: memref<256xbf16>,
                         %out: memref<?x256xbf16>) {
  // expected-error @+1 {{'lamport.dual_norm' op has no kernel for post_weight 'memref<256xbf16, 3>': a buffer lives in the default or the global (1) address space}}
  lamport.dual_norm %r, %stream gates(%a, %b) post_weight %pw : memref<256xbf16, 3>
      next_weight %nw into %out
      : memref<?x256xbf16>, memref<?x256xf32>, memref<1xf32>, memref<1xf32>,
        memref<256xbf16>, memref<?x256xbf16>
  return
}
