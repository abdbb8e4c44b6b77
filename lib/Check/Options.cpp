//===- Options.cpp - lamport-run's command line ---------------------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#include "lamport/Check/Options.h"

#include "lamport/Runtime/Error.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>

namespace lamport {
namespace check {

using namespace runtime;

std::string usage() {
  return "usage: lamport-run BUNDLE --tp N --transport loopback|peer "
         "--tokens M|all [--steps S]\n"
         "                   [--check] [--bench] [--graph] [--json FILE] "
         "[--seed N]\n"
         "                   [--skip-publish RANK | --fault FAULT] "
         "[--timeout-check]\n"
         "                   [--batch B] [--steps-per-check S] "
         "[--watchdog SECONDS]\n"
         "                   [--poll-timeout-ns N]\n"
         "                   [--device N] [--no-pdl] [--publish-barrier] "
         "[--pipelined]\n"
         "                   [--max-host-memory GIB]\n"
         "       lamport-run BUNDLE --plan\n"
         "                   [--transport multicast --allow-multicast]";
}

std::string help() {
  return usage() +
         "\n"
         "faults (one rank misbehaves; docs/reliability.md):\n"
         "  --skip-publish R, --fault skip-publish:rank=R\n"
         "        R never publishes: the others' polls time out on slot R\n"
         "  --fault late-publish:rank=R:ns=N\n"
         "        R waits N ns before each publishing launch: below the "
         "polls'\n"
         "        timeout the group completes, above it the polls time out\n"
         "  --fault wrong-stage:rank=R\n"
         "        R starts one stage ahead: the polls time out, naming the "
         "stages\n"
         "  --fault corrupt:rank=R:row=I:col=J   (needs --check)\n"
         "        one BF16 of the input R publishes becomes 100.0 after the\n"
         "        reference is taken: the check names row I and column J\n"
         "  --timeout-check  a trap must be the one the fault causes, in "
         "time";
}

int64_t parseIntegerOption(const std::string &option, const std::string &text,
                           int64_t lo, int64_t hi) {
  errno = 0;
  char *end = nullptr;
  long long value = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end || errno == ERANGE)
    throw UsageError(concat(option, " expects an integer, got '", text, "'"));
  if (value < lo || value > hi)
    throw UsageError(
        concat(option, " must be in [", lo, ", ", hi, "], got ", value));
  return value;
}

int parseTokensOption(const std::string &option, const std::string &text) {
  return text == "all" ? 0
                       : int(parseIntegerOption(option, text, 1, kMaxTokens));
}

std::string formatBytes(double bytes) {
  const char *units[] = {"B", "KiB", "MiB", "GiB"};
  int unit = 0;
  while (bytes >= 1024 && unit < 3) {
    bytes /= 1024;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f %s", bytes, units[unit]);
  return text;
}

namespace {

/// The rules between options once all are read (a --plan run needs none).
void checkCombinations(const RunOptions &o, bool haveTp, bool haveTransport,
                       bool haveTokens) {
  if (!haveTp)
    throw UsageError("missing --tp N (the ranks of the TP group)");
  if (!haveTransport)
    throw UsageError("missing --transport loopback|peer");
  if (!haveTokens)
    throw UsageError("missing --tokens M|all (the tokens per step)");
  if (o.skipPublishRank >= o.tp)
    throw UsageError(concat("--skip-publish ", o.skipPublishRank,
                            " is not a rank of a TP group of ", o.tp));
  if (o.fault.rank >= o.tp)
    throw UsageError(concat("--fault ", faultText(o.fault), ": rank ",
                            o.fault.rank, " is not a rank of a TP group of ",
                            o.tp));
  if (o.timeoutCheck && !o.fault.canTrap())
    throw UsageError(
        o.fault ? concat("--timeout-check does not apply to --fault ",
                         faultName(o.fault.kind),
                         " (a corrupted value is a wrong result, not a "
                         "timeout)")
                : std::string("--timeout-check needs --skip-publish RANK, "
                              "--fault late-publish or --fault wrong-stage "
                              "(a timeout only happens when a rank does not "
                              "publish in time)"));
  if (o.fault.kind == FaultKind::Corrupt && !o.check)
    throw UsageError("--fault corrupt needs --check (only the check can "
                     "find the corrupted value)");
  if (o.pipelined && !o.graph)
    throw UsageError("--pipelined needs --graph (eager steps are timed one "
                     "by one, each joined)");
  if (o.transport == TransportKind::Multicast && !o.allowMulticast)
    throw UsageError("the multicast transport must be asked for explicitly "
                     "with --allow-multicast");
}

} // namespace

RunOptions parseRunOptions(const std::vector<std::string> &args) {
  RunOptions o;
  bool haveTp = false, haveTransport = false, haveTokens = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string &arg = args[i];
    auto value = [&]() -> const std::string & {
      if (i + 1 >= args.size())
        throw UsageError(concat(arg, " expects a value"));
      return args[++i];
    };
    if (arg == "--tp") {
      o.tp = int(parseIntegerOption(arg, value(), 1, kMaxTp));
      haveTp = true;
    } else if (arg == "--transport") {
      const std::string &name = value();
      if (name == "loopback")
        o.transport = TransportKind::Loopback;
      else if (name == "peer")
        o.transport = TransportKind::Peer;
      else if (name == "multicast")
        o.transport = TransportKind::Multicast;
      else
        throw UsageError(concat("unknown transport '", name,
                                "' (expected loopback or peer)"));
      haveTransport = true;
    } else if (arg == "--tokens") {
      o.tokens = parseTokensOption(arg, value());
      haveTokens = true;
    } else if (arg == "--steps") {
      o.steps = uint64_t(parseIntegerOption(arg, value(), 1, kMaxSteps));
    } else if (arg == "--check") {
      o.check = true;
    } else if (arg == "--bench") {
      o.bench = true;
    } else if (arg == "--graph") {
      o.graph = true;
    } else if (arg == "--json") {
      o.jsonPath = value();
      if (o.jsonPath.empty())
        throw UsageError("--json expects a file name");
    } else if (arg == "--seed") {
      o.seed = uint64_t(parseIntegerOption(arg, value(), 0, INT64_MAX));
    } else if (arg == "--skip-publish" || arg == "--fault") {
      Fault fault =
          arg == "--fault"
              ? parseFault(value())
              : Fault{FaultKind::SkipPublish,
                      int(parseIntegerOption(arg, value(), 0, kMaxTp - 1))};
      if (o.fault)
        throw UsageError(concat("one fault per run: ", arg, " after --fault ",
                                faultText(o.fault)));
      o.fault = fault;
      if (fault.kind == FaultKind::SkipPublish)
        o.skipPublishRank = fault.rank;
    } else if (arg == "--timeout-check") {
      o.timeoutCheck = true;
    } else if (arg == "--batch") {
      o.batch = int(parseIntegerOption(arg, value(), 1, kMaxBatch));
    } else if (arg == "--steps-per-check") {
      o.stepsPerCheck =
          uint64_t(parseIntegerOption(arg, value(), 1, kMaxSteps));
    } else if (arg == "--watchdog") {
      o.watchdogSeconds = double(parseIntegerOption(arg, value(), 1, 3600));
    } else if (arg == "--poll-timeout-ns") {
      o.pollTimeoutNs = parseIntegerOption(arg, value(), 1, INT64_MAX);
    } else if (arg == "--device") {
      o.device = int(parseIntegerOption(arg, value(), 0, kMaxDevice));
    } else if (arg == "--max-host-memory") {
      o.maxHostMemoryGiB = parseIntegerOption(arg, value(), 1, 1 << 20);
    } else if (arg == "--plan") {
      o.plan = true;
    } else if (arg == "--publish-barrier") {
      o.publishBarrier = true;
    } else if (arg == "--pipelined") {
      o.pipelined = true;
    } else if (arg == "--no-pdl") {
      o.noPdl = true;
    } else if (arg == "--allow-multicast") {
      o.allowMulticast = true;
    } else if (arg == "-h" || arg == "--help") {
      throw UsageError("");
    } else if (!arg.empty() && arg[0] == '-') {
      throw UsageError(concat("unknown option '", arg, "'"));
    } else if (o.bundle.empty()) {
      o.bundle = arg;
    } else {
      throw UsageError(concat("unexpected argument '", arg,
                              "' (the bundle is '", o.bundle, "')"));
    }
  }
  if (o.bundle.empty())
    throw UsageError("missing the BUNDLE directory");
  if (o.plan)
    return o;
  checkCombinations(o, haveTp, haveTransport, haveTokens);
  return o;
}

} // namespace check
} // namespace lamport
