// Launch shapes a program's gpu.launch_func can ask for and no GPU runs:
// lamport-compile checks the grid, block, cluster and dynamic shared memory
// of every launch against the limits of sm_90 and sm_100a (the runtime
// checks them again against the device). Hand-written launches are how a
// program gets such a shape; launch-shapes.test compiles each program.

!mb = !lamport.mailbox<tp = 2, capacity = 4, width = 64>

module attributes {gpu.container_module} {
  gpu.module @advance {
    gpu.func @advance(%mb: !mb, %tokens: i32) kernel {
      %stage = lamport.stage.active %mb : !mb
      lamport.stage.advance %mb, %stage : !mb
      gpu.return
    }
  }

  func.func @good(%mb: !mb) {
    %c8 = arith.constant 8 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %c2 = arith.constant 2 : index
    %s1024 = arith.constant 1024 : i32
    %m = arith.constant 1 : i32
    gpu.launch_func @advance::@advance clusters in (%c2, %c1, %c1)
        blocks in (%c8, %c1, %c1)
        threads in (%c128, %c1, %c1)
        dynamic_shared_memory_size %s1024 args(%mb : !mb, %m : i32)
    return
  }

  func.func @grid_negative(%mb: !mb) {
    %cm1 = arith.constant -1 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %m = arith.constant 1 : i32
    gpu.launch_func @advance::@advance blocks in (%cm1, %c1, %c1)
        threads in (%c32, %c1, %c1) args(%mb : !mb, %m : i32)
    return
  }

  func.func @grid_zero(%mb: !mb) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %m = arith.constant 1 : i32
    gpu.launch_func @advance::@advance blocks in (%c0, %c1, %c1)
        threads in (%c32, %c1, %c1) args(%mb : !mb, %m : i32)
    return
  }

  func.func @grid_2_40(%mb: !mb) {
    %c1099511627776 = arith.constant 1099511627776 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %m = arith.constant 1 : i32
    gpu.launch_func @advance::@advance blocks in (%c1099511627776, %c1, %c1)
        threads in (%c32, %c1, %c1) args(%mb : !mb, %m : i32)
    return
  }

  func.func @grid_y_65536(%mb: !mb) {
    %c1 = arith.constant 1 : index
    %c65536 = arith.constant 65536 : index
    %c32 = arith.constant 32 : index
    %m = arith.constant 1 : i32
    gpu.launch_func @advance::@advance blocks in (%c1, %c65536, %c1)
        threads in (%c32, %c1, %c1) args(%mb : !mb, %m : i32)
    return
  }

  func.func @block_zero(%mb: !mb) {
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %m = arith.constant 1 : i32
    gpu.launch_func @advance::@advance blocks in (%c1, %c1, %c1)
        threads in (%c0, %c1, %c1) args(%mb : !mb, %m : i32)
    return
  }

  func.func @block_negative(%mb: !mb) {
    %c1 = arith.constant 1 : index
    %cm32 = arith.constant -32 : index
    %m = arith.constant 1 : i32
    gpu.launch_func @advance::@advance blocks in (%c1, %c1, %c1)
        threads in (%cm32, %c1, %c1) args(%mb : !mb, %m : i32)
    return
  }

  func.func @block_2048(%mb: !mb) {
    %c1 = arith.constant 1 : index
    %c2048 = arith.constant 2048 : index
    %m = arith.constant 1 : i32
    gpu.launch_func @advance::@advance blocks in (%c1, %c1, %c1)
        threads in (%c2048, %c1, %c1) args(%mb : !mb, %m : i32)
    return
  }

  func.func @block_threads(%mb: !mb) {
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c2 = arith.constant 2 : index
    %m = arith.constant 1 : i32
    gpu.launch_func @advance::@advance blocks in (%c1, %c1, %c1)
        threads in (%c32, %c32, %c2) args(%mb : !mb, %m : i32)
    return
  }

  func.func @cluster_16(%mb: !mb) {
    %c16 = arith.constant 16 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %m = arith.constant 1 : i32
    gpu.launch_func @advance::@advance clusters in (%c16, %c1, %c1)
        blocks in (%c16, %c1, %c1)
        threads in (%c32, %c1, %c1) args(%mb : !mb, %m : i32)
    return
  }

  func.func @cluster_ctas(%mb: !mb) {
    %c4 = arith.constant 4 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %m = arith.constant 1 : i32
    gpu.launch_func @advance::@advance clusters in (%c4, %c4, %c1)
        blocks in (%c4, %c4, %c1)
        threads in (%c32, %c1, %c1) args(%mb : !mb, %m : i32)
    return
  }

  func.func @cluster_divides(%mb: !mb) {
    %c6 = arith.constant 6 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c4 = arith.constant 4 : index
    %m = arith.constant 1 : i32
    gpu.launch_func @advance::@advance clusters in (%c4, %c1, %c1)
        blocks in (%c6, %c1, %c1)
        threads in (%c32, %c1, %c1) args(%mb : !mb, %m : i32)
    return
  }

  func.func @shared_negative(%mb: !mb) {
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %sm1 = arith.constant -1 : i32
    %m = arith.constant 1 : i32
    gpu.launch_func @advance::@advance blocks in (%c1, %c1, %c1)
        threads in (%c32, %c1, %c1)
        dynamic_shared_memory_size %sm1 args(%mb : !mb, %m : i32)
    return
  }

  func.func @shared_too_much(%mb: !mb) {
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %s300000 = arith.constant 300000 : i32
    %m = arith.constant 1 : i32
    gpu.launch_func @advance::@advance blocks in (%c1, %c1, %c1)
        threads in (%c32, %c1, %c1)
        dynamic_shared_memory_size %s300000 args(%mb : !mb, %m : i32)
    return
  }

  // Buffers whose manifest entry no runtime reads: a dimension past int32,
  // and bytes past int64.
  func.func @dim_2_62(%mb: !mb, %big: memref<4611686018427387904xbf16>) {
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %m = arith.constant 1 : i32
    gpu.launch_func @advance::@advance blocks in (%c1, %c1, %c1)
        threads in (%c32, %c1, %c1) args(%mb : !mb, %m : i32)
    return
  }

  func.func @bytes_2_64(%mb: !mb, %big: memref<?x2147483647x2147483647xf32>) {
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %m = arith.constant 1 : i32
    gpu.launch_func @advance::@advance blocks in (%c1, %c1, %c1)
        threads in (%c32, %c1, %c1) args(%mb : !mb, %m : i32)
    return
  }
}
