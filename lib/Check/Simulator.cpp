//===- Simulator.cpp - A decode step of a bundle, on the host -------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#include "lamport/Check/Simulator.h"
#include "lamport/Runtime/Error.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>

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

bool isDualNorm(const std::string &op) {
  return op == "all_reduce_dual_norm" || op == "dual_norm";
}

/// A dimension that holds the step's tokens: -1, or a fixed size at least
/// the most tokens a step carries.
constexpr int64_t kTokens = INT64_MIN;

std::string dimsText(const std::vector<int64_t> &dims) {
  std::vector<int64_t> shown = dims;
  for (int64_t &d : shown)
    if (d == kTokens)
      d = -1;
  return shapeText(shown);
}

/// Binds one launch's parameters to its op's roles and checks them.
class Binder {
public:
  Binder(const Manifest &m, int k, int tp, int stepTokens)
      : m(m), kernel(m.kernels[k]), tp(tp), stepTokens(stepTokens) {
    launch.kernel = k;
    launch.op = kernel.op;
    launch.who = concat("kernel '", kernel.name, "' (", kernel.op, ")");
  }

  PlannedLaunch bind() {
    const OpSignature *sig = opSignature(kernel.op);
    if (!sig)
      throw Error(concat(launch.who,
                         ": lamport-run has no host simulation "
                         "of op '",
                         kernel.op,
                         "', so it cannot check what it writes; run it "
                         "without --check"));
    bindParams(*sig);
    readAttributes();
    checkShapes();
    return launch;
  }

private:
  const ArgumentSpec &argOf(const std::string &role) const {
    return m.arguments[launch.argument(role)];
  }

  void bindParams(const OpSignature &sig) {
    int mailboxes = 0, buffers = 0;
    for (const ParamSpec &p : kernel.params) {
      if (p.kind == ParamKind::Mailbox) {
        ++mailboxes;
        launch.mailbox = m.arguments[p.argument].mailbox;
      }
      buffers += p.kind == ParamKind::Buffer;
    }
    if ((sig.mailbox == MailboxUse::Required && mailboxes != 1) ||
        (sig.mailbox == MailboxUse::Optional && mailboxes > 1) ||
        (sig.mailbox == MailboxUse::None && mailboxes != 0))
      throw Error(concat(launch.who, ": has ", mailboxes,
                         " mailbox parameter(s), but ", kernel.op, " takes ",
                         sig.mailbox == MailboxUse::Required   ? "one"
                         : sig.mailbox == MailboxUse::Optional ? "at most one"
                                                               : "none"));
    for (std::size_t i = 0; i < kernel.params.size(); ++i) {
      const ParamSpec &p = kernel.params[i];
      if (p.kind != ParamKind::Buffer)
        continue;
      std::string param = concat("buffer parameter ", i, " (argument '",
                                 m.arguments[p.argument].name, "')");
      std::string role = p.role;
      if (role.empty()) {
        // Manifests written before roles: an op with one buffer names it.
        if (sig.roles.size() != 1 || buffers != 1)
          throw Error(concat(launch.who, ": ", param, " names no role; ",
                             kernel.op, " tells its buffers apart by role (",
                             roleList(kernel.op),
                             "): recompile the bundle with a lamport-compile "
                             "that writes roles"));
        role = sig.roles.front().name;
      }
      auto known =
          std::find_if(sig.roles.begin(), sig.roles.end(),
                       [&](const RoleSpec &spec) { return role == spec.name; });
      if (known == sig.roles.end())
        throw Error(concat(launch.who, ": ", param, " has role '", role,
                           "', which ", kernel.op,
                           " does not have (its roles: ", roleList(kernel.op),
                           ")"));
      if (!launch.roles.emplace(role, p.argument).second)
        throw Error(
            concat(launch.who, ": ", param, " repeats role '", role, "'"));
      const ArgumentSpec &arg = m.arguments[p.argument];
      if (known->access != RoleAccess::Read && arg.io == BufferIO::In)
        throw Error(concat(launch.who, ": ", param, " has role '", role,
                           "', which ", kernel.op,
                           " writes, but the argument's io is 'in'"));
    }
    for (const RoleSpec &spec : sig.roles)
      if (spec.required && launch.argument(spec.name) < 0)
        throw Error(concat(launch.who, ": no buffer parameter has role '",
                           spec.name, "', which ", kernel.op, " needs"));
  }

