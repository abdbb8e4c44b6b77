//===- LamportInterfaces.td - Program-level op interface ---*- tablegen -*-===//
//
// Part of the Lamport project.
//
// The one registry of program-level ops: every op that works on whole
// buffers of a decode step implements ProgramOpInterface, and everything
// that must tell such ops apart (kernel generation, the launch plan, the
// lowering's checks) asks the interface instead of listing op names.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_DIALECT_LAMPORT_IR_LAMPORTINTERFACES_TD
#define LAMPORT_DIALECT_LAMPORT_IR_LAMPORTINTERFACES_TD

include "mlir/IR/OpBase.td"

def Lamport_ProgramOpInterface : OpInterface<"ProgramOpInterface"> {
  let cppNamespace = "::mlir::lamport";
  let description = [{
    A program-level op: it works on whole memrefs of one decode step of one
    rank and becomes generated kernels and their launches
    (lamport-generate-kernels). It names its kernel family (the kernels'
    name prefix and the bundle manifest's `op`) and the role and access of
    each buffer operand, in the order they become kernel parameters; the
    compiler writes both into the manifest, where a runtime reads them.
  }];
  let methods = [
    InterfaceMethod<[{
        The kernel family: `<family>_<n>` names the op's kernels, and the
        manifest's `op` field holds it. The op's name without the dialect
        prefix.
      }],
      "::llvm::StringRef", "getKernelFamily", (ins), "",
      [{ return $_op->getName().stripDialect(); }]>,
    InterfaceMethod<[{
        Appends the op's buffer operands to `roles`, in kernel-parameter
        order, each with its role (what the buffer is to the op, as the
        manifest's param `role` says it), its access and the dimension that
        holds the token count M, if any. Absent optional operands are left
        out.
      }],
      "void", "getBufferRoles",
      (ins "::llvm::SmallVectorImpl<::mlir::lamport::BufferRole> &":$roles)>,
    InterfaceMethod<[{
        The mailbox the op publishes into or consumes, and which of the two
        it does (both for an op that publishes and consumes one generation
        in one launch); a null mailbox where the op has none. What the
        protocol check (lamport-check-protocol) follows through a step.
      }],
      "::mlir::lamport::MailboxUse", "getMailboxUse">,
  ];
}

#endif // LAMPORT_DIALECT_LAMPORT_IR_LAMPORTINTERFACES_TD
