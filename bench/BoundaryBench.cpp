//===- BoundaryBench.cpp - lamport-boundary-bench's host logic ------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#include "BoundaryBench.h"

#include "lamport/Check/Inputs.h"
#include "lamport/Check/Options.h"
#include "lamport/Check/Reference.h"
#include "lamport/Runtime/CheckedMath.h"
#include "lamport/Runtime/Error.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

namespace lamport {
namespace bench {

using check::PlannedLaunch;
using check::ProgramPlan;
using runtime::ArgumentKind;
using runtime::ArgumentSpec;
using runtime::concat;
using runtime::DType;
using runtime::Error;
using runtime::KernelSpec;
using runtime::Manifest;
using runtime::UsageError;

const char *timingModeName(TimingMode mode) {
  switch (mode) {
  case TimingMode::Graph:
    return "graph";
  case TimingMode::Pipelined:
    return "pipelined";
  case TimingMode::Eager:
    return "eager";
  }
  return "?";
}

std::string benchUsage() {
  return "usage: lamport-boundary-bench FUSED_BUNDLE DUAL_NORM_BUNDLE --tp N\n"
         "           [--tokens M[,M...]] [--steps S] [--batch B] [--seed N]\n"
         "           [--modes pipelined[,graph][,eager]] [--json FILE] "
         "[--baseline-only]\n"
         "           [--no-pdl] [--watchdog SECONDS] [--boundary BUNDLE]\n"
         "       lamport-boundary-bench FUSED_BUNDLE DUAL_NORM_BUNDLE --plan "
         "[--tp N]";
}

namespace {

std::vector<std::string> splitCommas(const std::string &text) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (;;) {
    std::size_t comma = text.find(',', start);
    parts.push_back(text.substr(start, comma - start));
    if (comma == std::string::npos)
      return parts;
    start = comma + 1;
  }
}

std::string joined(const std::vector<std::string> &parts) {
  std::string text;
  for (const std::string &part : parts)
    text += concat(text.empty() ? "" : ", ", part);
  return text.empty() ? "nothing" : text;
}

std::string dims(const std::array<unsigned, 3> &d) {
  return concat(d[0], "x", d[1], "x", d[2]);
}

/// The ops of a step's launches, in order; the alternatives of one op
/// chosen by M (docs/bundle.md `tokens`) count once.
std::vector<std::string> stepOps(const Manifest &m) {
  std::vector<std::string> ops;
  for (std::size_t i = 0; i < m.launches.size(); ++i)
    if (!m.launchTokens[i] || m.launchTokens[i]->lo == 1)
      ops.push_back(m.kernels[m.launches[i]].op);
  return ops;
}

std::string programName(const Manifest &m) {
  return m.program.empty() ? std::string("(unnamed)") : m.program;
}

/// The plan of \p m, its errors prefixed with which bundle it is.
ProgramPlan planOf(const Manifest &m, int tp, const char *which) {
  try {
    return ProgramPlan(m, tp, /*strict=*/true);
  } catch (const Error &e) {
    throw Error(concat(which, " (program '", programName(m), "'): ", e.what()));
  }
}

/// The roles of the dual norm whose buffers both bundles must share.
const char *const kSharedRoles[] = {"stream",      "alpha",       "beta",
                                    "post_weight", "next_weight", "out"};

} // namespace

std::vector<int> parseTokenList(const std::string &text) {
  std::vector<int> tokens;
  for (const std::string &part : splitCommas(text)) {
    if (part.empty())
      throw UsageError(concat("--tokens expects a comma-separated list of "
                              "token counts, got '",
                              text, "'"));
    int m = int(check::parseIntegerOption("--tokens", part, 1, 16));
    if (std::find(tokens.begin(), tokens.end(), m) != tokens.end())
      throw UsageError(concat("--tokens lists ", m, " twice"));
    tokens.push_back(m);
  }
  return tokens;
}

BenchOptions parseBenchOptions(const std::vector<std::string> &args) {
  BenchOptions o;
  bool haveTp = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string &arg = args[i];
    auto value = [&]() -> const std::string & {
      if (i + 1 >= args.size())
        throw UsageError(concat(arg, " expects a value"));
      return args[++i];
    };
    if (arg == "--tp") {
      o.tp = int(check::parseIntegerOption(arg, value(), 1, check::kMaxTp));
      haveTp = true;
    } else if (arg == "--tokens") {
      o.tokens = parseTokenList(value());
    } else if (arg == "--steps") {
      o.steps = uint64_t(
          check::parseIntegerOption(arg, value(), 1, check::kMaxSteps));
    } else if (arg == "--batch") {
      // At least 4: a stale row (3 steps back) must be another input set,
      // as lamport-run requires.
      o.batch = int(check::parseIntegerOption(arg, value(), 4, 1024));
    } else if (arg == "--seed") {
      o.seed = uint64_t(check::parseIntegerOption(arg, value(), 0, INT64_MAX));
    } else if (arg == "--modes") {
      const std::string &text = value();
      o.modes.clear();
      for (const std::string &name : splitCommas(text)) {
        TimingMode mode;
        if (name == "pipelined")
          mode = TimingMode::Pipelined;
        else if (name == "graph")
          mode = TimingMode::Graph;
        else if (name == "eager")
          mode = TimingMode::Eager;
        else
          throw UsageError(concat("unknown mode '", name, "' in --modes '",
                                  text,
                                  "' (expected pipelined, graph or eager)"));
        if (std::find(o.modes.begin(), o.modes.end(), mode) != o.modes.end())
          throw UsageError(concat("--modes lists ", name, " twice"));
        o.modes.push_back(mode);
      }
    } else if (arg == "--json") {
      o.jsonPath = value();
      if (o.jsonPath.empty())
        throw UsageError("--json expects a file name");
    } else if (arg == "--boundary") {
      o.boundaryBundle = value();
      if (o.boundaryBundle.empty())
        throw UsageError("--boundary expects a bundle directory");
    } else if (arg == "--baseline-only") {
      o.baselineOnly = true;
    } else if (arg == "--no-pdl") {
      o.noPdl = true;
    } else if (arg == "--watchdog") {
      o.watchdogSeconds =
          double(check::parseIntegerOption(arg, value(), 1, 3600));
    } else if (arg == "--plan") {
      o.plan = true;
    } else if (arg == "-h" || arg == "--help") {
      o.help = true;
      return o;
    } else if (!arg.empty() && arg[0] == '-') {
      throw UsageError(concat("unknown option '", arg, "'"));
    } else if (o.fusedBundle.empty()) {
      o.fusedBundle = arg;
    } else if (o.normBundle.empty()) {
      o.normBundle = arg;
    } else {
      throw UsageError(concat("unexpected argument '", arg,
                              "' (the bundles are '", o.fusedBundle, "' and '",
                              o.normBundle, "')"));
    }
  }
  if (o.fusedBundle.empty())
    throw UsageError("missing FUSED_BUNDLE and DUAL_NORM_BUNDLE (the fused "
                     "attention boundary and the standalone dual norm)");
  if (o.normBundle.empty())
    throw UsageError("missing DUAL_NORM_BUNDLE (the standalone dual norm the "
                     "NCCL baseline runs after its all-reduce)");
  if (o.baselineOnly && !o.boundaryBundle.empty())
    throw UsageError("--boundary times ours, which --baseline-only skips");
  if (o.plan)
    return o;
  if (!haveTp)
    throw UsageError("missing --tp N (the ranks, one GPU each)");
  if (o.steps < 3 * uint64_t(o.batch))
    throw UsageError(concat("--steps ", o.steps, " is less than 3 x --batch (",
                            3 * o.batch,
                            "): a checked batch, a checked replay and at "
                            "least one timed batch"));
  return o;
}