  void readAttributes() {
    if (kernel.op == "all_reduce" || kernel.op == "all_reduce_dual_norm") {
      std::string order =
          kernel.attribute("sum_order").value_or("rank_ascending");
      try {
        launch.order = parseSumOrder(order);
      } catch (const Error &e) {
        throw Error(concat(launch.who, ": attribute sum_order: ", e.what()));
      }
    }
    if (isDualNorm(kernel.op))
      if (std::optional<std::string> eps = kernel.attribute("eps")) {
        char *end = nullptr;
        double value = std::strtod(eps->c_str(), &end);
        if (eps->empty() || *end || !std::isfinite(value) || value < 0)
          throw Error(concat(launch.who,
                             ": attribute eps must be a finite number >= 0, "
                             "got '",
                             *eps, "'"));
        launch.eps = value;
      }
  }

  /// Checks \p role's buffer against any of \p shapes with \p dtype.
  void expect(const std::string &role, DType dtype,
              const std::vector<std::vector<int64_t>> &shapes,
              const std::string &why = "") {
    if (launch.argument(role) < 0)
      return;
    const ArgumentSpec &arg = argOf(role);
    bool ok = false;
    for (const std::vector<int64_t> &shape : shapes) {
      if (arg.dtype != dtype || arg.shape.size() != shape.size())
        continue;
      bool same = true;
      for (std::size_t d = 0; d < shape.size(); ++d)
        same &= shape[d] == kTokens
                    ? arg.shape[d] == -1 || arg.shape[d] >= stepTokens
                    : arg.shape[d] == shape[d];
      ok |= same;
    }
    if (ok)
      return;
    std::string need;
    for (std::size_t i = 0; i < shapes.size(); ++i)
      need += concat(i ? " or " : "", dimsText(shapes[i]));
    throw Error(concat(launch.who, ": role '", role, "' (argument '", arg.name,
                       "') is ", shapeText(arg.shape), " ",
                       dtypeName(arg.dtype), ", but ", kernel.op, " needs ",
                       need, " ", dtypeName(dtype),
                       why.empty() ? "" : concat(" (", why, ")")));
  }

