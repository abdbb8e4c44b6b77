//===- NcclPlan.cpp - A step of the nccl transport ------------------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#include "lamport/Runtime/NcclPlan.h"
#include "lamport/Runtime/Error.h"

#include <map>

namespace lamport {
namespace runtime {

namespace {

const char *kRuns =
    "the nccl transport runs programs whose only mailbox use is "
    "publish_rows followed by all_reduce (the unfused form, as "
    "docs/examples/attention_boundary_unfused_tp2.mlir: gemm_publish "
    "without a mailbox, publish_rows, all_reduce, dual_norm)";

const char *useText(KernelSpec::MailboxUse use) {
  switch (use) {
  case KernelSpec::MailboxUse::None:
    return "takes a mailbox";
  case KernelSpec::MailboxUse::Publish:
    return "publishes into a mailbox";
  case KernelSpec::MailboxUse::Poll:
    return "polls a mailbox";
  case KernelSpec::MailboxUse::PublishAndPoll:
    return "publishes into and polls a mailbox";
  }
  return "uses a mailbox";
}

[[noreturn]] void refuse(const KernelSpec &kernel, const std::string &why) {
  throw Error(concat("kernel '", kernel.name, "' (", kernel.op, ") ", why, ": ",
                     kRuns));
}

/// The mailbox id \p kernel takes, or -1.
int mailboxOf(const Manifest &m, const KernelSpec &kernel) {
  for (const ParamSpec &param : kernel.params)
    if (param.kind == ParamKind::Mailbox)
      return m.arguments[param.argument].mailbox;
  return -1;
}

/// The argument of \p kernel's buffer with role \p role, or its only buffer
/// where the manifest names no roles.
int bufferOf(const KernelSpec &kernel, const char *role) {
  int found = -1, buffers = 0;
  for (const ParamSpec &param : kernel.params) {
    if (param.kind != ParamKind::Buffer)
      continue;
    ++buffers;
    if (param.role == role)
      return param.argument;
    if (param.role.empty())
      found = param.argument;
  }
  if (buffers != 1 || found < 0)
    refuse(kernel, concat("has no single '", role, "' buffer"));
  return found;
}

void checkBf16(const Manifest &m, const KernelSpec &kernel, int argument,
               int width) {
  const ArgumentSpec &arg = m.arguments[argument];
  if (arg.dtype != DType::BF16)
    refuse(kernel, concat("takes '", arg.name, "' as ", dtypeName(arg.dtype),
                          ", not BF16"));
  if (arg.shape.size() != 2 || arg.shape[1] != width)
    refuse(kernel,
           concat("takes '", arg.name, "' of shape ", shapeText(arg.shape),
                  ", not [M, ", width, "] as its mailbox's rows"));
}

} // namespace

std::vector<NcclAction> planNcclStep(const Manifest &m) {
  std::vector<NcclAction> actions;
  // Per mailbox: the argument its last publish_rows published, and whether
  // an all_reduce has read it since.
  std::map<int, std::pair<int, bool>> published;
  for (std::size_t i = 0; i < m.launches.size(); ++i) {
    const KernelSpec &kernel = m.kernels[m.launches[i]];
    int mailbox = mailboxOf(m, kernel);
    NcclAction action;
    action.launch = i;
    if (mailbox < 0 && kernel.mailboxUse == KernelSpec::MailboxUse::None) {
      actions.push_back(action);
      continue;
    }
    if (mailbox < 0)
      refuse(kernel, useText(kernel.mailboxUse));
    const MailboxSpec &spec = m.mailboxes[mailbox];
    if (kernel.op == "publish_rows" &&
        kernel.mailboxUse == KernelSpec::MailboxUse::Publish) {
      // Alternatives by M could publish different arguments: one
      // all-reduce could not stand for them.
      if (m.launchTokens[i])
        refuse(kernel, "runs for a range of M only");
      int rows = bufferOf(kernel, "rows");
      checkBf16(m, kernel, rows, spec.width);
      published[mailbox] = {rows, false};
      continue;
    }
    if (kernel.op == "all_reduce" &&
        kernel.mailboxUse == KernelSpec::MailboxUse::Poll) {
      auto found = published.find(mailbox);
      if (found == published.end())
        refuse(kernel, concat("reduces mailbox '", spec.name,
                              "' without a publish_rows before it"));
      // Alternatives of the all_reduce by M each become the same call, run
      // for their range of M.
      action.kind = NcclAction::Kind::AllReduce;
      action.send = found->second.first;
      action.out = bufferOf(kernel, "out");
      action.mailbox = mailbox;
      action.width = spec.width;
      checkBf16(m, kernel, action.out, spec.width);
      found->second.second = true;
      actions.push_back(action);
      continue;
    }
    refuse(kernel, concat(useText(kernel.mailboxUse), " ('", spec.name, "')"));
  }
  for (const auto &[mailbox, entry] : published)
    if (!entry.second)
      throw Error(
          concat("mailbox '", m.mailboxes[mailbox].name,
                 "' is published into but no all_reduce reads it: ", kRuns));
  return actions;
}

} // namespace runtime
} // namespace lamport