int BoundaryPair::fused(const std::string &role) const {
  auto it = fusedRoles.find(role);
  return it == fusedRoles.end() ? -1 : it->second;
}

int BoundaryPair::norm(const std::string &role) const {
  auto it = normRoles.find(role);
  return it == normRoles.end() ? -1 : it->second;
}

BoundaryPair pairBundles(const Manifest &fused, const Manifest &norm, int tp,
                         bool baselineOnly) {
  const std::vector<std::string> fusedWant = {"gemm_publish",
                                              "all_reduce_dual_norm"};
  const std::vector<std::string> normWant = {"dual_norm"};
  std::vector<std::string> fusedOps = stepOps(fused), normOps = stepOps(norm);
  if (fusedOps == normWant && normOps == fusedWant)
    throw Error(concat("the bundles are in the wrong order: the first must be "
                       "the fused boundary and the second the dual norm, but "
                       "the first (program '",
                       programName(fused),
                       "') is a dual_norm and the second (program '",
                       programName(norm), "') the fused boundary"));
  if (fusedOps != fusedWant)
    throw Error(concat("the first bundle (program '", programName(fused),
                       "') must be a fused attention boundary, a step of "
                       "gemm_publish then all_reduce_dual_norm; its step "
                       "launches ",
                       joined(fusedOps)));
  if (normOps != normWant)
    throw Error(concat("the second bundle (program '", programName(norm),
                       "') must be a standalone dual norm, a step of one "
                       "dual_norm; its step launches ",
                       joined(normOps)));
  if (fused.mailboxes.size() != 1)
    throw Error(concat("the fused bundle (program '", programName(fused),
                       "') has ", fused.mailboxes.size(),
                       " mailboxes; the attention boundary has one"));
  if (!norm.mailboxes.empty())
    throw Error(concat("the dual_norm bundle (program '", programName(norm),
                       "') has a mailbox; the baseline's dual norm reads "
                       "NCCL's output from a buffer"));
  const runtime::MailboxSpec &mailbox = fused.mailboxes.front();
  BoundaryPair pair;
  pair.mailboxTp = mailbox.tp;
  pair.capacity = std::min(mailbox.capacity, 16);
  if (tp && !baselineOnly && tp != mailbox.tp)
    throw Error(concat("--tp ", tp, " does not match mailbox '", mailbox.name,
                       "' of the fused bundle (tp = ", mailbox.tp,
                       "); --baseline-only runs the NCCL baseline alone at "
                       "any tp"));
  int planTp = tp ? tp : mailbox.tp;
  ProgramPlan fusedPlan = planOf(fused, planTp, "the fused bundle");
  ProgramPlan normPlan = planOf(norm, planTp, "the dual_norm bundle");
  if (norm.launches.size() != 1 || norm.launchTokens[0])
    throw Error(concat("the dual_norm bundle (program '", programName(norm),
                       "') chooses among ", norm.launches.size(),
                       " kernels by M; the baseline launches one dual-norm "
                       "kernel for every M"));
  // The plans hold every alternative of the fused GEMM (bound alike), then
  // the consumer.
  const PlannedLaunch &gemm = fusedPlan.launches.front();
  const PlannedLaunch &consumer = fusedPlan.launches.back();
  const PlannedLaunch &dualNorm = normPlan.launches.at(0);
  if (gemm.mailbox < 0 || gemm.mailbox != consumer.mailbox)
    throw Error(concat("the fused bundle (program '", programName(fused),
                       "'): ", gemm.who,
                       " does not publish into the mailbox its consumer "
                       "reads; the fused boundary publishes from the GEMM's "
                       "epilogue"));
  for (const PlannedLaunch &launch : fusedPlan.launches)
    if (launch.op == "gemm_publish")
      pair.gemmKernels.push_back(launch.kernel);
  pair.consumerKernel = consumer.kernel;
  pair.normKernel = dualNorm.kernel;
  pair.fusedRoles = gemm.roles;
  for (const auto &[role, argument] : consumer.roles)
    pair.fusedRoles[role] = argument;
  pair.normRoles = dualNorm.roles;
  pair.h = consumer.width;
  pair.k = gemm.k;
  pair.eps = consumer.eps;
  if (dualNorm.width != pair.h)
    throw Error(concat(
        "the dual_norm bundle normalizes rows of H = ", dualNorm.width,
        ", but the fused boundary's are H = ", pair.h, " (its mailbox width)"));
  for (const char *role : kSharedRoles) {
    int f = pair.fused(role), n = pair.norm(role);
    if ((f < 0) != (n < 0))
      throw Error(concat("role '", role, "' is bound in the ",
                         f < 0 ? "dual_norm" : "fused",
                         " bundle only; both must have the same dual norm"));
    if (f < 0)
      continue;
    const ArgumentSpec &a = fused.arguments[f], &b = norm.arguments[n];
    if (a.dtype != b.dtype || a.shape != b.shape)
      throw Error(concat("role '", role, "' is ", runtime::shapeText(a.shape),
                         " ", runtime::dtypeName(a.dtype),
                         " in the fused bundle (argument '", a.name, "') but ",
                         runtime::shapeText(b.shape), " ",
                         runtime::dtypeName(b.dtype),
                         " in the dual_norm bundle (argument '", b.name, "')"));
  }
  pair.postWeight = pair.fused("post_weight") >= 0;
  if (dualNorm.eps != consumer.eps)
    throw Error(concat("eps differs: ", consumer.eps, " in the fused bundle, ",
                       dualNorm.eps, " in the dual_norm bundle"));
  return pair;
}

