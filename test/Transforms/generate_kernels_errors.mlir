// RUN: lamport-opt %s --lamport-generate-kernels --split-input-file --verify-diagnostics
// RUN: not lamport-opt %s --lamport-generate-kernels=threads-per-cta=100 --split-input-file 2>&1 | FileCheck %s --check-prefix=THREADS
// RUN: not lamport-opt %s --lamport-generate-kernels=max-ctas=0 --split-input-file 2>&1 | FileCheck %s --check-prefix=CTAS

// THREADS: error: threads-per-cta must be a multiple of 32 in 32..1024, got 100
// CTAS: error: max-ctas must be positive

!mb = !lamport.mailbox<tp = 2, capacity = 4, width = 64>

func.func @strided_rows(%rows: memref<?x64xbf16, strided<[128, 1]>>, %mb: !mb) {
  // expected-error @+1 {{'lamport.publish_rows' op has no kernel for rows 'memref<?x64xbf16, strided<[128, 1]>>': a kernel indexes its buffers as dense row-major memrefs, so the layout must be the identity}}
  lamport.publish_rows %rows into %mb : memref<?x64xbf16, strided<[128, 1]>>, !mb
  return
}

// -----

!mb = !lamport.mailbox<tp = 2, capacity = 4, width = 64>

func.func @shared_out(%mb: !mb, %out: memref<?x64xbf16, 3>) {
  // expected-error @+1 {{'lamport.all_reduce' op has no kernel for out 'memref<?x64xbf16, 3>': a buffer lives in the default or the global (1) address space}}
  lamport.all_reduce %mb into %out : !mb, memref<?x64xbf16, 3>
  return
}
