//===- ProgramPlan.cpp - The launches of one step, bound to roles ---------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// The program plan: every launch of a step bound (LaunchBinding.cpp), and
// per program argument what the step does with it: an input filled by the
// role of its first reader, an output checked exactly or within a bound,
// poisoned or restored before a checked step. Also what lamport-run --plan
// prints of it.
//
//===----------------------------------------------------------------------===//

#include "LaunchBinding.h"
#include "lamport/Runtime/Error.h"

#include <algorithm>
#include <map>

namespace lamport {
namespace check {

using namespace runtime;

namespace {

/// How the first reader's role fills an input.
InputSpec inputSpecFor(const PlannedLaunch &launch, const std::string &role,
                       DType dtype) {
  InputSpec spec;
  spec.role = role;
  spec.dtype = dtype;
  if (launch.op == "gemm_publish" && role == "weight") {
    spec.kind = InputKind::GemmWeight;
  } else if (launch.op == "gemm_publish" && role == "x") {
    spec.kind = InputKind::GemmX;
    spec.rowLength = launch.k;
  } else if (role == "stream") {
    spec.kind = InputKind::Stream;
  } else if (role == "alpha" || role == "beta") {
    spec.kind = InputKind::Gate;
  } else if (role == "post_weight" || role == "next_weight") {
    spec.kind = InputKind::NormWeight;
  } else if (role == "reduced") {
    spec.kind = InputKind::Reduced;
  } else {
    // The rows of publish_rows (Integers once a summing consumer reads
    // them), and whatever else: unsalted, as before roles.
    spec.kind = InputKind::Bits;
    spec.role.clear();
  }
  return spec;
}

/// Builds a ProgramPlan launch by launch, keeping what the launches so far
/// left behind: which mailbox holds a publish no launch consumed yet, which
/// rows argument publish_rows published into it, which arguments hold a
/// dual norm's output (known only within a bound), and where the open
/// choice of an op's alternatives by M starts.
class PlanBuilder {
public:
  PlanBuilder(ProgramPlan &plan, const Manifest &m, int tp, bool strict)
      : plan(plan), m(m), tp(tp), strict(strict),
        inexact(m.arguments.size(), false) {
    for (const MailboxSpec &mailbox : m.mailboxes)
      stepTokens = std::min(stepTokens, mailbox.capacity);
  }

  void build() {
    for (std::size_t i = 0; i < m.launches.size(); ++i)
      addLaunch(i);
    finishArguments();
  }

private:
  /// Throws when strict; otherwise marks the plan incomplete.
  void refuse(const std::string &message) {
    if (strict)
      throw Error(message);
    plan.complete = false;
  }

  /// A `ticket` role is refused whether strict or not.
  void refuseTickets(const KernelSpec &kernel) {
    for (std::size_t i = 0; i < kernel.params.size(); ++i)
      if (kernel.params[i].kind == ParamKind::Buffer &&
          kernel.params[i].role == "ticket")
        throw Error(concat(
            "kernel '", kernel.name, "' (", kernel.op, "): buffer parameter ",
            i, " (argument '", m.arguments[kernel.params[i].argument].name,
            "') has role 'ticket': lamport-run does not drive ticket "
            "stages (the kernel would publish into the ticket's stage and "
            "set no stage word for a consumer to read); compile the program "
            "without a ticket"));
  }

  void addLaunch(std::size_t i) {
    int k = m.launches[i];
    const KernelSpec &kernel = m.kernels[k];
    refuseTickets(kernel);
    PlannedLaunch launch;
    try {
      launch = bindLaunch(m, k, tp, stepTokens);
    } catch (const Error &e) {
      refuse(e.what());
      return;
    }
    launch.tokens = m.launchTokens[i];
    if (launch.tokens && launch.tokens->lo > 1) {
      addAlternative(std::move(launch));
      return;
    }
    choiceFirst = launch.tokens ? int(plan.launches.size()) : -1;
    const OpSignature &sig = *opSignature(launch.op);
    // A kernel that publishes and then consumes what it published, or a
    // publisher alone.
    bool selfPublishes = kernel.publishesAndConsumes();
    bool publishes = kernel.publishes() && !selfPublishes;
    if (launch.mailbox >= 0 && !publishes && !selfPublishes && !consume(launch))
      return;
    if (!planReads(launch, sig))
      return;
    // Its own partials are what it sums: integers, as a publisher's rows
    // are when a summing consumer reads them.
    if (selfPublishes) {
      ArgumentPlan &partial = plan.arguments[launch.argument("partial")];
      if (partial.input && partial.spec.kind == InputKind::Bits)
        partial.spec.kind = InputKind::Integers;
    }
    planWrites(launch, sig);
    if (publishes && launch.mailbox >= 0) {
      pending[launch.mailbox] = true;
      publishedRows[launch.mailbox] =
          launch.op == "publish_rows" ? launch.argument("rows") : -1;
    }
    plan.launches.push_back(std::move(launch));
  }

