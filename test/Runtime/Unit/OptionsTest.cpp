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
      "--publish-barrier --pipelined --max-host-memory 64 "
      "--poll-timeout-ns 250000000");
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
  EXPECT_EQ(o.pollTimeoutNs, 250000000);
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
            "--timeout-check needs --skip-publish RANK, --fault late-publish "
            "or --fault wrong-stage (a timeout only happens when a rank does "
            "not publish in time)");
  EXPECT_EQ(errorOf(with({"--transport", "multicast"})),
            "the multicast transport must be asked for explicitly with "
            "--allow-multicast");
  EXPECT_EQ(errorOf(with({"--max-host-memory", "0"})),
            "--max-host-memory must be in [1, 1048576], got 0");
  EXPECT_EQ(errorOf(with({"--poll-timeout-ns", "0"})),
            "--poll-timeout-ns must be in [1, 9223372036854775807], got 0");
}

TEST(Options, Faults) {
  RunOptions late = parseRunOptions(
      with({"--fault", "late-publish:rank=1:ns=200000", "--timeout-check"}));
  EXPECT_EQ(late.fault.kind, FaultKind::LatePublish);
  EXPECT_EQ(late.fault.rank, 1);
  EXPECT_EQ(late.fault.ns, 200000u);
  EXPECT_TRUE(late.timeoutCheck);
  EXPECT_EQ(late.skipPublishRank, -1); // it publishes, late
  EXPECT_EQ(faultText(late.fault), "late-publish:rank=1:ns=200000");

  // Fields in any order; the text is written back in one order.
  RunOptions corrupt = parseRunOptions(
      with({"--check", "--fault", "corrupt:col=17:rank=1:row=3"}));
  EXPECT_EQ(corrupt.fault.kind, FaultKind::Corrupt);
  EXPECT_EQ(corrupt.fault.row, 3);
  EXPECT_EQ(corrupt.fault.column, 17);
  EXPECT_EQ(faultText(corrupt.fault), "corrupt:rank=1:row=3:col=17");

  RunOptions stage = parseRunOptions(with({"--fault", "wrong-stage:rank=0"}));
  EXPECT_EQ(stage.fault.kind, FaultKind::WrongStage);
  EXPECT_EQ(stage.fault.rank, 0);

  // --skip-publish R and --fault skip-publish:rank=R are one fault.
  for (std::vector<std::string> extra :
       {std::vector<std::string>{"--skip-publish", "1"},
        std::vector<std::string>{"--fault", "skip-publish:rank=1"}}) {
    RunOptions skip = parseRunOptions(with(extra));
    EXPECT_EQ(skip.fault.kind, FaultKind::SkipPublish);
    EXPECT_EQ(skip.skipPublishRank, 1);
  }
}

TEST(Options, FaultErrors) {
  auto fault = [](const std::string &text) {
    return errorOf(with({"--fault", text}));
  };
  EXPECT_EQ(fault("late"), "--fault: unknown fault 'late' (expected "
                           "skip-publish, late-publish, wrong-stage or "
                           "corrupt)");
  EXPECT_EQ(fault(""), "--fault: unknown fault '' (expected skip-publish, "
                       "late-publish, wrong-stage or corrupt)");
  EXPECT_EQ(fault("late-publish:rank=1"),
            "--fault late-publish: missing ns=N (the delay before each of "
            "its publishes, in ns)");
  EXPECT_EQ(fault("late-publish:ns=5"),
            "--fault late-publish: missing rank=N (the rank that "
            "misbehaves)");
  EXPECT_EQ(fault("late-publish:rank=1:ns=0"),
            "--fault late-publish: ns must be in [1, 60000000000], got 0");
  EXPECT_EQ(fault("late-publish:rank=1:ns=60000000001"),
            "--fault late-publish: ns must be in [1, 60000000000], got "
            "60000000001");
  EXPECT_EQ(fault("late-publish:rank=1:ns=1e6"),
            "--fault late-publish: ns expects an integer, got '1e6'");
  EXPECT_EQ(fault("late-publish:rank=1:ns=-5"),
            "--fault late-publish: ns must be in [1, 60000000000], got -5");
  EXPECT_EQ(fault("wrong-stage:rank=1:ns=5"),
            "--fault wrong-stage: unknown field 'ns' (wrong-stage takes "
            "rank)");
  EXPECT_EQ(fault("wrong-stage:rank=1:rank=0"),
            "--fault wrong-stage: field 'rank' given twice");
  EXPECT_EQ(fault("wrong-stage:1"),
            "--fault wrong-stage: field '1' is not KEY=VALUE (e.g. --fault "
            "wrong-stage:rank=1)");
  EXPECT_EQ(fault("wrong-stage:"),
            "--fault wrong-stage: field '' is not KEY=VALUE (e.g. --fault "
            "wrong-stage:rank=1)");
  EXPECT_EQ(fault("wrong-stage:rank="),
            "--fault wrong-stage: rank expects an integer, got ''");
  EXPECT_EQ(fault("wrong-stage:rank=64"),
            "--fault wrong-stage: rank must be in [0, 63], got 64");
  EXPECT_EQ(fault("wrong-stage:rank=2"),
            "--fault wrong-stage:rank=2: rank 2 is not a rank of a TP group "
            "of 2");
  EXPECT_EQ(errorOf(with({"--check", "--fault", "corrupt:rank=1:row=0"})),
            "--fault corrupt: missing col=N (the column of its published "
            "input to alter)");
  EXPECT_EQ(
      errorOf(with({"--check", "--fault", "corrupt:rank=1:row=65536:col=0"})),
      "--fault corrupt: row must be in [0, 65535], got 65536");
  EXPECT_EQ(errorOf(with(
                {"--check", "--fault", "corrupt:rank=1:row=0:col=2147483648"})),
            "--fault corrupt: col must be in [0, 2147483647], got "
            "2147483648");
  EXPECT_EQ(fault("corrupt:rank=1:row=0:col=1"),
            "--fault corrupt needs --check (only the check can find the "
            "corrupted value)");
  EXPECT_EQ(errorOf(with({"--check", "--fault", "corrupt:rank=1:row=0:col=1",
                          "--timeout-check"})),
            "--timeout-check does not apply to --fault corrupt (a corrupted "
            "value is a wrong result, not a timeout)");
  EXPECT_EQ(
      errorOf(with({"--fault", "wrong-stage:rank=1", "--skip-publish", "0"})),
      "one fault per run: --skip-publish after --fault "
      "wrong-stage:rank=1");
  EXPECT_EQ(errorOf(with({"--skip-publish", "0", "--fault",
                          "late-publish:rank=1:ns=5"})),
            "one fault per run: --fault after --fault skip-publish:rank=0");
  EXPECT_EQ(errorOf(with({"--fault"})), "--fault expects a value");
}

