//===- ManifestTest.cpp - manifest.json parsing and validation ------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#include "lamport/Runtime/Manifest.h"
#include "lamport/Runtime/Error.h"

#include "TestManifests.h"

#include <filesystem>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <string>
#include <unistd.h>

using namespace lamport::runtime;
using nlohmann::json;

namespace {

/// A valid tp = 2 publish/poll manifest, as docs/bundle.md describes it.
json validManifest() { return lamport::test::publishPollManifest(); }

/// The message parseManifest throws for \p manifest, or "" if it parses.
std::string errorOf(const json &manifest) {
  try {
    parseManifest(manifest.dump(), "m.json");
  } catch (const Error &e) {
    return e.what();
  }
  return "";
}

TEST(Manifest, ParsesTheDocumentedShape) {
  Manifest m = parseManifest(validManifest().dump());
  EXPECT_EQ(m.version, 1);
  EXPECT_EQ(m.chip, "sm_90");
  EXPECT_EQ(m.program, "publish_poll");
  ASSERT_EQ(m.mailboxes.size(), 1u);
  EXPECT_EQ(m.mailboxes[0].tp, 2);
  EXPECT_EQ(m.mailboxes[0].descriptorBytes(), 56u);
  EXPECT_EQ(m.mailboxes[0].copyBytes(), 3u * 2 * 16 * 1024 * 2);
  ASSERT_EQ(m.arguments.size(), 3u);
  EXPECT_EQ(m.arguments[2].io, BufferIO::Out);
  EXPECT_EQ(m.arguments[2].elements(5), 2u * 5 * 1024);
  EXPECT_EQ(m.arguments[2].bytes(5), 2u * 2 * 5 * 1024);
  ASSERT_EQ(m.kernels.size(), 2u);
  EXPECT_TRUE(m.kernels[0].pdl);
  EXPECT_TRUE(m.kernels[0].publishes());
  EXPECT_FALSE(m.kernels[1].publishes());
  EXPECT_EQ(m.kernels[0].blockThreads(), 128u);
  EXPECT_EQ(m.kernels[1].attribute("timeout_ns").value_or(""), "2000000000");
  EXPECT_EQ(m.kernels[0].attribute("transport").value_or(""), "unicast");
  EXPECT_FALSE(m.kernels[0].attribute("sum_order").has_value());
  EXPECT_EQ(m.kernels[1].params[1].kind, ParamKind::Buffer);
  EXPECT_EQ(m.kernels[1].params[1].argument, 2);
  EXPECT_EQ(m.launches, (std::vector<int>{0, 1}));
  EXPECT_EQ(m.maxTokens(), 16);
  EXPECT_EQ(m.findKernel("poll_rows_0"), &m.kernels[1]);
  EXPECT_EQ(m.findKernel("nope"), nullptr);
  EXPECT_EQ(m.mailboxNotOfTp(2), nullptr);
  EXPECT_EQ(m.mailboxNotOfTp(4), &m.mailboxes[0]);
}

TEST(Manifest, ParsesBufferRoles) {
  json m = validManifest();
  m["kernels"][0]["params"][1]["role"] = "rows";
  m["kernels"][1]["params"][1]["role"] = "out";
  Manifest parsed = parseManifest(m.dump());
  EXPECT_EQ(parsed.kernels[0].params[1].role, "rows");
  EXPECT_EQ(parsed.kernels[1].params[1].role, "out");
  // A manifest without roles (written before them) still parses.
  EXPECT_EQ(parseManifest(validManifest().dump()).kernels[0].params[1].role,
            "");
  // --plan names them.
  std::string plan = describePlan(parsed);
  EXPECT_NE(plan.find("roles: rows = 'rows'"), std::string::npos) << plan;
  EXPECT_NE(plan.find("roles: out = 'out'"), std::string::npos) << plan;
  m["kernels"][0]["params"][1]["role"] = 3;
  EXPECT_EQ(errorOf(m), "m.json: kernels[0].params[1].role: must be a "
                        "string, got 3");
}

TEST(Manifest, RejectsText) {
  try {
    parseManifest("{not json", "m.json");
    FAIL() << "parsed";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("m.json: not valid JSON"),
              std::string::npos)
        << e.what();
  }
}