  /// The alternatives of one op chosen by M are one op to the step: only
  /// one runs, so the first one alone plans what the step reads and
  /// writes, and the others must bind their roles alike (a second
  /// publisher of the mailbox is no conflict).
  void addAlternative(PlannedLaunch launch) {
    if (choiceFirst < 0)
      return; // The first alternative did not bind (not strict).
    const PlannedLaunch &first = plan.launches[choiceFirst];
    if (launch.roles != first.roles || launch.mailbox != first.mailbox) {
      refuse(concat(launch.who, ": runs for M in ", launch.tokens->lo, "..",
                    launch.tokens->hi, " instead of ", first.who,
                    " but binds other arguments or another mailbox; the "
                    "alternatives of one op must bind theirs alike"));
      return;
    }
    plan.launches.push_back(std::move(launch));
  }

  /// A consumer of \p launch's mailbox takes the publish pending there;
  /// false (after refusing) when there is none.
  bool consume(const PlannedLaunch &launch) {
    const MailboxSpec &mailbox = m.mailboxes[launch.mailbox];
    if (!pending[launch.mailbox]) {
      refuse(concat(launch.who, ": consumes mailbox '", mailbox.name,
                    "', but no earlier launch of the step publishes into "
                    "it, so what it reads has no reference"));
      return false;
    }
    pending[launch.mailbox] = false;
    // Rows that are summed are integers, exact in FP32 in any order.
    bool sums =
        launch.op == "all_reduce" || launch.op == "all_reduce_dual_norm";
    auto rows = publishedRows.find(launch.mailbox);
    if (sums && rows != publishedRows.end() && rows->second >= 0) {
      ArgumentPlan &published = plan.arguments[rows->second];
      if (published.input && published.spec.kind == InputKind::Bits)
        published.spec.kind = InputKind::Integers;
    }
    return true;
  }

  /// What \p launch reads: inputs filled by the role of their first
  /// reader. False (after refusing) when a read cannot be simulated.
  bool planReads(const PlannedLaunch &launch, const OpSignature &sig) {
    bool ok = true;
    for (const RoleSpec &role : sig.roles) {
      int arg = launch.argument(role.name);
      if (arg < 0 || launch.access.at(role.name) == BufferIO::Out)
        continue;
      ArgumentPlan &argPlan = plan.arguments[arg];
      const ArgumentSpec &spec = m.arguments[arg];
      if (!argPlan.written) {
        if (!argPlan.input) {
          argPlan.input = true;
          argPlan.spec = inputSpecFor(launch, role.name, spec.dtype);
        }
      } else if (inexact[arg]) {
        refuse(concat(launch.who, ": role '", role.name, "' reads argument '",
                      spec.name, "', which ", argPlan.writer,
                      " wrote earlier in the step; a dual norm's output is "
                      "known only within a bound, so lamport-run cannot "
                      "simulate what reads it"));
        ok = false;
      }
      // The GEMM is exact only over the inputs lamport-run generates.
      bool gemmInput =
          launch.op == "gemm_publish" &&
          (role.name == std::string("x") || role.name == std::string("weight"));
      InputKind want = role.name == std::string("x") ? InputKind::GemmX
                                                     : InputKind::GemmWeight;
      if (ok && gemmInput && (!argPlan.input || argPlan.spec.kind != want)) {
        refuse(concat(launch.who, ": role '", role.name, "' (argument '",
                      spec.name, "') is ",
                      argPlan.input ? concat("filled as ",
                                             inputKindName(argPlan.spec.kind),
                                             " for an earlier reader")
                                    : concat("written by ", argPlan.writer),
                      "; lamport-run simulates gemm_publish only over the x "
                      "and weight it generates (small integers, so y is "
                      "exact)"));
        ok = false;
      }
    }
    return ok;
  }

