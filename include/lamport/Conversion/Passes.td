//===- Passes.td - Lamport conversion passes ---------------*- tablegen -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_CONVERSION_PASSES_TD
#define LAMPORT_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// LamportToNVVM
//===----------------------------------------------------------------------===//

def ConvertLamportToNVVMPass
    : Pass<"convert-lamport-to-nvvm", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Lower the kernel-level lamport primitives to NVVM and LLVM";
  let description = [{
    Lowers the primitives inside the `gpu.func` kernels of a `gpu.module`
    (`lamport.mailbox.publish`, `poll`, `poll_at`, `rearm`, `poll_owned` and
    the `lamport.stage.*` ops) to the LLVM and NVVM dialects, plus `scf`
    loops for the polls. Everything else (arith, vector, memref, gpu) is left
    to `convert-gpu-to-nvvm`, which must run afterwards.

    A `gpu.func` argument of type `!lamport.mailbox<tp = T, ...>` becomes the
    by-value mailbox descriptor of docs/bundle.md,
    `!llvm.struct<(ptr<1>, ptr<1>, ptr<1>, ptr<1>, i32, i32,
    array<T x ptr<1>>)>`, so the kernel takes it as one `.param .align 8
    .b8 [40 + 8 T]` parameter. A mailbox value that is not such an argument,
    and a program-level lamport op, are errors.

    - publish: every BF16 lane equal to -0.0 becomes +0.0 with integer ops;
      `multicast` issues one `multimem.st.relaxed.sys.global.v4.f32` per
      16-byte fragment, `unicast` one 16-byte store per peer, `to %rank` one
      store into that rank's copy. `release_before` issues a system-scope
      release fence first.
    - poll, poll_at, poll_owned: volatile 16-byte loads, all issued before any
      check; a bit-exact test for the sentinel 0x8000 in each BF16 lane;
      only the fragments that still hold it are loaded again. The first miss
      arms a deadline `timeout_ns` after `%globaltimer`; a miss past it
      fills the descriptor's timeout record (when it has one and wins the
      claim; a poll that loses it waits 1 ms so its trap cannot cut the
      record short), fences at system scope and traps.
    - rearm: a 16-byte store of eight sentinels per fragment.
    - stage ops: volatile loads and stores of the stage words, the
      set-active store after a system-scope release fence; tickets are
      shifts by 16.
  }];
  // memref: the PDL wait's guard address (memref.extract_aligned_pointer_as
  // _index), which a kernel without other memref ops would not load.
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect",
    "::mlir::NVVM::NVVMDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
  ];
  let options = [
    Option<"transport", "transport", "::mlir::lamport::Transport",
           "::mlir::lamport::Transport::unicast",
           "Transport of publishes that set none (and have no 'to')",
           [{::llvm::cl::values(
               clEnumValN(::mlir::lamport::Transport::unicast, "unicast",
                          "one 16-byte store per peer"),
               clEnumValN(::mlir::lamport::Transport::multicast, "multicast",
                          "one multimem.st to the multicast address"))}]>,
    Option<"timeoutNs", "timeout-ns", "int64_t",
           "::mlir::lamport::LamportDialect::kDefaultTimeoutNs",
           "Timeout in ns of polls that set no timeout_ns (positive)">,
  ];
}

//===----------------------------------------------------------------------===//
// LamportHostToLLVM
//===----------------------------------------------------------------------===//

def LowerLamportHostPass : Pass<"lamport-lower-host", "::mlir::ModuleOp"> {
  let summary = "Lower the host side of lamport programs to calls of the "
                "runtime's C API, for upstream's gpu-to-llvm";
  let description = [{
    After `lamport-generate-kernels` a program function launches its kernels
    with `gpu.launch_func`, passing `!lamport.mailbox` values that no
    upstream pass can lower. This pass rewrites every host function (a
    `func.func` outside `gpu.module`s) with a mailbox argument into what
    upstream's `gpu-to-llvm`, `convert-to-llvm` and `mlir-translate
    --mlir-to-llvmir` take, following the host ABI of docs/c-api.md:

    - each mailbox argument becomes an `!llvm.ptr`: a `LamportMailbox`
      handle (`lamportRuntimeGetMailbox`, include/lamport-c/HostRuntime.h);
    - at each launch a mailbox operand becomes the descriptor the kernel
      takes by value (docs/bundle.md): `lamportMailboxDescriptor(handle, tp,
      capacity, width)` returns its packed bytes and an `llvm.load` reads
      them as `!llvm.struct<(ptr<1>, ptr<1>, ptr<1>, ptr<1>, i32, i32,
      array<tp x ptr<1>>)>`, the parameter convert-lamport-to-nvvm gave the
      kernel;
    - a memref operand becomes the bare pointer the kernel takes (its
      aligned pointer plus its offset), so `gpu-to-llvm` needs no
      bare-pointer option;
    - every launch goes on the stream of its mailbox's rank
      (`lamportMailboxStream`, the launch's async object; a launch without
      a mailbox takes the function's first mailbox's), and its sizes become
      i64, so `gpu-to-llvm` finds the launch legal and keeps it as it is:
      the translation then calls `mgpuLaunchKernel` or
      `mgpuLaunchClusterKernel` on that stream and does not wait, and
      libLamportCudaRuntime.so holds the launch for the runtime's step
      (`lamportRuntimeBeginStep` / `EndStep`).

    Run it after the kernels are lowered (`lamport-lower-to-nvvm`): a
    launch of a kernel that is still a `gpu.func` is an error, since the
    launch now passes the lowered kernel's parameters.

    With `emit-c-interface` (the default) each such function is marked
    `llvm.emit_c_interface`, so C calls `_mlir_ciface_<name>` with memref
    descriptors. Functions without a mailbox argument are left alone. A
    mailbox that reaches a host op other than a launch or a call, a mailbox
    result or a launch that has an async object already is an error.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::memref::MemRefDialect",
  ];
  let options = [
    Option<"emitCInterface", "emit-c-interface", "bool", "true",
           "Mark the lowered functions llvm.emit_c_interface">,
  ];
}

#endif // LAMPORT_CONVERSION_PASSES_TD