TEST(Manifest, MissingField) {
  json m = validManifest();
  m.erase("chip");
  EXPECT_EQ(errorOf(m), "m.json: missing field 'chip'");
  m = validManifest();
  m["kernels"][1].erase("grid");
  EXPECT_EQ(errorOf(m), "m.json: kernels[1]: missing field 'grid'");
  m = validManifest();
  m["mailboxes"][0].erase("width");
  EXPECT_EQ(errorOf(m), "m.json: mailboxes[0]: missing field 'width'");
}

TEST(Manifest, WrongFormatAndVersion) {
  json m = validManifest();
  m["format"] = "cubin-pack";
  EXPECT_EQ(errorOf(m),
            "m.json: format: is 'cubin-pack', expected 'lamport-bundle'");
  m = validManifest();
  m["version"] = 2;
  EXPECT_EQ(errorOf(m), "m.json: version: manifest version 2 is not "
                        "supported (this runtime reads version 1)");
  m = validManifest();
  m["version"] = "1";
  EXPECT_EQ(errorOf(m), "m.json: version: must be an integer, got \"1\"");
}

TEST(Manifest, UnknownKinds) {
  json m = validManifest();
  m["arguments"][0]["kind"] = "tensor";
  EXPECT_EQ(errorOf(m), "m.json: arguments[0].kind: unknown argument kind "
                        "'tensor' (expected 'buffer' or 'mailbox')");
  m = validManifest();
  m["kernels"][0]["params"][2]["kind"] = "stream";
  EXPECT_EQ(errorOf(m),
            "m.json: kernels[0].params[2].kind: unknown parameter kind "
            "'stream' (expected 'mailbox', 'buffer', 'tokens' or "
            "'tensor_map')");
  m = validManifest();
  m["arguments"][0]["dtype"] = "f16";
  EXPECT_EQ(errorOf(m), "m.json: arguments[0].dtype: unknown dtype 'f16' "
                        "(expected 'bf16', 'f32' or 'i32')");
  m = validManifest();
  m["arguments"][2]["io"] = "both";
  EXPECT_EQ(errorOf(m), "m.json: arguments[2].io: unknown io 'both' "
                        "(expected 'in', 'out' or 'inout')");
  m = validManifest();
  m["kernels"][1]["op"] = "reduce-scatter";
  EXPECT_EQ(errorOf(m), "m.json: kernels[1].op: must be a name of letters, "
                        "digits and '_' that does not start with a digit, "
                        "got 'reduce-scatter'");
  m = validManifest();
  m["transport"] = "nvshmem";
  EXPECT_EQ(errorOf(m), "m.json: transport: unknown transport 'nvshmem' "
                        "(expected 'unicast' or 'multicast')");
}

TEST(Manifest, DescriptorSizeMustBe40Plus8Tp) {
  json m = validManifest();
  m["kernels"][0]["params"][0]["size"] = 104;
  EXPECT_EQ(errorOf(m),
            "m.json: kernels[0].params[0].size: mailbox parameter is 104 "
            "bytes, expected 56 (the descriptor of mailbox 'mb' is 40 + 8 * "
            "tp bytes, tp = 2)");
  m = validManifest();
  m["kernels"][0]["params"][0]["align"] = 16;
  EXPECT_EQ(errorOf(m), "m.json: kernels[0].params[0].align: mailbox "
                        "parameter is aligned to 16, expected 8");
  m = validManifest();
  m["kernels"][0]["params"][1]["size"] = 4;
  EXPECT_EQ(errorOf(m), "m.json: kernels[0].params[1].size: buffer parameter "
                        "is 4 bytes, expected 8 (a device pointer)");
  m = validManifest();
  m["kernels"][0]["params"][2]["size"] = 8;
  EXPECT_EQ(errorOf(m), "m.json: kernels[0].params[2].size: tokens parameter "
                        "is 8 bytes, expected 4 (an i32 token count)");
}