void checkBoundaryBundle(const Manifest &boundary, const BoundaryPair &pair) {
  const std::vector<std::string> twoKernels = {"publish_rows",
                                               "all_reduce_dual_norm"};
  std::vector<std::string> ops = stepOps(boundary);
  bool oneKernel =
      ops == std::vector<std::string>{"all_reduce_dual_norm"} &&
      boundary.kernels[boundary.launches.front()].publishesAndConsumes();
  if (ops != twoKernels && !oneKernel)
    throw Error(concat("the --boundary bundle (program '",
                       programName(boundary),
                       "') must be the boundary alone: a step of "
                       "all_reduce_dual_norm publishing its partial, or of "
                       "publish_rows then all_reduce_dual_norm; its step "
                       "launches ",
                       joined(ops)));
  ProgramPlan plan = planOf(boundary, pair.mailboxTp, "the --boundary bundle");
  const PlannedLaunch &publish = plan.launches.front();
  const PlannedLaunch &consumer = plan.launches.back();
  if (boundary.mailboxes.size() != 1 || publish.mailbox != consumer.mailbox ||
      publish.mailbox < 0)
    throw Error(concat("the --boundary bundle (program '",
                       programName(boundary),
                       "') must publish into the one mailbox its "
                       "all_reduce_dual_norm reads"));
  const runtime::MailboxSpec &mailbox = boundary.mailboxes.front();
  if (mailbox.tp != pair.mailboxTp || consumer.width != pair.h)
    throw Error(concat("the --boundary bundle's mailbox '", mailbox.name,
                       "' is tp = ", mailbox.tp, ", width ", consumer.width,
                       "; the fused bundle's is tp = ", pair.mailboxTp,
                       ", width ", pair.h, ": both must be the same boundary"));
  if (std::min(mailbox.capacity, 16) < pair.capacity)
    throw Error(concat("the --boundary bundle's mailbox '", mailbox.name,
                       "' holds ", mailbox.capacity,
                       " tokens, fewer than the fused bundle's ",
                       pair.capacity));
  if (consumer.eps != pair.eps)
    throw Error(concat("eps differs: ", consumer.eps,
                       " in the --boundary bundle, ", pair.eps,
                       " in the fused bundle"));
}

