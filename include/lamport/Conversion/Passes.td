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
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect",
    "::mlir::NVVM::NVVMDialect",
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

#endif // LAMPORT_CONVERSION_PASSES_TD