TEST(Manifest, ParametersNameTheRightArguments) {
  json m = validManifest();
  m["kernels"][0]["params"][0]["argument"] = 0;
  EXPECT_EQ(errorOf(m), "m.json: kernels[0].params[0].argument: names "
                        "argument 0 ('rows'), which is a buffer, but the "
                        "parameter is a mailbox");
  m = validManifest();
  m["kernels"][0]["params"][1]["argument"] = 7;
  EXPECT_EQ(errorOf(m), "m.json: kernels[0].params[1].argument: names "
                        "argument 7, but the program has 3 argument(s)");
  m = validManifest();
  m["arguments"][1]["mailbox"] = 3;
  EXPECT_EQ(errorOf(m), "m.json: arguments[1].mailbox: names mailbox 3, but "
                        "the manifest has 1 mailbox(es)");
}

TEST(Manifest, MailboxRules) {
  json m = validManifest();
  m["mailboxes"][0]["width"] = 1020;
  EXPECT_EQ(errorOf(m), "m.json: mailboxes[0].width: must be a multiple of 8 "
                        "BF16 (one 16-byte fragment), got 1020");
  m = validManifest();
  m["mailboxes"][0]["tp"] = 0;
  EXPECT_EQ(errorOf(m), "m.json: mailboxes[0].tp: must be in [1, 64], got 0");
  m = validManifest();
  m["mailboxes"][0]["id"] = 1;
  EXPECT_EQ(errorOf(m), "m.json: mailboxes[0].id: must equal the mailbox's "
                        "position 0, got 1");
}

TEST(Manifest, LaunchShapeRules) {
  json m = validManifest();
  m["kernels"][0]["block"] = {1024, 2, 1};
  EXPECT_EQ(errorOf(m), "m.json: kernels[0].block: has 2048 threads; a CTA "
                        "holds at most 1024");
  m = validManifest();
  m["kernels"][0]["cluster"] = {3, 1, 1};
  EXPECT_EQ(errorOf(m), "m.json: kernels[0].cluster: dimension 0 (3) does "
                        "not divide the grid's (16)");
  m = validManifest();
  m["kernels"][0]["grid"] = {0, 1, 1};
  EXPECT_EQ(errorOf(m), "m.json: kernels[0].grid[0]: must be in [1, "
                        "2147483647], got 0");
  m = validManifest();
  m["kernels"][0]["grid"] = {16, 65536, 1};
  EXPECT_EQ(errorOf(m), "m.json: kernels[0].grid[1]: must be in [1, 65535], "
                        "got 65536");
  m = validManifest();
  m["kernels"][0]["block"] = {128, 1, 65};
  EXPECT_EQ(errorOf(m), "m.json: kernels[0].block[2]: must be in [1, 64], "
                        "got 65");
  m = validManifest();
  m["kernels"][0]["cluster"] = {16, 1, 1};
  EXPECT_EQ(errorOf(m), "m.json: kernels[0].cluster[0]: must be in [1, 8], "
                        "got 16");
  m = validManifest();
  m["kernels"][0]["grid"] = {16, 1};
  EXPECT_EQ(errorOf(m), "m.json: kernels[0].grid: must have 3 entries, got 2");
  m = validManifest();
  m["kernels"][0]["pdl"] = 1;
  EXPECT_EQ(errorOf(m), "m.json: kernels[0].pdl: must be true or false, got 1");
  m = validManifest();
  m["kernels"][0]["cubin"] = "../../etc/passwd";
  EXPECT_EQ(errorOf(m), "m.json: kernels[0].cubin: must be a file name "
                        "inside the bundle, got '../../etc/passwd'");
}

TEST(Manifest, LaunchesNameKernels) {
  json m = validManifest();
  m["launches"][1]["kernel"] = "all_reduce_0";
  EXPECT_EQ(errorOf(m), "m.json: launches[1].kernel: names kernel "
                        "'all_reduce_0', which the manifest does not list");
  m = validManifest();
  m["launches"] = json::array();
  EXPECT_EQ(errorOf(m), "m.json: launches: must hold at least one launch");
  m = validManifest();
  m["kernels"][1]["name"] = "publish_rows_0";
  m["launches"][1]["kernel"] = "publish_rows_0";
  EXPECT_EQ(errorOf(m), "m.json: kernels[1].name: kernel name "
                        "'publish_rows_0' is used twice");
}