TEST(Faults, CorruptedBitsNeverHideTheChange) {
  EXPECT_EQ(corruptedBits(0x0000), 0x42C8); // 0 -> 100.0
  EXPECT_EQ(corruptedBits(0x8000), 0x42C8); // -0.0 -> 100.0
  EXPECT_EQ(corruptedBits(0x42C8), 0x42CA); // 100.0 -> 101.0
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    uint16_t now = corruptedBits(uint16_t(bits));
    EXPECT_NE(now, bits);
    EXPECT_NE(now, 0x8000); // never the sentinel
  }
}

TEST(Faults, TrapsTheFaultCauses) {
  auto record = [](int rank, int stage, int slot) {
    TimeoutRecord r{};
    r.claimed = 1;
    r.rank = rank;
    r.stage = stage;
    r.slot = slot;
    return r;
  };
  Fault skip{FaultKind::SkipPublish, 3};
  EXPECT_EQ(unexpectedTrap(skip, record(0, 0, 3)), "");
  EXPECT_EQ(unexpectedTrap(skip, record(0, 2, 3)), ""); // any stage
  EXPECT_EQ(unexpectedTrap(skip, record(0, 0, 1)),
            "rank 0 waited for slot 1, not the faulty rank 3");
  Fault late{FaultKind::LatePublish, 2, 5000000000};
  EXPECT_EQ(unexpectedTrap(late, record(1, 0, 2)), "");
  EXPECT_EQ(unexpectedTrap(late, record(1, 0, 0)),
            "rank 1 waited for slot 0, not the faulty rank 2");
  Fault stage{FaultKind::WrongStage, 1};
  EXPECT_EQ(unexpectedTrap(stage, record(0, 0, 1)), "");
  EXPECT_EQ(unexpectedTrap(stage, record(1, 1, 0)), "");
  EXPECT_EQ(unexpectedTrap(stage, record(0, 1, 1)),
            "rank 0 waited in stage 1 for slot 1, not in stage 0 for slot 1 "
            "(the rank one stage ahead)");
  EXPECT_EQ(unexpectedTrap(stage, record(0, 0, 2)),
            "rank 0 waited in stage 0 for slot 2, not in stage 0 for slot 1 "
            "(the rank one stage ahead)");
  EXPECT_EQ(unexpectedTrap(stage, record(1, 0, 0)),
            "rank 1 (one stage ahead) waited in stage 0 for slot 0, not in "
            "stage 1 for another rank's slot");
  EXPECT_EQ(unexpectedTrap(stage, record(1, 1, 1)),
            "rank 1 (one stage ahead) waited in stage 1 for slot 1, not in "
            "stage 1 for another rank's slot");
  EXPECT_EQ(expectedTrap(skip), "slot 3");
  EXPECT_EQ(expectedTrap(stage),
            "slot 1 in stage 0 (rank 1: another slot in stage 1)");
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
        "--max-host-memory", "--fault"})
    EXPECT_NE(text.find(option), std::string::npos) << option;
  // --help adds every fault's form.
  std::string full = help();
  EXPECT_EQ(full.find(text), 0u);
  for (const char *form : {"skip-publish:rank=R", "late-publish:rank=R:ns=N",
                           "wrong-stage:rank=R", "corrupt:rank=R:row=I:col=J"})
    EXPECT_NE(full.find(form), std::string::npos) << form;
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
