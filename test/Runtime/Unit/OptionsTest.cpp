//===- OptionsTest.cpp - lamport-run's command line -----------------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#include "lamport/Check/Options.h"
#include "lamport/Runtime/Error.h"

#include <gtest/gtest.h>

#include <sstream>

using namespace lamport::runtime;
using namespace lamport::check;

namespace {

std::vector<std::string> base() {
  return {"b", "--tp", "2", "--transport", "loopback", "--tokens", "4"};
}

std::string errorOf(std::vector<std::string> args) {
  try {
    parseRunOptions(args);
  } catch (const UsageError &e) {
    return e.what();
  }
  return "";
}

std::vector<std::string> with(std::vector<std::string> extra) {
  std::vector<std::string> args = base();
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

TEST(Options, Defaults) {
  RunOptions o = parseRunOptions(base());
  EXPECT_EQ(o.bundle, "b");
  EXPECT_EQ(o.tp, 2);
  EXPECT_EQ(o.transport, TransportKind::Loopback);
  EXPECT_EQ(o.tokens, 4);
  EXPECT_EQ(o.steps, 1u);
  EXPECT_FALSE(o.check || o.bench || o.graph || o.timeoutCheck || o.noPdl ||
               o.publishBarrier || o.pipelined);
  EXPECT_EQ(o.skipPublishRank, -1);
  EXPECT_EQ(o.batch, 64);
  EXPECT_EQ(o.maxHostMemoryGiB, 0); // what the host has available
}

TEST(Options, Everything) {
  std::vector<std::string> args;
  std::istringstream words(
      "--transport peer --tp 8 bundles/x --tokens all --steps 1000000 "
      "--check --bench --graph --json r.json --seed 9 --skip-publish 3 "
      "--timeout-check --batch 32 --watchdog 20 --device 1 --no-pdl "
      "--publish-barrier --pipelined --max-host-memory 64");
  for (std::string word; words >> word;)
    args.push_back(word);
  RunOptions o = parseRunOptions(args);
  EXPECT_EQ(o.bundle, "bundles/x");
  EXPECT_EQ(o.transport, TransportKind::Peer);
  EXPECT_EQ(o.tokens, 0); // all
  EXPECT_EQ(o.steps, 1000000u);
  EXPECT_TRUE(o.check && o.bench && o.graph && o.timeoutCheck);
  EXPECT_EQ(o.jsonPath, "r.json");
  EXPECT_EQ(o.seed, 9u);
  EXPECT_EQ(o.skipPublishRank, 3);
  EXPECT_EQ(o.batch, 32);
  EXPECT_EQ(o.watchdogSeconds, 20.0);
  EXPECT_EQ(o.device, 1);
  EXPECT_TRUE(o.noPdl);
  EXPECT_TRUE(o.publishBarrier);
  EXPECT_TRUE(o.pipelined);
  EXPECT_EQ(o.maxHostMemoryGiB, 64);
}

TEST(Options, Errors) {
  EXPECT_EQ(errorOf({"--tp", "2", "--transport", "peer", "--tokens", "1"}),
            "missing the BUNDLE directory");
  EXPECT_EQ(errorOf({"b", "--transport", "peer", "--tokens", "1"}),
            "missing --tp N (the ranks of the TP group)");
  EXPECT_EQ(errorOf({"b", "--tp", "2", "--tokens", "1"}),
            "missing --transport loopback|peer");
  EXPECT_EQ(errorOf({"b", "--tp", "2", "--transport", "peer"}),
            "missing --tokens M|all (the tokens per step)");
  EXPECT_EQ(errorOf(with({"--tp", "zero"})),
            "--tp expects an integer, got 'zero'");
  EXPECT_EQ(errorOf(with({"--tp", "0"})), "--tp must be in [1, 64], got 0");
  EXPECT_EQ(errorOf(with({"--steps", "0"})),
            "--steps must be in [1, 1099511627776], got 0");
  EXPECT_EQ(errorOf(with({"--tokens", "-1"})),
            "--tokens must be in [1, 65536], got -1");
  EXPECT_EQ(errorOf(with({"--transport", "nvls"})),
            "unknown transport 'nvls' (expected loopback or peer)");
  EXPECT_EQ(errorOf(with({"--frobnicate"})), "unknown option '--frobnicate'");
  EXPECT_EQ(errorOf(with({"--json"})), "--json expects a value");
  EXPECT_EQ(errorOf(with({"other"})),
            "unexpected argument 'other' (the bundle is 'b')");
  EXPECT_EQ(errorOf(with({"--skip-publish", "2"})),
            "--skip-publish 2 is not a rank of a TP group of 2");
  EXPECT_EQ(errorOf(with({"--pipelined"})),
            "--pipelined needs --graph (eager steps are timed one by one, "
            "each joined)");
  EXPECT_EQ(errorOf(with({"--timeout-check"})),
            "--timeout-check needs --skip-publish RANK (a timeout only "
            "happens when a rank does not publish)");
  EXPECT_EQ(errorOf(with({"--transport", "multicast"})),
            "the multicast transport must be asked for explicitly with "
            "--allow-multicast");
  EXPECT_EQ(errorOf(with({"--max-host-memory", "0"})),
            "--max-host-memory must be in [1, 1048576], got 0");
}

TEST(Options, PlanNeedsOnlyTheBundle) {
  RunOptions o = parseRunOptions({"b", "--plan"});
  EXPECT_TRUE(o.plan);
  EXPECT_EQ(o.bundle, "b");
  EXPECT_EQ(errorOf({"--plan"}), "missing the BUNDLE directory");
}

TEST(Options, UsageNamesEveryOption) {
  std::string text = usage();
  for (const char *option :
       {"--tp", "--transport", "--tokens", "--steps", "--check", "--bench",
        "--graph", "--json", "--seed", "--skip-publish", "--timeout-check",
        "--max-host-memory"})
    EXPECT_NE(text.find(option), std::string::npos) << option;
}

} // namespace

namespace {

TEST(Multicast, RefusedUnlessAskedAndNeverWithNvlsOff) {
  EXPECT_EQ(multicastRefusal(true, nullptr), "");
  EXPECT_EQ(multicastRefusal(true, "1"), "");
  EXPECT_EQ(multicastRefusal(false, nullptr),
            "the multicast transport must be asked for explicitly "
            "(--allow-multicast)");
  EXPECT_EQ(multicastRefusal(true, "0"),
            "the multicast transport is refused: NCCL_NVLS_ENABLE=0 is set, "
            "which says NVLink multicast must not be used on this machine");
}

} // namespace