/// validManifest() whose publish is chosen by M: publish_rows_0 for M in
/// 1..8, publish_rows_1 (the same kernel under another name) for 9..16.
json choiceManifest() {
  json m = validManifest();
  json alternative = m["kernels"][0];
  alternative["name"] = "publish_rows_1";
  alternative["ptx"] = "publish_rows_1.ptx";
  alternative["cubin"] = "publish_rows_1.cubin";
  m["kernels"].push_back(alternative);
  m["launches"] = json::parse(R"([
    {"kernel": "publish_rows_0", "tokens": [1, 8]},
    {"kernel": "publish_rows_1", "tokens": [9, 16]},
    {"kernel": "poll_rows_0"}])");
  return m;
}

TEST(Manifest, ParsesTokenRanges) {
  Manifest m = parseManifest(choiceManifest().dump());
  ASSERT_EQ(m.launchTokens.size(), 3u);
  ASSERT_TRUE(m.launchTokens[0].has_value());
  EXPECT_EQ(m.launchTokens[0]->lo, 1);
  EXPECT_EQ(m.launchTokens[0]->hi, 8);
  EXPECT_EQ(m.launchTokens[1]->lo, 9);
  EXPECT_EQ(m.launchTokens[1]->hi, 16);
  EXPECT_FALSE(m.launchTokens[2].has_value());
  for (int tokens = 1; tokens <= 16; ++tokens) {
    EXPECT_EQ(m.launchRuns(0, tokens), tokens <= 8);
    EXPECT_EQ(m.launchRuns(1, tokens), tokens > 8);
    EXPECT_TRUE(m.launchRuns(2, tokens));
  }
  // One range for every M is a choice of one alternative.
  json one = validManifest();
  one["launches"][0]["tokens"] = {1, 16};
  EXPECT_EQ(errorOf(one), "");
  // Without `tokens` every launch runs at every M.
  Manifest plain = parseManifest(validManifest().dump());
  EXPECT_FALSE(plain.launchTokens[0].has_value());
  EXPECT_TRUE(plain.launchRuns(0, 16));
  std::string plan = describePlan(m);
  EXPECT_NE(plan.find("1. publish_rows_0 (publish_rows) for M in 1..8: grid"),
            std::string::npos)
      << plan;
  EXPECT_NE(plan.find("2. publish_rows_1 (publish_rows) for M in 9..16: grid"),
            std::string::npos)
      << plan;
}

TEST(Manifest, TokenRangeRules) {
  std::string at = "m.json: launches[0].tokens";
  std::string range = ": must be [lo, hi] with 1 <= lo <= hi <= 16 (the "
                      "largest mailbox capacity), got ";
  std::pair<const char *, std::string> cases[] = {
      {"[0, 8]", at + "[0]: must be in [1, 65536], got 0"},
      {"[9, 8]", at + range + "[9, 8]"},
      {"[1, 17]", at + range + "[1, 17]"},
      {"[1]", at + ": must have 2 entries, got 1"},
      {"[1, 8, 9]", at + ": must have 2 entries, got 3"},
      {"\"1..8\"", at + ": must be an array, got \"1..8\""},
      {"[1.5, 8]", at + "[0]: must be an integer, got 1.5"}};
  for (const auto &[bad, expected] : cases) {
    json m = choiceManifest();
    m["launches"][0]["tokens"] = json::parse(bad);
    EXPECT_EQ(errorOf(m), expected) << bad;
  }
}

