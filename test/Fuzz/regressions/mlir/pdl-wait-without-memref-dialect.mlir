// fuzz-pipeline: builtin.module(gpu.module(convert-lamport-to-nvvm))
// convert-lamport-to-nvvm on a kernel whose only memref is the PDL wait's
// guard: the pass must load the memref dialect itself to take its address.
gpu.module @kernels {
  gpu.func @wait_only(%tokens: i32, %y: memref<16x1024xbf16, 1>) kernel {
    lamport.pdl.wait %tokens, %y : memref<16x1024xbf16, 1>
    gpu.return
  }
}
