//===- LaunchBinding.cpp - One launch bound to its op's roles -------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// Binding one launch's buffer parameters to the roles of its op
// (OpSignatures.cpp) and validating it: mailbox parameters, roles, the
// attributes the simulation reads (sum_order, eps), and every role's shape
// and dtype against the op, the mailbox width and the TP group.
//
//===----------------------------------------------------------------------===//

#include "LaunchBinding.h"
#include "lamport/Runtime/Error.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdlib>

namespace lamport {
namespace check {

using namespace runtime;

namespace {

using MailboxUse = OpSignature::MailboxUse;

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
      launch.access[role] = p.io;
      const ArgumentSpec &arg = m.arguments[p.argument];
      if (p.io != BufferIO::In && arg.io == BufferIO::In)
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

} // namespace

PlannedLaunch bindLaunch(const Manifest &manifest, int kernel, int tp,
                         int stepTokens) {
  return Binder(manifest, kernel, tp, stepTokens).bind();
}

} // namespace check
} // namespace lamport