TEST(Manifest, TokenRangesCoverEveryMOnce) {
  std::string rule =
      " (the launches with 'tokens' are alternatives of one op, consecutive "
      "and in ascending M: their ranges start at 1, each begins right after "
      "the one before ends, and the last ends at the largest mailbox "
      "capacity, so exactly one of them runs at every M)";
  json m = choiceManifest();
  m["launches"][1]["tokens"] = {8, 16};
  EXPECT_EQ(errorOf(m), "m.json: launches[1].tokens: starts at 8 where 9 is "
                        "expected: the ranges overlap" +
                            rule);
  m = choiceManifest();
  m["launches"][1]["tokens"] = {10, 16};
  EXPECT_EQ(errorOf(m), "m.json: launches[1].tokens: starts at 10 where 9 is "
                        "expected: M in between runs no alternative" +
                            rule);
  m = choiceManifest();
  m["launches"][0]["tokens"] = {2, 8};
  EXPECT_EQ(errorOf(m), "m.json: launches[0].tokens: starts at 2 where 1 is "
                        "expected: M in between runs no alternative" +
                            rule);
  m = choiceManifest();
  m["launches"][1]["tokens"] = {9, 12};
  EXPECT_EQ(errorOf(m), "m.json: launches[2]: has no 'tokens' but the choice "
                        "by M that launches[0] starts covers only 1..12" +
                            rule);
  m = choiceManifest();
  m["launches"].erase(2);
  m["launches"][1]["tokens"] = {9, 12};
  EXPECT_EQ(errorOf(m), "m.json: launches[0]: the choice by M it starts "
                        "covers only 1..12, not 1..16" +
                            rule);
  m = choiceManifest();
  m["launches"][1]["kernel"] = "poll_rows_0";
  EXPECT_EQ(errorOf(m), "m.json: launches[1].tokens: launches op "
                        "'poll_rows' in the choice by M that launches[0] "
                        "starts with op 'publish_rows'" +
                            rule);
  // Two choices one after the other are two ops.
  m = choiceManifest();
  m["launches"][2] = {{"kernel", "publish_rows_0"}, {"tokens", {1, 4}}};
  m["launches"].push_back({{"kernel", "publish_rows_1"}, {"tokens", {5, 16}}});
  m["launches"].push_back({{"kernel", "poll_rows_0"}});
  EXPECT_EQ(errorOf(m), "");
}

TEST(Manifest, BufferShapes) {
  json m = validManifest();
  m["arguments"][0]["shape"] = {0, 1024};
  EXPECT_EQ(errorOf(m), "m.json: arguments[0].shape[0]: must be positive or "
                        "-1 (the token count), got 0");
  ArgumentSpec arg;
  arg.shape = {8, -1, 16};
  arg.dtype = DType::F32;
  EXPECT_EQ(arg.shapeFor(3), (std::vector<int64_t>{8, 3, 16}));
  EXPECT_EQ(arg.bytes(3), 8u * 3 * 16 * 4);
}

TEST(Manifest, IntegersAreRangeCheckedBeforeNarrowing) {
  // 2^32 must not read as 0, nor 2^64 - 1 as -1 (the token count).
  json m = validManifest();
  m["mailboxes"][0]["id"] = 4294967296u;
  EXPECT_EQ(errorOf(m), "m.json: mailboxes[0].id: must be in [0, "
                        "2147483647], got 4294967296");
  m = validManifest();
  m["arguments"][0]["shape"][0] = 18446744073709551615u;
  EXPECT_EQ(errorOf(m), "m.json: arguments[0].shape[0]: must be in [-1, "
                        "2147483647], got 18446744073709551615");
  m = validManifest();
  m["arguments"][1]["mailbox"] = 4294967296u;
  EXPECT_EQ(errorOf(m), "m.json: arguments[1].mailbox: must be in [0, "
                        "2147483647], got 4294967296");
  m = validManifest();
  m["kernels"][0]["params"][1]["argument"] = 4294967296u;
  EXPECT_EQ(errorOf(m), "m.json: kernels[0].params[1].argument: must be in "
                        "[0, 2147483647], got 4294967296");
  // 65536 x 65536 threads must not wrap to a block of 0.
  m = validManifest();
  m["kernels"][0]["block"] = {65536, 65536, 1};
  EXPECT_EQ(errorOf(m), "m.json: kernels[0].block[0]: must be in [1, 1024], "
                        "got 65536");
  m = validManifest();
  m["version"] = 4294967297u;
  EXPECT_EQ(errorOf(m), "m.json: version: manifest version 4294967297 is not "
                        "supported (this runtime reads version 1)");
}