  void checkShapes() {
    const std::string &op = kernel.op;
    const MailboxSpec *mailbox =
        launch.mailbox >= 0 ? &m.mailboxes[launch.mailbox] : nullptr;
    int64_t width = mailbox ? mailbox->width : 0;
    std::string mailboxWhy =
        mailbox ? concat("mailbox '", mailbox->name, "' is ", width, " wide")
                : "";
    launch.width = width;
    if (op == "publish_rows") {
      expect("rows", DType::BF16, {{kTokens, width}}, mailboxWhy);
    } else if (op == "gemm_publish") {
      const ArgumentSpec &weight = argOf("weight");
      if (weight.dtype != DType::BF16 || weight.shape.size() != 2 ||
          weight.shape[0] < 1 || weight.shape[1] < 1)
        throw Error(concat(launch.who, ": role 'weight' (argument '",
                           weight.name, "') is ", shapeText(weight.shape), " ",
                           dtypeName(weight.dtype),
                           ", but gemm_publish needs [N, K] bf16"));
      launch.n = weight.shape[0];
      launch.k = weight.shape[1];
      if (mailbox && launch.n != width)
        throw Error(concat(
            launch.who, ": role 'weight' (argument '", weight.name,
            "') has N = ", launch.n, " rows, but mailbox '", mailbox->name,
            "' is ", width, " wide: the GEMM publishes y [m, N] into it"));
      if (launch.k % 4)
        throw Error(concat(launch.who, ": role 'weight' (argument '",
                           weight.name, "') has K = ", launch.k,
                           ", not a multiple of 4, which lamport-run's x "
                           "(4 nonzeros a row at o + q * K / 4) needs"));
      std::string kWhy = concat("K = ", launch.k, " from the weight");
      std::string nWhy = concat("N = ", launch.n, " from the weight");
      expect("x", DType::BF16, {{kTokens, launch.k}}, kWhy);
      expect("y", DType::BF16, {{kTokens, launch.n}}, nWhy);
    } else if (op == "poll_rows") {
      expect("out", DType::BF16, {{tp, kTokens, width}},
             concat("tp = ", tp, ", ", mailboxWhy));
    } else if (op == "all_reduce") {
      expect("out", DType::BF16, {{kTokens, width}}, mailboxWhy);
    } else if (op == "all_gather") {
      expect("out", DType::BF16, {{kTokens, tp * width}},
             concat("tp = ", tp, " column blocks; ", mailboxWhy));
    } else if (isDualNorm(op)) {
      std::string hWhy = mailboxWhy;
      if (op == "dual_norm") {
        const ArgumentSpec &reduced = argOf("reduced");
        if (reduced.dtype != DType::BF16 || reduced.shape.size() != 2 ||
            reduced.shape[1] < 1 ||
            !(reduced.shape[0] == -1 || reduced.shape[0] >= stepTokens))
          throw Error(concat(launch.who, ": role 'reduced' (argument '",
                             reduced.name, "') is ", shapeText(reduced.shape),
                             " ", dtypeName(reduced.dtype),
                             ", but dual_norm needs [-1, H] bf16"));
        width = reduced.shape[1];
        launch.width = width;
        hWhy = concat("H = ", width, " from 'reduced'");
      }
      expect("stream", DType::F32, {{kTokens, width}}, hWhy);
      expect("alpha", DType::F32, {{1}, {width}}, hWhy);
      expect("beta", DType::F32, {{1}, {width}}, hWhy);
      expect("post_weight", DType::BF16, {{width}}, hWhy);
      expect("next_weight", DType::BF16, {{width}}, hWhy);
      expect("out", DType::BF16, {{kTokens, width}}, hWhy);
      expect("partial", DType::BF16, {{kTokens, width}}, mailboxWhy);
      launch.alphaCount = argOf("alpha").shape[0];
      launch.betaCount = argOf("beta").shape[0];
    }
  }

  const Manifest &m;
  const KernelSpec &kernel;
  int tp;
  int stepTokens;
  PlannedLaunch launch;
};

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

int PlannedLaunch::argument(const std::string &role) const {
  auto it = roles.find(role);
  return it == roles.end() ? -1 : it->second;
}

