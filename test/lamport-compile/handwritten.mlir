// REQUIRES: ptxas
// The plan reader takes any program of launches, not only generated ones: a
// hand-written kernel (no lamport.* kernel attributes, so parameters are
// known by their types) launched twice is listed once and launched twice.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: lamport-compile %s -o %t/bundle --program step
// RUN: FileCheck %s < %t/bundle/manifest.json
// RUN: test -s %t/bundle/advance.cubin
// RUN: not lamport-compile %s -o %t/renamed --program renamed 2>&1 | FileCheck %s --check-prefix=RENAMED
// RUN: not lamport-compile %s -o %t/rebound --program rebound 2>&1 | FileCheck %s --check-prefix=REBOUND
//
// CHECK:      "program": "step",
// CHECK:      "kernels": [
// CHECK-NEXT:   {
// CHECK-NEXT:     "name": "advance",
// CHECK-NEXT:     "op": "advance",
// CHECK:          "grid": [1, 1, 1],
// CHECK-NEXT:     "block": [32, 1, 1],
// CHECK:          "pdl": false,
// CHECK-NEXT:     "attributes": {},
// CHECK-NEXT:     "params": [
// CHECK-NEXT:       {"kind": "mailbox", "argument": 0, "size": 56, "align": 8},
// CHECK-NEXT:       {"kind": "tokens", "size": 4, "align": 4}
// CHECK-NEXT:     ]
// CHECK-NEXT:   }
// CHECK-NEXT: ],
// CHECK-NEXT: "launches": [
// CHECK-NEXT:   {"kernel": "advance"},
// CHECK-NEXT:   {"kernel": "advance"}
// CHECK-NEXT: ]
//
// RENAMED: handwritten.mlir:[[@LINE+33]]:5: error: 'gpu.launch_func' op launches kernel 'advance' of gpu.module 'other': a bundle kernel's gpu.module and gpu.func share one name
// REBOUND: handwritten.mlir:[[@LINE+43]]:5: error: 'gpu.launch_func' op launches 'advance' again with other arguments or another launch shape: a bundle kernel has one binding

!mb = !lamport.mailbox<tp = 2, capacity = 4, width = 64>

module attributes {gpu.container_module} {
  gpu.module @advance {
    gpu.func @advance(%mb: !mb, %tokens: i32) kernel {
      %stage = lamport.stage.active %mb : !mb
      lamport.stage.advance %mb, %stage : !mb
      gpu.return
    }
  }
  gpu.module @other {
    gpu.func @advance(%mb: !mb, %tokens: i32) kernel {
      gpu.return
    }
  }

  func.func @step(%mb: !mb) {
    %one = arith.constant 1 : index
    %warp = arith.constant 32 : index
    %m = arith.constant 1 : i32
    gpu.launch_func @advance::@advance blocks in (%one, %one, %one)
        threads in (%warp, %one, %one) args(%mb : !mb, %m : i32)
    gpu.launch_func @advance::@advance blocks in (%one, %one, %one)
        threads in (%warp, %one, %one) args(%mb : !mb, %m : i32)
    return
  }

  func.func @renamed(%mb: !mb) {
    %one = arith.constant 1 : index
    %m = arith.constant 1 : i32
    gpu.launch_func @other::@advance blocks in (%one, %one, %one)
        threads in (%one, %one, %one) args(%mb : !mb, %m : i32)
    return
  }

  func.func @rebound(%mb: !mb) {
    %one = arith.constant 1 : index
    %two = arith.constant 2 : index
    %m = arith.constant 1 : i32
    gpu.launch_func @advance::@advance blocks in (%one, %one, %one)
        threads in (%one, %one, %one) args(%mb : !mb, %m : i32)
    gpu.launch_func @advance::@advance blocks in (%two, %one, %one)
        threads in (%one, %one, %one) args(%mb : !mb, %m : i32)
    return
  }
}