TEST(Manifest, NumbersPastADoubleAreBundleErrors) {
  std::string text = validManifest().dump();
  std::string bad = text;
  bad.replace(bad.find("\"shared_bytes\":0"), 16, "\"shared_bytes\":1e400");
  try {
    parseManifest(bad, "m.json");
    FAIL() << "parsed";
  } catch (const Error &e) {
    EXPECT_EQ(std::string(e.what()).rfind("m.json: not valid JSON: ", 0), 0u)
        << e.what();
  }
}

TEST(Manifest, MessagesQuoteNoWholeValue) {
  json m = validManifest();
  m["transport"] = std::string(10000, 'x');
  std::string got = errorOf(m);
  EXPECT_EQ(got, "m.json: transport: unknown transport '" +
                     std::string(80, 'x') +
                     "...' (expected 'unicast' or 'multicast')");
  m = validManifest();
  m["kernels"][0]["grid"] = json::array();
  for (int i = 0; i < 10000; ++i)
    m["kernels"][0]["grid"].push_back(1);
  EXPECT_EQ(errorOf(m),
            "m.json: kernels[0].grid: must have 3 entries, got 10000");
  m = validManifest();
  m["kernels"][0]["pdl"] = json::object({{"a", std::string(1000, 'a')}});
  EXPECT_EQ(errorOf(m), "m.json: kernels[0].pdl: must be true or false, got "
                        "an object of 1 field");
  m = validManifest();
  m["kernels"][0]["attributes"]["eps"] = {1, 2};
  EXPECT_EQ(errorOf(m), "m.json: kernels[0].attributes.eps: must be a "
                        "string, a number or true or false, got an array of "
                        "2 entries");
}

TEST(Manifest, NamesAndChips) {
  json m = validManifest();
  m["chip"] = "gfx90a";
  EXPECT_EQ(errorOf(m), "m.json: chip: must name an SM such as 'sm_90' or "
                        "'sm_100a', got 'gfx90a'");
  m["chip"] = "sm_100a";
  EXPECT_EQ(errorOf(m), "");
  m = validManifest();
  m["arguments"][2]["name"] = "rows";
  EXPECT_EQ(errorOf(m), "m.json: arguments[2].name: argument name 'rows' is "
                        "used twice");
  m = validManifest();
  m["mailboxes"][0]["name"] = "";
  EXPECT_EQ(errorOf(m), "m.json: mailboxes[0].name: must not be empty");
  m = validManifest();
  m["kernels"][0]["params"][1]["role"] = "post weight";
  EXPECT_EQ(errorOf(m), "m.json: kernels[0].params[1].role: must be a name "
                        "of letters, digits and '_' that does not start "
                        "with a digit, got 'post weight'");
}

TEST(Manifest, AcceptsAnyOpAndUnknownFields) {
  // The host simulation, not the manifest, knows what an op computes.
  json m = validManifest();
  m["kernels"][1]["op"] = "reduce_scatter";
  m["kernels"][1]["mailbox_use"] = "poll";
  // Fields a later writer adds to version 1 are ignored.
  m["compiler"] = "lamport-compile 2";
  m["kernels"][0]["registers"] = 40;
  m["kernels"][0]["params"][1]["io"] = "in";
  Manifest parsed = parseManifest(m.dump());
  EXPECT_EQ(parsed.kernels[1].op, "reduce_scatter");
  m["kernels"][0]["params"][1]["io"] = "read";
  EXPECT_EQ(errorOf(m), "m.json: kernels[0].params[1].io: unknown io 'read' "
                        "(expected 'in', 'out' or 'inout')");
}