ProgramPlan::ProgramPlan(const Manifest &m, int tp, bool strict) {
  arguments.assign(m.arguments.size(), ArgumentPlan());
  int stepTokens = 16;
  for (const MailboxSpec &mailbox : m.mailboxes)
    stepTokens = std::min(stepTokens, mailbox.capacity);
  std::vector<bool> inexact(m.arguments.size(), false);
  // Per mailbox: a publish not consumed yet, and the rows argument
  // publish_rows published (-1 for a GEMM's y).
  std::map<int, bool> pending;
  std::map<int, int> publishedRows;
  auto refuse = [&](const std::string &message) {
    if (strict)
      throw Error(message);
    complete = false;
  };

  // The planned index of the first alternative of the open choice by M,
  // or -1 (docs/bundle.md `tokens`).
  int choiceFirst = -1;
  for (std::size_t i = 0; i < m.launches.size(); ++i) {
    int k = m.launches[i];
    const KernelSpec &kernel = m.kernels[k];
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
    PlannedLaunch launch;
    try {
      launch = Binder(m, k, tp, stepTokens).bind();
    } catch (const Error &e) {
      refuse(e.what());
      continue;
    }
    launch.tokens = m.launchTokens[i];
    // The alternatives of one op chosen by M are one op to the step: only
    // one runs, so the first one alone plans what the step reads and
    // writes, and the others must bind their roles alike (a second
    // publisher of the mailbox is no conflict).
    if (launch.tokens && launch.tokens->lo > 1) {
      if (choiceFirst < 0)
        continue; // The first alternative did not bind (not strict).
      const PlannedLaunch &first = launches[choiceFirst];
      if (launch.roles != first.roles || launch.mailbox != first.mailbox) {
        refuse(concat(launch.who, ": runs for M in ", launch.tokens->lo, "..",
                      launch.tokens->hi, " instead of ", first.who,
                      " but binds other arguments or another mailbox; the "
                      "alternatives of one op must bind theirs alike"));
        continue;
      }
      launches.push_back(std::move(launch));
      continue;
    }
    choiceFirst = launch.tokens ? int(launches.size()) : -1;
    const OpSignature &sig = *opSignature(launch.op);
    // A kernel that publishes and then consumes what it published, or a
    // publisher alone.
    bool selfPublishes = kernel.publishesAndConsumes();
    bool publishes = kernel.publishes() && !selfPublishes;
    if (launch.mailbox >= 0 && !publishes && !selfPublishes) {
      const MailboxSpec &mailbox = m.mailboxes[launch.mailbox];
      if (!pending[launch.mailbox]) {
        refuse(concat(launch.who, ": consumes mailbox '", mailbox.name,
                      "', but no earlier launch of the step publishes into "
                      "it, so what it reads has no reference"));
        continue;
      }
      pending[launch.mailbox] = false;
      // Rows that are summed are integers, exact in FP32 in any order.
      bool sums =
          launch.op == "all_reduce" || launch.op == "all_reduce_dual_norm";
      auto rows = publishedRows.find(launch.mailbox);
      if (sums && rows != publishedRows.end() && rows->second >= 0) {
        ArgumentPlan &plan = arguments[rows->second];
        if (plan.input && plan.spec.kind == InputKind::Bits)
          plan.spec.kind = InputKind::Integers;
      }
    }

    bool ok = true;
    for (const RoleSpec &role : sig.roles) {
      int arg = launch.argument(role.name);
      if (arg < 0 || role.access == RoleAccess::Write)
        continue;
      ArgumentPlan &plan = arguments[arg];
      const ArgumentSpec &spec = m.arguments[arg];
      if (!plan.written) {
        if (!plan.input) {
          plan.input = true;
          plan.spec = inputSpecFor(launch, role.name, spec.dtype);
        }
      } else if (inexact[arg]) {
        refuse(concat(launch.who, ": role '", role.name, "' reads argument '",
                      spec.name, "', which ", plan.writer,
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
      if (ok && gemmInput && (!plan.input || plan.spec.kind != want)) {
        refuse(concat(launch.who, ": role '", role.name, "' (argument '",
                      spec.name, "') is ",
                      plan.input
                          ? concat("filled as ", inputKindName(plan.spec.kind),
                                   " for an earlier reader")
                          : concat("written by ", plan.writer),
                      "; lamport-run simulates gemm_publish only over the x "
                      "and weight it generates (small integers, so y is "
                      "exact)"));
        ok = false;
      }
    }
    if (!ok)
      continue;
    // Its own partials are what it sums: integers, as a publisher's rows
    // are when a summing consumer reads them.
    if (selfPublishes) {
      ArgumentPlan &partial = arguments[launch.argument("partial")];
      if (partial.input && partial.spec.kind == InputKind::Bits)
        partial.spec.kind = InputKind::Integers;
    }
    for (const RoleSpec &role : sig.roles) {
      int arg = launch.argument(role.name);
      if (arg < 0 || role.access == RoleAccess::Read)
        continue;
      ArgumentPlan &plan = arguments[arg];
      bool norm = isDualNorm(launch.op) && (role.name == std::string("out") ||
                                            role.name == std::string("stream"));
      plan.written = true;
      plan.writer = launch.who;
      plan.check = norm ? OutputCheck::Norm : OutputCheck::Exact;
      inexact[arg] = norm;
      if (role.access == RoleAccess::Write && !plan.input)
        plan.poison = true;
    }
    if (publishes && launch.mailbox >= 0) {
      pending[launch.mailbox] = true;
      publishedRows[launch.mailbox] =
          launch.op == "publish_rows" ? launch.argument("rows") : -1;
    }
    launches.push_back(std::move(launch));
  }

  for (std::size_t a = 0; a < m.arguments.size(); ++a) {
    const ArgumentSpec &arg = m.arguments[a];
    ArgumentPlan &plan = arguments[a];
    if (arg.kind != ArgumentKind::Buffer)
      continue;
    // A buffer no bound launch touches: filled with Bits if it is read.
    if (!plan.input && !plan.written && arg.io != BufferIO::Out) {
      plan.input = true;
      plan.spec = InputSpec();
      plan.spec.dtype = arg.dtype;
    }
    plan.restore = plan.input && plan.written;
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

//===----------------------------------------------------------------------===//
// The simulation of one step
//===----------------------------------------------------------------------===//

namespace {

using Bytes = std::vector<uint8_t>;
using Value = std::shared_ptr<const Bytes>;
using Rows = std::shared_ptr<const std::vector<uint16_t>>;

uint16_t loadBf16(const Bytes &b, std::size_t i) {
  uint16_t v;
  std::memcpy(&v, b.data() + 2 * i, 2);
  return v;
}
void storeBf16(Bytes &b, std::size_t i, uint16_t v) {
  std::memcpy(b.data() + 2 * i, &v, 2);
}
float loadF32(const Bytes &b, std::size_t i) {
  float v;
  std::memcpy(&v, b.data() + 4 * i, 4);
  return v;
}
void storeF32(Bytes &b, std::size_t i, float v) {
  std::memcpy(b.data() + 4 * i, &v, 4);
}

class StepSimulator {
public:
  StepSimulator(const Manifest &m, const ProgramPlan &plan,
                const SimulationConfig &config, uint32_t set, int tokens)
      : m(m), plan(plan), config(config), set(set), tokens(tokens),
        tp(config.tp) {
    values.assign(m.arguments.size(), std::vector<Value>(tp));
    norms.assign(m.arguments.size(), nullptr);
    slots.assign(m.mailboxes.size(), std::vector<Rows>(tp));
    for (std::size_t a = 0; a < m.arguments.size(); ++a) {
      const ArgumentPlan &p = plan.arguments[a];
      std::size_t bytes =
          a < config.allocationBytes.size() ? config.allocationBytes[a] : 0;
      if (p.input) {
        if (p.spec.kind == InputKind::GemmWeight)
          continue; // Read element by element from its hash.
        for (int r = 0; r < tp; ++r)
          values[a][r] = p.spec.replicated() && r > 0
                             ? values[a][0]
                             : std::make_shared<const Bytes>(inputBytes(
                                   p.spec, config.seed, set, r, bytes));
      } else if (p.poison) {
        auto poison = std::make_shared<Bytes>(bytes);
        for (std::size_t i = 0; i + 1 < bytes; i += 2)
          storeBf16(*poison, i / 2, kPoison);
        for (int r = 0; r < tp; ++r)
          values[a][r] = poison;
      }
    }
  }

  StepExpectation run() {
    for (const PlannedLaunch &launch : plan.launches) {
      // Of an op's alternatives, only the one for this step's M runs.
      if (launch.tokens && !launch.tokens->contains(tokens))
        continue;
      const std::string &op = launch.op;
      if (op == "publish_rows")
        publishRows(launch, "rows");
      else if (op == "gemm_publish")
        gemmPublish(launch);
      else if (op == "poll_rows")
        pollRows(launch);
      else if (op == "all_reduce")
        allReduce(launch);
      else if (op == "all_gather")
        allGather(launch);
      else if (isDualNorm(op)) {
        if (m.kernels[launch.kernel].publishesAndConsumes())
          publishRows(launch, "partial");
        dualNorm(launch);
      } else
        throw Error(concat(launch.who, ": no host simulation"));
    }
    StepExpectation expectation;
    expectation.exact.resize(m.arguments.size());
    expectation.norm.resize(m.arguments.size());
    for (std::size_t a = 0; a < m.arguments.size(); ++a) {
      const ArgumentPlan &p = plan.arguments[a];
      if (p.check == OutputCheck::Exact) {
        for (int r = 0; r < tp; ++r)
          if (!values[a][r])
            throw Error(concat("argument '", m.arguments[a].name,
                               "' has no simulated value on rank ", r));
        expectation.exact[a].assign(values[a].begin(), values[a].end());
      } else if (p.check == OutputCheck::Norm) {
        expectation.norm[a] = norms[a];
      }
    }
    return expectation;
  }

private:
  const ArgumentSpec &argOf(const PlannedLaunch &l, const std::string &role) {
    return m.arguments[l.argument(role)];
  }

  const Bytes &valueOf(const PlannedLaunch &l, const std::string &role,
                       int rank) {
    const Value &v = values[l.argument(role)][rank];
    if (!v)
      throw Error(concat(l.who, ": role '", role, "' (argument '",
                         argOf(l, role).name, "') has no host value on rank ",
                         rank));
    return *v;
  }

  /// The value of \p role, which must be the same on every rank.
  const Bytes &replicated(const PlannedLaunch &l, const std::string &role) {
    const Bytes &first = valueOf(l, role, 0);
    for (int r = 1; r < tp; ++r) {
      const Bytes &other = valueOf(l, role, r);
      if (&other != &first && other != first)
        throw Error(concat(l.who, ": role '", role, "' (argument '",
                           argOf(l, role).name,
                           "') holds other values on "
                           "rank ",
                           r,
                           " than on rank 0; a dual norm's check needs every "
                           "rank to compute from the same values"));
    }
    return first;
  }

  /// Checks that \p arg's allocation holds \p elements of its dtype.
  void needElements(const PlannedLaunch &l, int arg, std::size_t elements) {
    const ArgumentSpec &spec = m.arguments[arg];
    std::size_t have = config.allocationBytes[arg] / dtypeBytes(spec.dtype);
    if (elements > have)
      throw Error(concat(l.who, ": argument '", spec.name, "' holds ", have,
                         " elements, but m = ", tokens, " needs ", elements));
  }

  /// Writes \p arg on every rank: \p write applied once to a copy of each
  /// distinct current value.
  void writeAll(int arg, const std::function<void(Bytes &)> &write) {
    std::vector<Value> old = values[arg];
    std::vector<std::pair<const Bytes *, Value>> done;
    for (int r = 0; r < tp; ++r) {
      const Bytes *base = old[r].get();
      if (!base)
        throw Error(concat("argument '", m.arguments[arg].name,
                           "' has no host value on rank ", r));
      auto it = std::find_if(done.begin(), done.end(),
                             [&](const auto &d) { return d.first == base; });
      if (it != done.end()) {
        values[arg][r] = it->second;
        continue;
      }
      auto copy = std::make_shared<Bytes>(*base);
      write(*copy);
      done.emplace_back(base, copy);
      values[arg][r] = copy;
    }
  }

  /// Every rank's rows in \p l's mailbox; the slots are then empty.
  std::vector<Rows> take(const PlannedLaunch &l) {
    std::vector<Rows> rows = slots[l.mailbox];
    for (int r = 0; r < tp; ++r)
      if (!rows[r])
        throw Error(concat(l.who, ": slot ", r, " of mailbox '",
                           m.mailboxes[l.mailbox].name,
                           "' is empty: no earlier launch of the step "
                           "published into it"));
    slots[l.mailbox].assign(tp, nullptr);
    return rows;
  }

  /// The rows of role \p role, published into slot [NEXT, r] of every copy.
  void publishRows(const PlannedLaunch &l, const char *role) {
    int64_t width = l.width;
    needElements(l, l.argument(role), std::size_t(tokens) * width);
    for (int r = 0; r < tp; ++r) {
      const Bytes &rows = valueOf(l, role, r);
      auto slot =
          std::make_shared<std::vector<uint16_t>>(std::size_t(tokens) * width);
      for (std::size_t i = 0; i < slot->size(); ++i)
        (*slot)[i] = canonicalizeSentinel(loadBf16(rows, i));
      slots[l.mailbox][r] = slot;
    }
  }

  void gemmPublish(const PlannedLaunch &l) {
    int y = l.argument("y");
    int64_t n = l.n, k = l.k;
    needElements(l, l.argument("x"), std::size_t(tokens) * k);
    needElements(l, y, std::size_t(tokens) * n);
    const ArgumentPlan &weight = plan.arguments[l.argument("weight")];
    for (int r = 0; r < tp; ++r) {
      const Bytes &x = valueOf(l, "x", r);
      uint64_t key = inputKey(weight.spec, config.seed, set, r);
      // y[row, :] = sum over x's nonzeros of x[row, c] * w[:, c].
      std::vector<std::vector<std::pair<int64_t, double>>> nonzeros(tokens);
      for (int row = 0; row < tokens; ++row)
        for (int64_t c = 0; c < k; ++c) {
          float v = bf16ToFloat(loadBf16(x, std::size_t(row) * k + c));
          if (v != 0.0f)
            nonzeros[row].emplace_back(c, double(v));
        }
      auto out = std::make_shared<Bytes>(*values[y][r]);
      parallelFor(std::size_t(tokens) * n, 1 << 14,
                  [&](std::size_t begin, std::size_t end) {
                    for (std::size_t i = begin; i < end; ++i) {
                      std::size_t row = i / n, col = i % n;
                      double sum = 0.0; // +0.0: a zero sum stays +0.0
                      for (const auto &[c, v] : nonzeros[row])
                        sum += v * double(bf16ToFloat(gemmWeightBits(
                                       key, uint64_t(col) * k + c)));
                      storeBf16(*out, i, floatToBf16(float(sum)));
                    }
                  });
      values[y][r] = out;
      if (l.mailbox >= 0) {
        auto slot =
            std::make_shared<std::vector<uint16_t>>(std::size_t(tokens) * n);
        for (std::size_t i = 0; i < slot->size(); ++i)
          (*slot)[i] = canonicalizeSentinel(loadBf16(*out, i));
        slots[l.mailbox][r] = slot;
      }
    }
  }

  void pollRows(const PlannedLaunch &l) {
    std::vector<Rows> rows = take(l);
    int out = l.argument("out");
    const ArgumentSpec &spec = m.arguments[out];
    int64_t width = l.width;
    int64_t perSlot = spec.shape[1] == -1 ? tokens : spec.shape[1];
    needElements(l, out, std::size_t(tp) * perSlot * width);
    writeAll(out, [&](Bytes &b) {
      for (int s = 0; s < tp; ++s)
        for (int row = 0; row < tokens; ++row)
          for (int64_t c = 0; c < width; ++c)
            storeBf16(b, (std::size_t(s) * perSlot + row) * width + c,
                      (*rows[s])[std::size_t(row) * width + c]);
    });
  }

  void allReduce(const PlannedLaunch &l) {
    std::vector<Rows> rows = take(l);
    int out = l.argument("out");
    std::size_t count = std::size_t(tokens) * l.width;
    needElements(l, out, count);
    std::vector<uint16_t> sum(count);
    std::vector<float> partials(tp);
    for (std::size_t i = 0; i < count; ++i) {
      for (int s = 0; s < tp; ++s)
        partials[s] = bf16ToFloat((*rows[s])[i]);
      sum[i] = floatToBf16(sumPartials(partials, l.order));
    }
    writeAll(out, [&](Bytes &b) {
      for (std::size_t i = 0; i < count; ++i)
        storeBf16(b, i, sum[i]);
    });
  }

  void allGather(const PlannedLaunch &l) {
    std::vector<Rows> rows = take(l);
    int out = l.argument("out");
    int64_t width = l.width;
    needElements(l, out, std::size_t(tokens) * tp * width);
    writeAll(out, [&](Bytes &b) {
      for (int row = 0; row < tokens; ++row)
        for (int s = 0; s < tp; ++s)
          for (int64_t c = 0; c < width; ++c)
            storeBf16(b, (std::size_t(row) * tp + s) * width + c,
                      (*rows[s])[std::size_t(row) * width + c]);
    });
  }

  void dualNorm(const PlannedLaunch &l) {
    int64_t width = l.width;
    std::size_t count = std::size_t(tokens) * width;
    int outArg = l.argument("out"), streamArg = l.argument("stream");
    needElements(l, outArg, count);
    needElements(l, streamArg, count);
    std::vector<double> reduced(count);
    if (l.op == "all_reduce_dual_norm") {
      std::vector<Rows> rows = take(l);
      std::vector<float> partials(tp);
      for (std::size_t i = 0; i < count; ++i) {
        for (int s = 0; s < tp; ++s)
          partials[s] = bf16ToFloat((*rows[s])[i]);
        reduced[i] = double(sumPartials(partials, l.order));
      }
    } else {
      needElements(l, l.argument("reduced"), count);
      const Bytes &bytes = replicated(l, "reduced");
      for (std::size_t i = 0; i < count; ++i)
        reduced[i] = double(bf16ToFloat(loadBf16(bytes, i)));
    }
    const Bytes &streamIn = replicated(l, "stream");
    const Bytes &alphaIn = replicated(l, "alpha");
    const Bytes &betaIn = replicated(l, "beta");
    const Bytes &nextIn = replicated(l, "next_weight");
    const Bytes *postIn = l.argument("post_weight") >= 0
                              ? &replicated(l, "post_weight")
                              : nullptr;
    const Bytes &outIn = replicated(l, "out");
    std::vector<float> stream(count), alpha(l.alphaCount), beta(l.betaCount);
    for (std::size_t i = 0; i < count; ++i)
      stream[i] = loadF32(streamIn, i);
    for (int64_t i = 0; i < l.alphaCount; ++i)
      alpha[i] = loadF32(alphaIn, i);
    for (int64_t i = 0; i < l.betaCount; ++i)
      beta[i] = loadF32(betaIn, i);
    std::vector<uint16_t> next(width), post(postIn ? width : 0);
    for (int64_t c = 0; c < width; ++c) {
      next[c] = loadBf16(nextIn, c);
      if (postIn)
        post[c] = loadBf16(*postIn, c);
    }

    auto outNorm = std::make_shared<NormExpectation>();
    auto streamNorm = std::make_shared<NormExpectation>();
    for (NormExpectation *e : {outNorm.get(), streamNorm.get()}) {
      e->rows = tokens;
      e->rowLength = width;
      e->reference.resize(count);
      e->bound.resize(count);
    }
    for (int row = 0; row < tokens; ++row) {
      std::size_t at = std::size_t(row) * width;
      DualNormRowInputs in;
      in.width = int(width);
      in.reduced = &reduced[at];
      in.stream = &stream[at];
      in.alpha = alpha.data();
      in.alphaCount = int(l.alphaCount);
      in.beta = beta.data();
      in.betaCount = int(l.betaCount);
      in.postWeight = postIn ? post.data() : nullptr;
      in.nextWeight = next.data();
      in.eps = l.eps;
      referenceDualNormRow(in, &streamNorm->reference[at],
                           &streamNorm->bound[at], &outNorm->reference[at],
                           &outNorm->bound[at]);
    }
    auto outBytes = std::make_shared<Bytes>(outIn);
    auto streamBytes = std::make_shared<Bytes>(streamIn);
    for (std::size_t i = 0; i < count; ++i) {
      storeBf16(*outBytes, i, floatToBf16(float(outNorm->reference[i])));
      storeF32(*streamBytes, i, float(streamNorm->reference[i]));
    }
    outNorm->base = outBytes;
    streamNorm->base = streamBytes;
    values[outArg].assign(tp, outBytes);
    values[streamArg].assign(tp, streamBytes);
    norms[outArg] = outNorm;
    norms[streamArg] = streamNorm;
  }

  const Manifest &m;
  const ProgramPlan &plan;
  const SimulationConfig &config;
  uint32_t set;
  int tokens;
  int tp;
  std::vector<std::vector<Value>> values;              ///< [argument][rank]
  std::vector<std::shared_ptr<NormExpectation>> norms; ///< [argument]
  std::vector<std::vector<Rows>> slots;                ///< [mailbox][rank]
};

} // namespace

StepExpectation simulateStep(const Manifest &manifest, const ProgramPlan &plan,
                             const SimulationConfig &config, uint32_t set,
                             int tokens) {
  if (config.allocationBytes.size() != manifest.arguments.size())
    throw Error("simulateStep: one allocation size per argument is needed");
  return StepSimulator(manifest, plan, config, set, tokens).run();
}

} // namespace check
} // namespace lamport
