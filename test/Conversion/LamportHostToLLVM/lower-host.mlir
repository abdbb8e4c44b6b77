// RUN: lamport-opt %s -split-input-file -lamport-lower-host | FileCheck %s
// RUN: lamport-opt %s -split-input-file -lamport-lower-host=emit-c-interface=false | FileCheck %s --check-prefix=NO-C

// The host ABI of docs/c-api.md: mailbox arguments become LamportMailbox
// handles; each launch takes the mailbox's descriptor by value from
// lamportMailboxDescriptor, its buffers as bare pointers, its sizes as i64
// and the rank's stream from lamportMailboxStream as its async object. The
// kernels are binaries already (lamport-lower-to-nvvm ran).

!mb = !lamport.mailbox<tp = 2, capacity = 16, width = 8192>

module attributes {gpu.container_module} {
  gpu.binary @publish [#gpu.object<#nvvm.target, "PTX">]

  // CHECK-DAG: llvm.func @lamportMailboxDescriptor(!llvm.ptr, i32, i32, i32) -> !llvm.ptr
  // CHECK-DAG: llvm.func @lamportMailboxStream(!llvm.ptr) -> !llvm.ptr
  // CHECK-LABEL: func.func @program(
  // CHECK-SAME: %[[ROWS:[^:]+]]: memref<?x8192xbf16>, %[[MB:[^:]+]]: !llvm.ptr)
  // CHECK-SAME: attributes {llvm.emit_c_interface}
  // NO-C-LABEL: func.func @program(
  // NO-C-NOT: llvm.emit_c_interface
  // NO-C-SAME: {
  func.func @program(%rows: memref<?x8192xbf16>, %mb: !mb) {
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %c0 = arith.constant 0 : index
    %dim = memref.dim %rows, %c0 : memref<?x8192xbf16>
    %m = arith.index_castui %dim : index to i32
    %view = memref.reinterpret_cast %rows to offset: [0], sizes: [16, 8192], strides: [8192, 1] : memref<?x8192xbf16> to memref<16x8192xbf16>
    %global = memref.memory_space_cast %view : memref<16x8192xbf16> to memref<16x8192xbf16, 1>
    // CHECK-DAG: %[[TP:.*]] = llvm.mlir.constant(2 : i32) : i32
    // CHECK-DAG: %[[CAPACITY:.*]] = llvm.mlir.constant(16 : i32) : i32
    // CHECK-DAG: %[[WIDTH:.*]] = llvm.mlir.constant(8192 : i32) : i32
    // CHECK: %[[BYTES:.*]] = llvm.call @lamportMailboxDescriptor(%[[MB]], %[[TP]], %[[CAPACITY]], %[[WIDTH]])
    // CHECK: %[[DESCRIPTOR:.*]] = llvm.load %[[BYTES]] {alignment = 8 : i64} : !llvm.ptr -> !llvm.struct<(ptr<1>, ptr<1>, ptr<1>, ptr<1>, i32, i32, array<2 x ptr<1>>)>
    // CHECK: %[[ALIGNED:.*]] = memref.extract_aligned_pointer_as_index %{{.*}} : memref<16x8192xbf16, 1> -> index
    // CHECK: %[[ADDRESS:.*]] = arith.index_cast %[[ALIGNED]] : index to i64
    // CHECK: %[[POINTER:.*]] = llvm.inttoptr %[[ADDRESS]] : i64 to !llvm.ptr<1>
    // CHECK: %[[STREAM:.*]] = llvm.call @lamportMailboxStream(%[[MB]]) : (!llvm.ptr) -> !llvm.ptr
    // CHECK: gpu.launch_func <%[[STREAM]] : !llvm.ptr> @publish::@publish blocks in ({{.*}}) threads in ({{.*}}) : i64 args(%[[DESCRIPTOR]] : !llvm.struct<(ptr<1>, ptr<1>, ptr<1>, ptr<1>, i32, i32, array<2 x ptr<1>>)>, %[[POINTER]] : !llvm.ptr<1>, %{{.*}} : i32)
    gpu.launch_func @publish::@publish blocks in (%c128, %c1, %c1) threads in (%c128, %c1, %c1) args(%mb : !mb, %global : memref<16x8192xbf16, 1>, %m : i32)
    return
  }
}

// -----

// A view with an offset passes its first element's address; a cluster and
// dynamic shared memory stay; a launch without a mailbox goes on the
// stream of the function's first mailbox.

!mb = !lamport.mailbox<tp = 4, capacity = 8, width = 1024>

module attributes {gpu.container_module} {
  gpu.binary @norm [#gpu.object<#nvvm.target, "PTX">]

  // CHECK-LABEL: func.func @offsets(
  // CHECK-SAME: %[[BUFFER:[^:]+]]: memref<64xf32, strided<[1], offset: 32>, 1>, %[[MB:[^:]+]]: !llvm.ptr,
  func.func @offsets(%buffer: memref<64xf32, strided<[1], offset: 32>, 1>, %mb: !mb, %smem: i32) {
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    // CHECK: %[[ALIGNED:.*]] = memref.extract_aligned_pointer_as_index %[[BUFFER]]
    // CHECK: %[[ADDRESS:.*]] = arith.index_cast %[[ALIGNED]] : index to i64
    // CHECK: %[[ELEMENTS:.*]] = arith.constant 32 : i64
    // CHECK: %[[FOUR:.*]] = arith.constant 4 : i64
    // CHECK: %[[BYTES:.*]] = arith.muli %[[ELEMENTS]], %[[FOUR]] : i64
    // CHECK: %[[FIRST:.*]] = arith.addi %[[ADDRESS]], %[[BYTES]] : i64
    // CHECK: %[[POINTER:.*]] = llvm.inttoptr %[[FIRST]] : i64 to !llvm.ptr<1>
    // CHECK: %[[STREAM:.*]] = llvm.call @lamportMailboxStream(%[[MB]])
    // CHECK: gpu.launch_func <%[[STREAM]] : !llvm.ptr> @norm::@norm clusters in ({{.*}}) blocks in ({{.*}}) threads in ({{.*}}) : i64 dynamic_shared_memory_size %{{.*}} args(%[[POINTER]] : !llvm.ptr<1>)
    gpu.launch_func @norm::@norm clusters in (%c1, %c4, %c1) blocks in (%c4, %c4, %c1) threads in (%c4, %c1, %c1) dynamic_shared_memory_size %smem args(%buffer : memref<64xf32, strided<[1], offset: 32>, 1>)
    return
  }
}

// -----

// Calls between host functions pass the handle; a declaration changes its
// signature alone; a function without a mailbox is left as it is.

!mb = !lamport.mailbox<tp = 2, capacity = 16, width = 256>

// CHECK-LABEL: func.func private @external(!llvm.ptr)
func.func private @external(%mb: !mb)

// CHECK-LABEL: func.func @caller(
// CHECK-SAME: %[[MB:[^:]+]]: !llvm.ptr)
// CHECK: call @external(%[[MB]]) : (!llvm.ptr) -> ()
func.func @caller(%mb: !mb) {
  func.call @external(%mb) : (!mb) -> ()
  return
}

// CHECK-LABEL: func.func @untouched(
// CHECK-NOT: llvm.emit_c_interface
func.func @untouched(%x: i32) -> i32 {
  return %x : i32
}
