//===- OpSignatures.cpp - What the simulation knows of each op ------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// The buffer roles of every op lamport-run simulates, how each role uses
// its buffer, and whether the op takes a mailbox: the table the program
// plan binds launches against (LaunchBinding.cpp, ProgramPlan.cpp).
//
//===----------------------------------------------------------------------===//

#include "lamport/Check/Simulator.h"
#include "lamport/Runtime/Error.h"

namespace lamport {
namespace check {

using namespace runtime;

namespace {

using Access = RoleAccess;
using MailboxUse = OpSignature::MailboxUse;

const std::map<std::string, OpSignature> &signatures() {
  static const std::map<std::string, OpSignature> table = {
      {"publish_rows", {MailboxUse::Required, {{"rows", Access::Read, true}}}},
      {"gemm_publish",
       {MailboxUse::Optional,
        {{"weight", Access::Read, true},
         {"x", Access::Read, true},
         {"y", Access::Write, true},
         {"ticket", Access::Read, false}}}},
      {"poll_rows", {MailboxUse::Required, {{"out", Access::Write, true}}}},
      {"all_reduce", {MailboxUse::Required, {{"out", Access::Write, true}}}},
      {"all_gather", {MailboxUse::Required, {{"out", Access::Write, true}}}},
      {"all_reduce_dual_norm",
       {MailboxUse::Required,
        {{"stream", Access::ReadWrite, true},
         {"alpha", Access::Read, true},
         {"beta", Access::Read, true},
         {"post_weight", Access::Read, false},
         {"next_weight", Access::Read, true},
         {"out", Access::Write, true},
         {"partial", Access::Read, false}}}},
      {"dual_norm",
       {MailboxUse::None,
        {{"reduced", Access::Read, true},
         {"stream", Access::ReadWrite, true},
         {"alpha", Access::Read, true},
         {"beta", Access::Read, true},
         {"post_weight", Access::Read, false},
         {"next_weight", Access::Read, true},
         {"out", Access::Write, true}}}},
  };
  return table;
}

} // namespace

const OpSignature *opSignature(const std::string &op) {
  auto it = signatures().find(op);
  return it == signatures().end() ? nullptr : &it->second;
}

bool hasSimulation(const std::string &op) { return opSignature(op) != nullptr; }

std::string roleList(const std::string &op) {
  const OpSignature *sig = opSignature(op);
  if (!sig)
    return "";
  std::string text;
  for (const RoleSpec &role : sig->roles)
    text += concat(text.empty() ? "" : ", ", role.name,
                   role.required ? "" : " (optional)");
  return text;
}

bool isDualNorm(const std::string &op) {
  return op == "all_reduce_dual_norm" || op == "dual_norm";
}

} // namespace check
} // namespace lamport
