// RUN: lamport-opt %s -split-input-file -verify-diagnostics

// What the verifiers of the shared kernel mechanisms refuse, each with the
// rule it breaks.

func.func @no_bytes(%barrier: !llvm.ptr<3>) {
  // expected-error @below {{'lamport.cluster.expect_bytes' op expects 0 bytes: an mbarrier's transaction count must be a positive multiple of 4 (each lamport.cluster.send carries 4 bytes) of at most 1048575}}
  lamport.cluster.expect_bytes %barrier, 0 : !llvm.ptr<3>
  return
}

// -----

func.func @partial_word(%barrier: !llvm.ptr<3>) {
  // expected-error @below {{expects 6 bytes: an mbarrier's transaction count must be a positive multiple of 4}}
  lamport.cluster.expect_bytes %barrier, 6 : !llvm.ptr<3>
  return
}

// -----

func.func @too_many_bytes(%barrier: !llvm.ptr<3>) {
  // expected-error @below {{expects 1048576 bytes: an mbarrier's transaction count must be a positive multiple of 4 (each lamport.cluster.send carries 4 bytes) of at most 1048575}}
  lamport.cluster.expect_bytes %barrier, 1048576 : !llvm.ptr<3>
  return
}

// -----

func.func @global_barrier(%barrier: !llvm.ptr<1>) {
  // expected-error @below {{operand #0 must be LLVM pointer in address space 3}}
  lamport.cluster.expect_bytes %barrier, 16 : !llvm.ptr<1>
  return
}

// -----

func.func @wide_value(%slot: !llvm.ptr<3>, %value: i64, %rank: i32) {
  // expected-error @below {{operand #0 must be 32-bit signless integer or 32-bit float}}
  lamport.cluster.send %value to %slot of %rank completing %slot : i64
  return
}

// -----

func.func @guard_too_small(%tokens: i32, %y: memref<2xbf16, 1>, %digest: i64) {
  // expected-error @below {{'lamport.pdl.wait' op guard holds 4 bytes, but the never-taken guard store writes 8}}
  lamport.pdl.wait %tokens, %y, %digest : memref<2xbf16, 1>
  return
}

// -----

func.func @guard_in_shared(%tokens: i32, %y: memref<16xf32, 3>) {
  // expected-error @below {{'lamport.pdl.wait' op guard must be in global memory (address space 1 or the default space), got 3 : i64}}
  lamport.pdl.wait %tokens, %y : memref<16xf32, 3>
  return
}

// -----

func.func @guard_strided(%tokens: i32,
                         %y: memref<4x4xf32, strided<[8, 1]>, 1>) {
  // expected-error @below {{'lamport.pdl.wait' op guard must be a dense row-major memref: the lowering stores to its first element}}
  lamport.pdl.wait %tokens, %y : memref<4x4xf32, strided<[8, 1]>, 1>
  return
}

// -----

func.func @guard_of_indices(%tokens: i32, %y: memref<4xindex, 1>) {
  // expected-error @below {{'lamport.pdl.wait' op guard must hold integers or floats, got 'index'}}
  lamport.pdl.wait %tokens, %y : memref<4xindex, 1>
  return
}

// -----

func.func @load_from_shared(%address: !llvm.ptr<3>, %policy: i64) {
  // expected-error @below {{operand #0 must be LLVM pointer in address space 1}}
  %words = lamport.l2.load_fragment %address, %policy
      : !llvm.ptr<3> -> vector<4xi32>
  return
}

// -----

func.func @no_arrivals(%barrier: !llvm.ptr<3>) {
  // expected-error @below {{'lamport.ring.init' op expects 0 arrivals: an mbarrier takes 1 to 1048575}}
  lamport.ring.init %barrier, 0 : !llvm.ptr<3>
  return
}

// -----

func.func @too_many_arrivals(%barrier: !llvm.ptr<3>) {
  // expected-error @below {{'lamport.ring.init' op expects 1048576 arrivals: an mbarrier takes 1 to 1048575}}
  lamport.ring.init %barrier, 1048576 : !llvm.ptr<3>
  return
}

// -----

func.func @partial_granule(%barrier: !llvm.ptr<3>) {
  // expected-error @below {{'lamport.ring.expect' op expects 1000 bytes: a bulk copy moves a positive multiple of 16 bytes, and an mbarrier counts at most 1048575}}
  lamport.ring.expect %barrier, 1000 : !llvm.ptr<3>
  return
}

// -----

func.func @stage_too_large(%barrier: !llvm.ptr<3>) {
  // expected-error @below {{'lamport.ring.expect' op expects 1048576 bytes: a bulk copy moves a positive multiple of 16 bytes}}
  lamport.ring.expect %barrier, 1048576 : !llvm.ptr<3>
  return
}

// -----

func.func @empty_copy(%barrier: !llvm.ptr<3>, %stage: !llvm.ptr<3>,
                      %weight: !llvm.ptr<1>, %policy: i64) {
  // expected-error @below {{'lamport.bulk.copy' op expects 0 bytes: a bulk copy moves a positive multiple of 16 bytes}}
  lamport.bulk.copy 0 from %weight into %stage completing %barrier, %policy
      : !llvm.ptr<1>
  return
}

// -----

func.func @copy_off_granule(%barrier: !llvm.ptr<3>, %stage: !llvm.ptr<3>,
                            %weight: !llvm.ptr<1>, %policy: i64) {
  // expected-error @below {{'lamport.bulk.copy' op expects 24 bytes: a bulk copy moves a positive multiple of 16 bytes}}
  lamport.bulk.copy 24 from %weight into %stage completing %barrier, %policy
      : !llvm.ptr<1>
  return
}

// -----

func.func @copy_from_shared(%barrier: !llvm.ptr<3>, %stage: !llvm.ptr<3>,
                            %policy: i64) {
  // expected-error @below {{operand #0 must be LLVM pointer in address space 1}}
  "lamport.bulk.copy"(%stage, %stage, %barrier, %policy) {bytes = 16 : i64}
      : (!llvm.ptr<3>, !llvm.ptr<3>, !llvm.ptr<3>, i64) -> ()
  return
}

// -----

func.func @parity_two(%barrier: !llvm.ptr<3>) {
  // expected-error @below {{'lamport.ring.wait' op expects parity 0 or 1, got 2}}
  lamport.ring.wait %barrier, 2 : !llvm.ptr<3>
  return
}

// -----

func.func @tensor_copy_off_granule(%barrier: !llvm.ptr<3>, %stage: !llvm.ptr<3>,
                                   %map: !llvm.ptr, %k: i32, %row: i32,
                                   %policy: i64) {
  // expected-error @below {{'lamport.bulk.copy_tensor' op expects 100 bytes: a bulk copy moves a positive multiple of 16 bytes}}
  lamport.bulk.copy_tensor 100 from %map[%k, %row] into %stage
      completing %barrier, %policy : !llvm.ptr
  return
}
