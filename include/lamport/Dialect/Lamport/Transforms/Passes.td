//===- Passes.td - Lamport dialect transformation passes ---*- tablegen -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_DIALECT_LAMPORT_TRANSFORMS_PASSES_TD
#define LAMPORT_DIALECT_LAMPORT_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def LamportGenerateKernels : Pass<"lamport-generate-kernels", "ModuleOp"> {
  let summary = "Turn program-level lamport ops into GPU kernels and launches";
  let description = [{
    A *program* is a `func.func` whose body applies program-level lamport ops
    (`lamport.publish_rows`, `lamport.poll_rows`, `lamport.all_reduce`,
    `lamport.gemm_publish`, ...)
    to its arguments: one decode step of one rank. Every such op implements
    `ProgramOpInterface`; the kernel generator attached to it
    (`KernelGeneratorOpInterface`, an external model this pass registers)
    creates `gpu.module`s holding its `gpu.func` kernels, built from
    kernel-level lamport ops (`lamport.mailbox.*`, `lamport.stage.*`,
    `lamport.cluster.*`, `lamport.pdl.wait`, `lamport.l2.*`) and
    arith/scf/vector/memref/gpu/nvvm ops, never PTX text, and replaces the
    op by their `gpu.launch_func`s; the module becomes a
    `gpu.container_module`.

    Kernel parameters follow docs/bundle.md: the mailbox by value, then the
    buffers as static-shape memrefs in the global address space (the token
    dimension M replaced by the mailbox capacity), then the i32 token count
    M. Grids are fixed at compile time for the capacity, so one kernel
    serves every M; threads past M idle. Each kernel records what the bundle
    writer needs (`lamport.op`, `lamport.attributes`, `lamport.pdl`, and a
    `lamport.param` / `lamport.io` attribute per argument).

    `lamport.gemm_publish` is the exception to the capacity-sized grid: its
    tactic fixes the launch, grid (N / 16, splits) with a cluster of
    `splits` CTAs along y and K / (splits * kw) warps per CTA, its mailbox is
    optional, and its token tile is the largest the op's M can need (x's
    static M, else min(16, capacity)); the kernel is described in
    docs/design/gemm.md.

    Program-level ops that have no kernel generator yet are left in place;
    tools that need every op lowered report them.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::NVVM::NVVMDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect",
  ];
  let options = [
    Option<"transport", "transport", "::mlir::lamport::Transport",
           "::mlir::lamport::Transport::unicast",
           "Transport of publishes whose op sets none",
           [{::llvm::cl::values(
               clEnumValN(::mlir::lamport::Transport::unicast, "unicast",
                          "one store per peer"),
               clEnumValN(::mlir::lamport::Transport::multicast, "multicast",
                          "one multimem.st to the multicast address"))}]>,
    Option<"threadsPerCta", "threads-per-cta", "unsigned", "128",
           "Most threads per CTA of a generated kernel (a multiple of 32)">,
    Option<"maxCtas", "max-ctas", "unsigned", "128",
           "Most CTAs of a generated kernel: in the loopback transport every "
           "rank's kernels share one GPU, so spinning consumers must leave "
           "room for publishers">,
  ];
}

#endif // LAMPORT_DIALECT_LAMPORT_TRANSFORMS_PASSES_TD