std::vector<std::size_t> allocationBytes(const Manifest &manifest) {
  // lamport-run allocates for the largest capacity; a bundle without a
  // mailbox (the dual norm) for the dialect's 16 tokens.
  int maxTokens = manifest.mailboxes.empty() ? 16 : manifest.maxTokens();
  std::vector<std::size_t> bytes(manifest.arguments.size(), 0);
  for (const ArgumentSpec &arg : manifest.arguments)
    if (arg.kind == ArgumentKind::Buffer)
      bytes[arg.index] = runtime::checkedRoundUp(
          arg.bytes(maxTokens), 16,
          concat("argument '", arg.name, "' rounded up to 16"));
  return bytes;
}

std::string describeBenchPlan(const Manifest &fused, const Manifest &norm,
                              const BoundaryPair &pair,
                              const BenchOptions &options,
                              const Manifest *boundary) {
  std::ostringstream os;
  int tp = options.tp ? options.tp : pair.mailboxTp;
  std::string tokens, modes;
  for (int m : options.tokens)
    tokens += concat(tokens.empty() ? "" : ",", m);
  for (TimingMode mode : options.modes)
    modes += concat(modes.empty() ? "" : ",", timingModeName(mode));
  os << "lamport-boundary-bench plan: tp " << tp << " (devices 0.." << tp - 1
     << "), H " << pair.h << ", K " << pair.k << ", tokens " << tokens
     << ", batch " << options.batch << ", steps " << options.steps << ", seed "
     << options.seed << ", modes " << modes << "\n";
  auto kernelLine = [&](const KernelSpec &k,
                        const std::optional<runtime::TokenRange> &tokens) {
    return concat(k.name, " (", k.op, ")",
                  tokens ? concat(" for M in ", tokens->lo, "..", tokens->hi)
                         : "",
                  ": grid ", dims(k.grid), ", block ", dims(k.block),
                  ", cluster ", dims(k.cluster), ", shared ", k.sharedBytes,
                  " B", k.pdl && !options.noPdl ? ", pdl" : "");
  };
  if (options.baselineOnly) {
    os << "(1) ours: skipped (--baseline-only)\n";
  } else {
    os << "(1) ours: program '" << programName(fused)
       << "' over the peer transport, checked as lamport-run --check, then "
          "timed as --bench\n";
    for (std::size_t i = 0; i < fused.launches.size(); ++i)
      os << "      "
         << kernelLine(fused.kernels[fused.launches[i]], fused.launchTokens[i])
         << "\n";
  }
  if (boundary) {
    os << "(1b) the boundary alone: program '" << programName(*boundary)
       << "' (its own integer partials), checked and timed as (1)\n";
    for (std::size_t i = 0; i < boundary->launches.size(); ++i)
      os << "      "
         << kernelLine(boundary->kernels[boundary->launches[i]],
                       boundary->launchTokens[i])
         << "\n";
  }
  const KernelSpec &normKernel = norm.kernels[pair.normKernel];
  os << "baseline, per rank and step (NCCL_NVLS_ENABLE=0, one communicator "
        "over the tp devices):\n"
     << "(2) ncclAllReduce partial -> reduced, [M, " << pair.h
     << "] bf16, sum\n"
     << "(3) (2), then program '" << programName(norm)
     << "': " << kernelLine(normKernel, std::nullopt) << "\n"
     << "(4) cublasGemmEx partial [M, " << pair.h << "] = x [M, " << pair.k
     << "] @ weight [" << pair.h << ", " << pair.k
     << "]^T (BF16 in and out, FP32 compute), then (3)\n";
  ProgramPlan fusedPlan(fused, tp, /*strict=*/true);
  std::vector<std::string> inputs;
  for (const char *role : {"x", "weight", "stream", "alpha", "beta",
                           "post_weight", "next_weight"}) {
    int arg = pair.fused(role);
    if (arg < 0)
      continue;
    const check::ArgumentPlan &p = fusedPlan.arguments[arg];
    inputs.push_back(concat(role, " ", check::inputKindName(p.spec.kind), " ",
                            runtime::shapeText(fused.arguments[arg].shape)));
  }
  os << "inputs (the fused bundle's roles, seed " << options.seed
     << "): " << joined(inputs) << "\nchecks: "
     << (options.baselineOnly
             ? ""
             : "ours as lamport-run --check (graph mode: graph == eager); ")
     << "the baseline's partial and reduced exact (either sign of a zero), "
        "out and stream within lamport-run's bounds, the same on every "
        "rank, graph == eager"
     << (options.baselineOnly ? "" : ", and equal to ours (output_hashes)")
     << "\n";
  double weight = double(pair.h) * pair.k * 2;
  os << "per rank and step: weight " << check::formatBytes(weight)
     << "; all-reduce of";
  for (std::size_t i = 0; i < options.tokens.size(); ++i)
    os << (i ? "," : "") << " "
       << check::formatBytes(double(options.tokens[i]) * pair.h * 2)
       << " at M = " << options.tokens[i];
  os << "\n";
  std::vector<std::size_t> bytes = allocationBytes(fused);
  double perPosition = 0;
  for (const auto &[role, arg] : pair.fusedRoles)
    perPosition += double(bytes[arg]);
  // The baseline's reduced (as large as y) and the stream's pristine copy.
  perPosition +=
      double(bytes[pair.fused("y")]) + double(bytes[pair.fused("stream")]);
  os << "device memory per rank: baseline "
     << check::formatBytes(perPosition * options.batch) << " (" << options.batch
     << " batch positions)";
  if (!options.baselineOnly) {
    // Harness: every buffer, one expected copy per output, one pristine
    // copy per restored input, per batch position; and the mailbox.
    double ours = 0;
    for (std::size_t a = 0; a < fused.arguments.size(); ++a) {
      const check::ArgumentPlan &p = fusedPlan.arguments[a];
      ours += double(bytes[a]) *
              (1 + (p.check != check::OutputCheck::None) + (p.restore ? 1 : 0));
    }
    os << ", ours "
       << check::formatBytes(ours * options.batch +
                             double(fused.mailboxes.front().copyBytes()))
       << " (with its checks)";
  }
  os << "\n";
  return os.str();
}

