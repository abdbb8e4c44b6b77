// fuzz-pipeline: builtin.module(gpu.module(convert-lamport-to-nvvm))


!mb = !lamport.mailbox<tp = 4, capacity = 8, width = 512>

gpu.module @poll {
  gpu.func @strided(%mb: !mb, %stage: i32, %out: memref<2x8xbf16, 1>) kernel {
    %row = gpu.block_id x
    %tid = gpu.thread_id x
    %c8 = arith.constant 8 : index
    %col = arith.muli %tid, %c8 : index
    %slot = arith.constant 1 : i32
    %stride = arith.constant 4096 : index
    %f = lamport.mailbox.poll %mb[%stage, %slot, %row, %col] stride %stride
        : !mb -> vector<2x8xbf16>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %f0 = vector.extract %f[0] : vector<8xbf16> from vector<2x8xbf16>
    %f1 = vector.extract %f[1] : vector<8xbf16> from vector<2x8xbf16>
    vector.store %f0, %out[%c0, %c0] {alignment = 16}
        : memref<2x8xbf16, 1>, vector<8xbf16>
    vector.store %f1, %out[%c1, %c0] {alignment = 16}
        : memref<2x8xbf16, 1>, vector<8xbf16>
    gpu.return
  }
}