  /// What \p launch writes: outputs, checked exactly or (a dual norm's out
  /// and stream) within a bound; poisoned when written whole first.
  void planWrites(const PlannedLaunch &launch, const OpSignature &sig) {
    for (const RoleSpec &role : sig.roles) {
      int arg = launch.argument(role.name);
      if (arg < 0)
        continue;
      BufferIO access = launch.access.at(role.name);
      if (access == BufferIO::In)
        continue;
      ArgumentPlan &argPlan = plan.arguments[arg];
      bool norm = isDualNorm(launch.op) && (role.name == std::string("out") ||
                                            role.name == std::string("stream"));
      argPlan.written = true;
      argPlan.writer = launch.who;
      argPlan.check = norm ? OutputCheck::Norm : OutputCheck::Exact;
      inexact[arg] = norm;
      if (access == BufferIO::Out && !argPlan.input)
        argPlan.poison = true;
    }
  }

  /// Buffers no bound launch touches, and what to restore.
  void finishArguments() {
    for (std::size_t a = 0; a < m.arguments.size(); ++a) {
      const ArgumentSpec &arg = m.arguments[a];
      ArgumentPlan &argPlan = plan.arguments[a];
      if (arg.kind != ArgumentKind::Buffer)
        continue;
      // A buffer no bound launch touches: filled with Bits if it is read.
      if (!argPlan.input && !argPlan.written && arg.io != BufferIO::Out) {
        argPlan.input = true;
        argPlan.spec = InputSpec();
        argPlan.spec.dtype = arg.dtype;
      }
      argPlan.restore = argPlan.input && argPlan.written;
    }
  }

  ProgramPlan &plan;
  const Manifest &m;
  int tp;
  bool strict;
  int stepTokens = 16;
  std::vector<bool> inexact; ///< Per argument: a dual norm's output.
  /// Per mailbox: a publish not consumed yet, and the rows argument
  /// publish_rows published (-1 for a GEMM's y).
  std::map<int, bool> pending;
  std::map<int, int> publishedRows;
  /// The planned index of the first alternative of the open choice by M,
  /// or -1 (docs/bundle.md `tokens`).
  int choiceFirst = -1;
};

} // namespace

int PlannedLaunch::argument(const std::string &role) const {
  auto it = roles.find(role);
  return it == roles.end() ? -1 : it->second;
}

ProgramPlan::ProgramPlan(const Manifest &m, int tp, bool strict) {
  arguments.assign(m.arguments.size(), ArgumentPlan());
  PlanBuilder(*this, m, tp, strict).build();
}

void ProgramPlan::checkSumsWithinBound() {
  for (const PlannedLaunch &launch : launches) {
    int out = launch.argument("out");
    if (launch.op == "all_reduce" && out >= 0 &&
        arguments[out].check == OutputCheck::Exact)
      arguments[out].check = OutputCheck::Norm;
  }
}

std::string describeChecks(const Manifest &m) {
  int tp = m.mailboxes.empty() ? 1 : m.mailboxes.front().tp;
  std::string text = "with --check:\n";
  try {
    ProgramPlan plan(m, tp, /*strict=*/true);
    for (std::size_t a = 0; a < m.arguments.size(); ++a) {
      const ArgumentSpec &arg = m.arguments[a];
      const ArgumentPlan &p = plan.arguments[a];
      if (arg.kind != ArgumentKind::Buffer)
        continue;
      std::string line = concat("  '", arg.name, "':");
      if (p.input)
        line += concat(" input ", inputKindName(p.spec.kind),
                       p.spec.role.empty()
                           ? ""
                           : concat(" (salted by role '", p.spec.role, "')"),
                       p.spec.replicated() ? ", the same on every rank" : "");
      if (p.check != OutputCheck::None)
        line += concat(p.input ? ";" : "", " output of ", p.writer, ", ",
                       p.check == OutputCheck::Exact
                           ? "checked bit for bit"
                           : "checked within the bound, then bit for bit",
                       p.poison ? ", poisoned" : "",
                       p.restore ? ", restored before each step" : "");
      if (!p.input && p.check == OutputCheck::None)
        line += " not used";
      text += line + "\n";
    }
  } catch (const Error &e) {
    text += concat("  refused: ", e.what(), "\n");
  }
  return text;
}

} // namespace check
} // namespace lamport
