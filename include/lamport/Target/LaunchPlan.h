//===- LaunchPlan.h - The launch plan of a compiled program -----*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// What a runtime needs to run one decode step of a program after
// lamport-generate-kernels: its mailboxes and arguments, every kernel's
// parameters and launch shape, and the launches in stream order. This is the
// in-memory form of manifest.json (docs/bundle.md), read off the program's
// gpu.launch_func ops before the kernels are lowered.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_TARGET_LAUNCHPLAN_H
#define LAMPORT_TARGET_LAUNCHPLAN_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Support/LLVM.h"
#include "llvm/Support/JSON.h"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace mlir::lamport {

/// A mailbox argument of the program: manifest.json `mailboxes[id]`.
struct PlanMailbox {
  unsigned id = 0;
  std::string name;
  unsigned tp = 0, capacity = 0, width = 0;
};

/// One argument of the program function: manifest.json `arguments[index]`.
struct PlanArgument {
  enum class Kind { Buffer, Mailbox };
  unsigned index = 0;
  std::string name;
  Kind kind = Kind::Buffer;
  /// Buffers: `bf16`, `f32` or `i32`, the shape with -1 for the token
  /// count, and `in`, `out` or `inout` over every kernel of the step.
  std::string dtype;
  SmallVector<int64_t> shape;
  std::string io;
  /// Mailboxes: the index into the plan's mailboxes.
  unsigned mailbox = 0;
};

/// One parameter of a kernel: what the runtime copies for it.
struct PlanParam {
  enum class Kind { Mailbox, Buffer, Tokens, TensorMap };
  Kind kind = Kind::Buffer;
  /// Tensor maps: the box, inner dimension first (docs/bundle.md).
  std::vector<int64_t> box;
  /// Mailboxes, buffers and tensor maps: the program argument passed (a
  /// tensor map's: the buffer it describes).
  std::optional<unsigned> argument;
  /// Bytes copied and their alignment (docs/bundle.md: the mailbox
  /// descriptor is 40 + 8 * tp bytes, 8-byte aligned).
  unsigned size = 0, align = 0;
  /// Buffers: whether the kernel reads (`in`), writes (`out`) or does both.
  std::string io;
  /// Buffers: what the buffer is to the op ("x", "stream", "out"...), where
  /// the kernel names it.
  std::string role;
};

/// One generated kernel and how it is launched.
struct PlanKernel {
  std::string name;
  /// The program-level op it was generated from, and that op's attributes
  /// that change what the result must be.
  std::string op;
  llvm::json::Object attributes;
  std::array<int64_t, 3> grid = {1, 1, 1}, block = {1, 1, 1},
                         cluster = {1, 1, 1};
  /// Dynamic shared memory the launch requests (static shared memory is in
  /// the cubin).
  int64_t sharedBytes = 0;
  /// Whether the kernel waits with griddepcontrol.wait.
  bool pdl = false;
  /// What the kernel does to its mailbox: `publish`, `poll` or
  /// `publish_and_poll`; empty where its body has no mailbox op.
  std::string mailboxUse;
  std::vector<PlanParam> params;
};

/// One launch of a step: manifest.json `launches[i]`.
struct PlanLaunch {
  std::string kernel;
  /// The inclusive range [lo, hi] of token counts M for which the launch
  /// runs, where the program chooses between alternatives of one op by M
  /// (docs/bundle.md); none: every M.
  std::optional<std::pair<int64_t, int64_t>> tokens;
};

/// One decode step of one program.
struct LaunchPlan {
  std::string program;
  SmallVector<PlanMailbox> mailboxes;
  SmallVector<PlanArgument> arguments;
  std::vector<PlanKernel> kernels;
  /// The launches, in stream order.
  SmallVector<PlanLaunch> launches;
};

/// The program functions of `module`: functions with a body made of
/// program-level lamport ops (or, after lamport-generate-kernels, of
/// gpu.launch_func ops of generated kernels).
SmallVector<func::FuncOp> getPrograms(Operation *module);

/// Reads the launch plan of `program` after lamport-generate-kernels.
/// `argumentNames` names the program's arguments (as written in the source;
/// `arg<i>` where empty or missing). Fails, with a diagnostic at the
/// offending op, for a program-level op still in the program (the pass has
/// not run), host code other than launches and the scf.if chains that
/// choose one launch by the token count, or an argument a runtime cannot
/// pass.
FailureOr<LaunchPlan> readLaunchPlan(func::FuncOp program,
                                     ArrayRef<std::string> argumentNames);

} // namespace mlir::lamport

#endif // LAMPORT_TARGET_LAUNCHPLAN_H