TEST(Manifest, MailboxUse) {
  using Use = KernelSpec::MailboxUse;
  json m = validManifest();
  m["kernels"][0]["mailbox_use"] = "publish_and_poll";
  m["kernels"][1]["mailbox_use"] = "publish";
  Manifest parsed = parseManifest(m.dump());
  EXPECT_EQ(parsed.kernels[0].mailboxUse, Use::PublishAndPoll);
  EXPECT_TRUE(parsed.kernels[0].publishes());
  EXPECT_TRUE(parsed.kernels[0].publishesAndConsumes());
  // The field, not the op's name, says what the kernel does.
  EXPECT_EQ(parsed.kernels[1].mailboxUse, Use::Publish);
  EXPECT_TRUE(parsed.kernels[1].publishes());
  EXPECT_FALSE(parsed.kernels[1].publishesAndConsumes());
  m["kernels"][1]["mailbox_use"] = "poll";
  parsed = parseManifest(m.dump());
  EXPECT_FALSE(parsed.kernels[1].publishes());

  // Written before the field: the op's name says it.
  parsed = parseManifest(validManifest().dump());
  EXPECT_EQ(parsed.kernels[0].mailboxUse, Use::Publish);
  EXPECT_EQ(parsed.kernels[1].mailboxUse, Use::Poll);

  m = validManifest();
  m["kernels"][0]["mailbox_use"] = "rearm";
  EXPECT_EQ(errorOf(m), "m.json: kernels[0].mailbox_use: unknown mailbox use "
                        "'rearm' (expected 'publish', 'poll' or "
                        "'publish_and_poll')");
  // A kernel without a mailbox neither publishes nor polls.
  m = validManifest();
  json &params = m["kernels"][0]["params"];
  params.erase(params.begin());
  parsed = parseManifest(m.dump());
  EXPECT_EQ(parsed.kernels[0].mailboxUse, Use::None);
  m["kernels"][0]["mailbox_use"] = "publish";
  EXPECT_EQ(errorOf(m), "m.json: kernels[0].mailbox_use: is 'publish', but "
                        "the kernel takes no mailbox parameter");
}

TEST(Bundle, MissingDirectoryAndFiles) {
  try {
    loadBundle("/nonexistent/bundle");
    FAIL() << "loaded";
  } catch (const Error &e) {
    EXPECT_EQ(std::string(e.what()),
              "bundle '/nonexistent/bundle': cannot read "
              "/nonexistent/bundle/manifest.json (is it a directory written "
              "by lamport-compile?)");
  }
  try {
    loadBundle(LAMPORT_RUNTIME_TEST_INPUTS "/no_images");
    FAIL() << "loaded";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find(
                  "kernel 'publish_rows_0' has neither its PTX "
                  "(publish_rows_0.ptx) nor its cubin (publish_rows_0.cubin)"),
              std::string::npos)
        << e.what();
  }
}

TEST(Bundle, EndlessFileIsAnErrorNotAHang) {
  // A manifest that never ends is read up to 256 MiB, then refused.
  std::filesystem::path directory =
      std::filesystem::temp_directory_path() /
      ("lamport-endless-" + std::to_string(::getpid()));
  std::filesystem::create_directories(directory);
  std::filesystem::create_symlink("/dev/zero", directory / "manifest.json");
  std::string message;
  try {
    loadBundle(directory.string());
  } catch (const Error &e) {
    message = e.what();
  }
  std::filesystem::remove_all(directory);
  EXPECT_EQ(message, "bundle '" + directory.string() +
                         "': " + directory.string() +
                         "/manifest.json is larger than 256 MiB, the most a "
                         "bundle's file may hold");
}

TEST(Bundle, LoadsImages) {
  Bundle bundle = loadBundle(LAMPORT_RUNTIME_TEST_INPUTS "/publish_poll_tp2");
  ASSERT_EQ(bundle.ptx.size(), 2u);
  EXPECT_NE(bundle.ptx[0].find(".entry publish_rows_0"), std::string::npos);
  EXPECT_TRUE(bundle.cubin[0].empty()); // absent: falls back to the PTX
}

} // namespace

namespace {

TEST(Plan, NamesEveryLaunchAndParameter) {
  std::string plan = describePlan(parseManifest(validManifest().dump()));
  EXPECT_NE(plan.find("mailbox 0 'mb': tp 2, capacity 16, width 1024; 196608 "
                      "bytes per rank, descriptor 56 bytes"),
            std::string::npos)
      << plan;
  EXPECT_NE(plan.find("  2. poll_rows_0 (poll_rows): grid 16x1x1, block "
                      "128x1x1, cluster 1x1x1, shared 0 B\n"),
            std::string::npos)
      << plan;
  EXPECT_NE(plan.find("params: mailbox 'mb' (56 B), buffer 'out' (8 B), "
                      "tokens (4 B)"),
            std::string::npos)
      << plan;
}

} // namespace
