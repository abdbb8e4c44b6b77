//===- RunOptionsFuzzer.cpp - Fuzz lamport-run's command line -------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// A libFuzzer target over parseRunOptions, lamport-run's option parser. An
// input is the argument list, one argument a line (a NUL ends an argument
// too: a real argv cannot hold one); a final newline adds no empty argument.
//
// A bad command line must end in a UsageError; any other exception escapes
// and ends the run as a crash. What the parser accepts must hold values in
// the ranges its usage and RunOptions promise, or the run aborts with a
// finding.
//
//===----------------------------------------------------------------------===//

#include "lamport/Check/Options.h"
#include "lamport/Runtime/Error.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace lamport::runtime;
using namespace lamport::check;

namespace {

/// Ends the run with a report: the parser accepted what it promises not to.
[[noreturn]] void finding(const std::string &what) {
  std::fprintf(stderr, "lamport fuzz finding: %s\n", what.c_str());
  std::abort();
}

void require(bool holds, const char *what) {
  if (!holds)
    finding(concat("parseRunOptions accepted options where ", what));
}

/// The promises of RunOptions and usage() about an accepted command line.
void checkAccepted(const RunOptions &o) {
  require(!o.bundle.empty(), "the bundle is empty");
  if (o.plan)
    return;
  require(o.tp >= 1 && o.tp <= 64, "tp is outside [1, 64]");
  require(o.tokens >= 0 && o.tokens <= (1 << 16),
          "tokens is outside [0, 65536]");
  require(o.steps >= 1, "steps is 0");
  require(o.batch >= 1 && o.batch <= 4096, "batch is outside [1, 4096]");
  require(o.device >= 0 && o.device <= 1023, "device is outside [0, 1023]");
  require(o.skipPublishRank < o.tp, "the skipped rank is not a rank");
  require(!o.timeoutCheck || o.skipPublishRank >= 0,
          "--timeout-check has no --skip-publish");
  require(!o.pipelined || o.graph, "--pipelined has no --graph");
  require(o.transport != TransportKind::Multicast || o.allowMulticast,
          "multicast was not asked for with --allow-multicast");
  require(o.watchdogSeconds >= 0 && o.watchdogSeconds <= 3600,
          "the watchdog is outside [0, 3600] s");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::vector<std::string> args(1);
  for (size_t i = 0; i < size; ++i) {
    char c = char(data[i]);
    if (c == '\n' || c == '\0')
      args.emplace_back();
    else
      args.back() += c;
  }
  if (size && (data[size - 1] == '\n' || data[size - 1] == '\0'))
    args.pop_back();
  if (!size)
    args.clear();

  try {
    checkAccepted(parseRunOptions(args));
  } catch (const UsageError &) {
  }
  // The integer reader every option shares, on each argument.
  for (const std::string &arg : args) {
    try {
      int64_t value = parseIntegerOption("--n", arg, -5, 1 << 20);
      if (value < -5 || value > (1 << 20))
        finding(concat("parseIntegerOption('", arg, "') gave ", value,
                       ", outside [-5, 1048576]"));
    } catch (const UsageError &) {
    }
  }
  (void)usage();
  return 0;
}
