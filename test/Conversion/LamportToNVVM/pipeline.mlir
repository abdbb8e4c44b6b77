// RUN: lamport-opt %s -lamport-lower-to-nvvm | FileCheck %s --check-prefix=DEFAULT
// RUN: lamport-opt %s -lamport-lower-to-nvvm | %python %S/../Inputs/extract_ptx.py > %t.default.ptx
// RUN: FileCheck %s --check-prefix=DEFAULT-PTX < %t.default.ptx
// RUN: %ptxas -arch=sm_90 %t.default.ptx -o /dev/null
// RUN: lamport-opt %s -lamport-lower-to-nvvm="chip=sm_100a opt-level=1 transport=multicast timeout-ns=1234" | FileCheck %s --check-prefix=OPTIONS
// RUN: lamport-opt %s -lamport-lower-to-nvvm="chip=sm_100a opt-level=1 transport=multicast timeout-ns=1234" | %python %S/../Inputs/extract_ptx.py > %t.options.ptx
// RUN: FileCheck %s --check-prefix=OPTIONS-PTX < %t.options.ptx
// RUN: %ptxas -arch=sm_100a %t.options.ptx -o /dev/null
// RUN: lamport-opt %s -lamport-lower-to-nvvm="features=+ptx88" | %python %S/../Inputs/extract_ptx.py > %t.ptx88.ptx
// RUN: FileCheck %s --check-prefix=PTX88 < %t.ptx88.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx88.ptx -o /dev/null
// REQUIRES: ptxas

// lamport-lower-to-nvvm turns each gpu.module of kernels made of lamport
// primitives and arith/vector/memref/gpu ops into a gpu.binary holding PTX,
// and leaves host code alone. Its options: chip (sm_90), features (+ptx86:
// multimem.st needs PTX 8.1, sm_100a 8.6), opt-level (3), transport
// (unicast) and timeout-ns (1 s) for ops that set neither, which the
// module's lamport_poll_timeout_ns overrides where the host sets it.

!mb = !lamport.mailbox<tp = 2, capacity = 8, width = 512>

module attributes {gpu.container_module} {
  // DEFAULT: gpu.binary @kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx86">
  // OPTIONS: gpu.binary @kernels [#gpu.object<#nvvm.target<O = 1, chip = "sm_100a", features = "+ptx86">
  gpu.module @kernels {
    gpu.func @exchange(%mb: !mb, %src: memref<8x512xbf16, 1>,
                       %dst: memref<2x8x512xbf16, 1>) kernel {
      %row = gpu.block_id x
      %tid = gpu.thread_id x
      %c8 = arith.constant 8 : index
      %col = arith.muli %tid, %c8 : index
      %next = lamport.stage.next %mb : !mb
      %v = vector.load %src[%row, %col] {alignment = 16}
          : memref<8x512xbf16, 1>, vector<8xbf16>
      lamport.mailbox.publish %v, %mb[%next, %row, %col] : vector<8xbf16>, !mb
      %slot = arith.constant 1 : i32
      %c0 = arith.constant 0 : index
      %f = lamport.mailbox.poll_at %mb[%next, %slot, %row, %col] offsets [0]
          : !mb -> vector<1x8xbf16>
      %w = vector.extract %f[0] : vector<8xbf16> from vector<1x8xbf16>
      vector.store %w, %dst[%c0, %row, %col] {alignment = 16}
          : memref<2x8x512xbf16, 1>, vector<8xbf16>
      gpu.return
    }
  }

  // DEFAULT: func.func @host
  // OPTIONS: func.func @host
  func.func @host() {
    return
  }
}

// DEFAULT-PTX: .version 8.6
// DEFAULT-PTX-NEXT: .target sm_90
// DEFAULT-PTX: .visible .global .align 8 .u64 lamport_poll_timeout_ns;
// DEFAULT-PTX-LABEL: .visible .entry exchange(
// DEFAULT-PTX-NEXT: .param .align 8 .b8 exchange_param_0[56],
// DEFAULT-PTX-NEXT: .param .u64 .ptr .global .align {{[0-9]+}} exchange_param_1,
// DEFAULT-PTX-NEXT: .param .u64 .ptr .global .align {{[0-9]+}} exchange_param_2
// DEFAULT-PTX-NEXT: )
// DEFAULT-PTX-NOT: multimem
// DEFAULT-PTX: ld.global.b64 %rd[[OVERRIDE:[0-9]+]], [lamport_poll_timeout_ns];
// DEFAULT-PTX: setp.eq.b64 %p[[UNSET:[0-9]+]], %rd[[OVERRIDE]], 0;
// DEFAULT-PTX-NEXT: selp.b64 %rd[[TIMEOUT:[0-9]+]], 1000000000, %rd[[OVERRIDE]], %p[[UNSET]];
// DEFAULT-PTX: %globaltimer
// DEFAULT-PTX: add.s64 %rd{{[0-9]+}}, %rd{{[0-9]+}}, %rd[[TIMEOUT]];
// DEFAULT-PTX: trap;

// OPTIONS-PTX: .version 8.6
// OPTIONS-PTX-NEXT: .target sm_100a
// OPTIONS-PTX: multimem.st.relaxed.sys.global.v4.f32
// OPTIONS-PTX: selp.b64 %rd[[TIMEOUT:[0-9]+]], 1234, %rd{{[0-9]+}}, %p{{[0-9]+}};
// OPTIONS-PTX: add.s64 %rd{{[0-9]+}}, %rd{{[0-9]+}}, %rd[[TIMEOUT]];
// OPTIONS-PTX: trap;

// PTX88: .version 8.8
// PTX88-NEXT: .target sm_90
