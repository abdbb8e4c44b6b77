// RUN: lamport-opt %s -split-input-file -lamport-lower-host -verify-diagnostics

// What lamport-lower-host refuses, each with the rule it breaks.

!mb = !lamport.mailbox<tp = 2, capacity = 8, width = 512>

// A program-level op must become launches first.
func.func @program_level(%rows: memref<?x512xbf16>, %mb: !mb) {
  // expected-error @below {{'lamport.publish_rows' op takes a mailbox on the host, where only kernel launches and calls may (lamport-generate-kernels turns program-level ops into launches first)}}
  lamport.publish_rows %rows into %mb : memref<?x512xbf16>, !mb
  return
}

// -----

!mb = !lamport.mailbox<tp = 2, capacity = 8, width = 512>

// expected-error @below {{'func.func' op returns a mailbox; a program takes its mailboxes as arguments}}
func.func @returns(%mb: !mb) -> !mb {
  return %mb : !mb
}

// -----

!mb = !lamport.mailbox<tp = 2, capacity = 8, width = 512>

// A mailbox must come straight from the function's arguments.
func.func @block_argument(%mb: !mb, %c: i1) {
  // expected-error @below {{'cf.br' op takes a mailbox on the host}}
  cf.br ^next(%mb : !mb)
^next(%other: !mb):
  return
}

// -----

!mb = !lamport.mailbox<tp = 2, capacity = 8, width = 512>

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @kernel(%mb: !mb) kernel {
      gpu.return
    }
  }
  func.func @unlowered_kernel(%mb: !mb) {
    %c1 = arith.constant 1 : index
    // expected-error @below {{'gpu.launch_func' op launches a kernel that is still a gpu.func: lower the kernels first (lamport-lower-to-nvvm), since the launch then passes the parameters of the lowered kernel}}
    gpu.launch_func @kernels::@kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%mb : !mb)
    return
  }
}

// -----

!mb = !lamport.mailbox<tp = 2, capacity = 8, width = 512>

module attributes {gpu.container_module} {
  gpu.binary @kernel [#gpu.object<#nvvm.target, "PTX">]
  func.func @already_async(%mb: !mb) {
    %c1 = arith.constant 1 : index
    %token = gpu.wait async
    // expected-error @below {{'gpu.launch_func' op is asynchronous already: lamport-lower-host puts every launch of a program on its rank's stream}}
    %done = gpu.launch_func async [%token] @kernel::@kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%mb : !mb)
    return
  }
}

// -----

!mb = !lamport.mailbox<tp = 2, capacity = 8, width = 512>

module attributes {gpu.container_module} {
  gpu.binary @kernel [#gpu.object<#nvvm.target, "PTX">]
  func.func @shared_memory(%mb: !mb, %buffer: memref<16xf32, 3>) {
    %c1 = arith.constant 1 : index
    // expected-error @below {{'gpu.launch_func' op passes a memref in memory space 3 : i64, which a kernel cannot take as a global pointer}}
    gpu.launch_func @kernel::@kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%mb : !mb, %buffer : memref<16xf32, 3>)
    return
  }
}

// -----

!mb = !lamport.mailbox<tp = 2, capacity = 8, width = 512>

module attributes {gpu.container_module} {
  // expected-note @below {{the module's declaration}}
  llvm.func @lamportMailboxStream(i32) -> !llvm.ptr
  gpu.binary @kernel [#gpu.object<#nvvm.target, "PTX">]
  // expected-error @below {{'func.func' op needs the C API function 'lamportMailboxStream' of type '!llvm.func<ptr (ptr)>', but the module declares it as '!llvm.func<ptr (i32)>'}}
  func.func @declared_otherwise(%mb: !mb) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernel::@kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%mb : !mb)
    return
  }
}

// -----

!mb = !lamport.mailbox<tp = 2, capacity = 8, width = 512>

module attributes {gpu.container_module} {
  // expected-note @below {{the other symbol}}
  memref.global "private" @lamportMailboxDescriptor : memref<1xi8>
  gpu.binary @kernel [#gpu.object<#nvvm.target, "PTX">]
  // expected-error @below {{'func.func' op needs the C API function 'lamportMailboxDescriptor', but the module has another symbol of that name}}
  func.func @named_otherwise(%mb: !mb) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernel::@kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%mb : !mb)
    return
  }
}
