//===- NcclPlan.h - A step of the nccl transport ----------------*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// How the nccl transport runs a program's step: each `publish_rows X into
// mailbox` followed later in the step by `all_reduce mailbox into out` is
// one ncclAllReduce(X -> out) of tokens * width BF16 elements, at the place
// of the all_reduce; every kernel that takes no mailbox launches as
// compiled, in order. Anything else that uses a mailbox (a gemm_publish or
// dual norm that publishes, poll_rows, all_gather, the one-kernel
// boundaries) needs the mailbox protocol and is refused. Plain C++ over the
// manifest: unit-tested without a GPU.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_RUNTIME_NCCLPLAN_H
#define LAMPORT_RUNTIME_NCCLPLAN_H

#include "lamport/Runtime/Manifest.h"

#include <vector>

namespace lamport {
namespace runtime {

/// One action of a step under the nccl transport, in stream order.
struct NcclAction {
  enum class Kind { Launch, AllReduce };
  Kind kind = Kind::Launch;
  /// The launch (index into the manifest's launches) whose place and token
  /// range this action takes: the kernel to launch, or the all_reduce.
  std::size_t launch = 0;
  /// AllReduce: the argument published (publish_rows' rows), the argument
  /// written (all_reduce's out), the mailbox id and its width.
  int send = -1, out = -1, mailbox = -1, width = 0;
};

/// The actions of one step of \p manifest under the nccl transport. Throws
/// Error naming the kernel, its op and what it does to its mailbox where the
/// program is not of the unfused form the transport runs.
std::vector<NcclAction> planNcclStep(const Manifest &manifest);

} // namespace runtime
} // namespace lamport

#endif // LAMPORT_RUNTIME_NCCLPLAN_H