Mismatch compareBf16(const uint16_t *got, const uint16_t *want,
                     std::size_t count, bool zeroSignsEqual) {
  Mismatch result;
  for (std::size_t i = 0; i < count; ++i) {
    uint16_t a = got[i], b = want[i];
    if (zeroSignsEqual) {
      a = (a & 0x7FFF) == 0 ? 0 : a;
      b = (b & 0x7FFF) == 0 ? 0 : b;
    }
    if (a != b && result.count++ == 0)
      result.first = i;
  }
  return result;
}

std::vector<uint16_t>
integerAllReduce(const std::vector<const uint16_t *> &partials,
                 std::size_t count) {
  std::vector<uint16_t> sum(count);
  for (std::size_t i = 0; i < count; ++i) {
    float total = 0.0f;
    for (const uint16_t *partial : partials)
      total += check::bf16ToFloat(partial[i]);
    sum[i] = check::floatToBf16(total);
  }
  return sum;
}

NormCheck checkNorm(const void *got, DType dtype,
                    const check::NormExpectation &expected) {
  NormCheck result;
  std::size_t count = std::size_t(expected.rows) * expected.rowLength;
  double worstViolation = -1;
  for (std::size_t i = 0; i < count; ++i) {
    double value;
    if (dtype == DType::BF16) {
      uint16_t bits;
      std::memcpy(&bits, static_cast<const uint8_t *>(got) + 2 * i, 2);
      value = check::bf16ToFloat(bits);
    } else {
      float v;
      std::memcpy(&v, static_cast<const uint8_t *>(got) + 4 * i, 4);
      value = v;
    }
    double ratio =
        std::isfinite(value)
            ? std::fabs(value - expected.reference[i]) / expected.bound[i]
            : INFINITY;
    result.worst = std::max(result.worst, ratio);
    if (!check::withinTolerance(value, expected.reference[i],
                                expected.bound[i])) {
      ++result.violations;
      if (ratio > worstViolation) {
        worstViolation = ratio;
        result.first = i;
      }
    }
  }
  return result;
}

