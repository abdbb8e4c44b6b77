//===- OpSignatures.cpp - What the simulation knows of each op ------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// The buffer roles each simulated op's semantics read (Simulator.cpp) and
// whether the op takes a mailbox: the table the program plan binds launches
// against (LaunchBinding.cpp, ProgramPlan.cpp). How a kernel uses each
// buffer comes from the manifest.
//
//===----------------------------------------------------------------------===//

#include "lamport/Check/Simulator.h"
#include "lamport/Runtime/Error.h"

namespace lamport {
namespace check {

using namespace runtime;

namespace {

using MailboxUse = OpSignature::MailboxUse;

const std::map<std::string, OpSignature> &signatures() {
  static const std::map<std::string, OpSignature> table = {
      {"publish_rows", {MailboxUse::Required, {{"rows", true}}}},
      {"gemm_publish",
       {MailboxUse::Optional,
        {{"weight", true}, {"x", true}, {"y", true}, {"ticket", false}}}},
      {"poll_rows", {MailboxUse::Required, {{"out", true}}}},
      {"all_reduce", {MailboxUse::Required, {{"out", true}}}},
      {"all_gather", {MailboxUse::Required, {{"out", true}}}},
      {"all_reduce_dual_norm",
       {MailboxUse::Required,
        {{"stream", true},
         {"alpha", true},
         {"beta", true},
         {"post_weight", false},
         {"next_weight", true},
         {"out", true},
         {"partial", false}}}},
      {"dual_norm",
       {MailboxUse::None,
        {{"reduced", true},
         {"stream", true},
         {"alpha", true},
         {"beta", true},
         {"post_weight", false},
         {"next_weight", true},
         {"out", true}}}},
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
