// RUN: lamport-opt %s --lamport-generate-kernels --split-input-file -verify-diagnostics

// What the all-gather kernel cannot take, though the op accepts it: the
// kernel stores into out as a dense row-major buffer in global memory.

!mb = !lamport.mailbox<tp = 2, capacity = 4, width = 32>

func.func @strided_out(%mb: !mb, %out: memref<?x64xbf16, strided<[128, 1]>>) {
  // expected-error @+1 {{'lamport.all_gather' op has no kernel for out 'memref<?x64xbf16, strided<[128, 1]>>': a kernel indexes its buffers as dense row-major memrefs, so the layout must be the identity}}
  lamport.all_gather %mb into %out : !mb, memref<?x64xbf16, strided<[128, 1]>>
  return
}

// -----

!mb = !lamport.mailbox<tp = 2, capacity = 4, width = 32>

func.func @shared_out(%mb: !mb, %out: memref<?x64xbf16, 3>) {
  // expected-error @+1 {{'lamport.all_gather' op has no kernel for out 'memref<?x64xbf16, 3>': a buffer lives in the default or the global (1) address space}}
  lamport.all_gather %mb into %out : !mb, memref<?x64xbf16, 3>
  return
}