std::optional<double> medianRatio(const std::optional<Latency> &numerator,
                                  const std::optional<Latency> &denominator) {
  if (!numerator || !denominator || !(denominator->median > 0))
    return std::nullopt;
  return numerator->median / denominator->median;
}

std::string formatTable(const std::vector<TableRow> &rows) {
  std::ostringstream os;
  char line[320];
  const char *layout = "%3s %3s %-9s %15s %15s %15s %15s %15s %8s %10s  %s\n";
  std::snprintf(line, sizeof(line), layout, "tp", "M", "mode", "fused us",
                "boundary us", "NCCL AR us", "AR+norm us", "baseline us",
                "AR/bound", "base/fused", "check");
  os << line;
  std::snprintf(line, sizeof(line), layout, "", "", "", "median/p99",
                "median/p99", "median/p99", "median/p99", "median/p99",
                "(>= 2)", "", "");
  // No trailing blanks where the check column is empty.
  std::string second(line);
  second.erase(second.find_last_not_of(" \n") + 1);
  os << second << "\n";
  auto cell = [](const std::optional<Latency> &l) {
    if (!l)
      return std::string("-");
    char text[40];
    std::snprintf(text, sizeof(text), "%.2f/%.2f", l->median, l->p99);
    return std::string(text);
  };
  auto ratio = [](std::optional<double> r) {
    if (!r)
      return std::string("-");
    char text[24];
    std::snprintf(text, sizeof(text), "%.2fx", *r);
    return std::string(text);
  };
  for (const TableRow &row : rows) {
    std::snprintf(line, sizeof(line), layout, std::to_string(row.tp).c_str(),
                  std::to_string(row.m).c_str(), timingModeName(row.mode),
                  cell(row.ours).c_str(), cell(row.boundary).c_str(),
                  cell(row.allReduce).c_str(), cell(row.allReduceNorm).c_str(),
                  cell(row.baseline).c_str(),
                  ratio(medianRatio(row.allReduce, row.boundary)).c_str(),
                  ratio(medianRatio(row.baseline, row.ours)).c_str(),
                  row.check.c_str());
    os << line;
  }
  return os.str();
}

} // namespace bench
} // namespace lamport
