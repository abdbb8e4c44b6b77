//===- BoundaryBenchTest.cpp - lamport-boundary-bench's host logic --------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// Unit tests of what lamport-boundary-bench decides without a GPU: its
// command line, the pairing of the fused boundary with the standalone dual
// norm, the plan, the baseline's host checks, lamport-run's hash and
// percentile rules, and the table. Run by test/bench/boundary-bench-unit.test.
//
//===----------------------------------------------------------------------===//

#include "BoundaryBench.h"

#include "lamport/Check/Inputs.h"
#include "lamport/Check/Reference.h"
#include "lamport/Runtime/Error.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>

using namespace lamport::bench;
using lamport::runtime::concat;
using lamport::runtime::Error;
using lamport::runtime::Manifest;
using lamport::runtime::parseManifest;
using lamport::runtime::UsageError;

namespace {

/// The usage error \p args give, or "" when they parse.
std::string usageError(const std::vector<std::string> &args) {
  try {
    parseBenchOptions(args);
  } catch (const UsageError &e) {
    return e.what();
  }
  return "";
}

/// The error pairing \p fused with \p norm at \p tp gives, or "".
std::string pairError(const Manifest &fused, const Manifest &norm, int tp,
                      bool baselineOnly = false) {
  try {
    pairBundles(fused, norm, tp, baselineOnly);
  } catch (const Error &e) {
    return e.what();
  }
  return "";
}

std::string buffer(int index, const std::string &name, const char *dtype,
                   const std::string &shape, const char *io) {
  return concat(R"({"index": )", index, R"(, "name": ")", name,
                R"(", "kind": "buffer", "dtype": ")", dtype, R"(", "shape": )",
                shape, R"(, "io": ")", io, R"("})");
}

std::string param(int argument, const char *io, const char *role) {
  return concat(R"({"kind": "buffer", "argument": )", argument, R"(, "io": ")",
                io, R"(", "size": 8, "align": 8, "role": ")", role, R"("})");
}

const char *kTokens = R"({"kind": "tokens", "size": 4, "align": 4})";

std::string kernel(const std::string &name, const std::string &op,
                   const std::string &grid, const std::string &cluster,
                   const std::string &attributes,
                   const std::vector<std::string> &params) {
  std::string list;
  for (const std::string &p : params)
    list += concat(list.empty() ? "" : ", ", p);
  return concat(R"({"name": ")", name, R"(", "op": ")", op, R"(", "ptx": ")",
                name, R"(.ptx", "cubin": ")", name, R"(.cubin", "grid": )",
                grid, R"(, "block": [256, 1, 1], "cluster": )", cluster,
                R"(, "shared_bytes": 0, "pdl": true, "attributes": )",
                attributes, R"(, "params": [)", list, "]}");
}

/// The fused attention boundary as lamport-compile writes it: attn [-1, K],
/// o_proj [H, K], partial [-1, H], the mailbox, stream, scalar gates,
/// post_weight (optional), next_weight, out.
Manifest fusedManifest(int tp, int h, int k, bool postWeight = true,
                       const std::string &eps = "9.9999999747524271e-07",
                       bool byM = false) {
  std::string H = std::to_string(h), K = std::to_string(k);
  std::vector<std::string> args = {
      buffer(0, "attn", "bf16", "[-1, " + K + "]", "in"),
      buffer(1, "o_proj", "bf16", "[" + H + ", " + K + "]", "in"),
      buffer(2, "partial", "bf16", "[-1, " + H + "]", "out"),
      R"({"index": 3, "name": "mailbox", "kind": "mailbox", "mailbox": 0})",
      buffer(4, "stream", "f32", "[-1, " + H + "]", "inout"),
      buffer(5, "alpha", "f32", "[1]", "in"),
      buffer(6, "beta", "f32", "[1]", "in"),
      buffer(7, "post_weight", "bf16", "[" + H + "]", "in"),
      buffer(8, "next_weight", "bf16", "[" + H + "]", "in"),
      buffer(9, "out", "bf16", "[-1, " + H + "]", "out")};
  std::string mailbox = concat(R"({"kind": "mailbox", "argument": 3, "size": )",
                               40 + 8 * tp, R"(, "align": 8})");
  std::vector<std::string> consumer = {mailbox, param(4, "inout", "stream"),
                                       param(5, "in", "alpha"),
                                       param(6, "in", "beta")};
  if (postWeight)
    consumer.push_back(param(7, "in", "post_weight"));
  consumer.push_back(param(8, "in", "next_weight"));
  consumer.push_back(param(9, "out", "out"));
  consumer.push_back(kTokens);
  std::string argList;
  for (const std::string &a : args)
    argList += concat(argList.empty() ? "" : ", ", a);
  std::vector<std::string> gemmParams = {mailbox, param(1, "in", "weight"),
                                         param(0, "in", "x"),
                                         param(2, "out", "y"), kTokens};
  // With byM, the GEMM is two alternatives chosen by M (token tiles 8 and
  // 16), as lamport-compile writes the examples.
  std::string gemms =
      byM ? concat(kernel("gemm_publish_0", "gemm_publish", "[512, 1, 1]",
                          "[1, 1, 1]", R"({"token_tile": 8})", gemmParams),
                   ", ",
                   kernel("gemm_publish_1", "gemm_publish", "[512, 1, 1]",
                          "[1, 1, 1]", R"({"token_tile": 16})", gemmParams))
          : kernel("gemm_publish_0", "gemm_publish", "[512, 1, 1]", "[1, 1, 1]",
                   R"({"transport": "unicast"})", gemmParams);
  std::string launches =
      byM ? R"({"kernel": "gemm_publish_0", "tokens": [1, 8]},
               {"kernel": "gemm_publish_1", "tokens": [9, 16]})"
          : R"({"kernel": "gemm_publish_0"})";
  std::string text = concat(
      R"({"format": "lamport-bundle", "version": 1, "chip": "sm_90",
          "transport": "unicast", "program": "attention_boundary",
          "mailboxes": [{"id": 0, "name": "mailbox", "tp": )",
      tp, R"(, "capacity": 16, "width": )", h, R"(}], "arguments": [)", argList,
      R"(], "kernels": [)", gemms, ", ",
      kernel("all_reduce_dual_norm_0", "all_reduce_dual_norm", "[16, 4, 1]",
             "[1, 4, 1]",
             concat(R"({"eps": )", eps, R"(, "sum_order": "rank_ascending"})"),
             consumer),
      R"(], "launches": [)", launches,
      R"(, {"kernel": "all_reduce_dual_norm_0"}]})");
  return parseManifest(text, "fused.json");
}

/// test/gpu/programs/dual_norm_h8192.mlir's bundle, for any H.
Manifest normManifest(int h, bool postWeight = true,
                      const std::string &alphaShape = "[1]",
                      const std::string &eps = "9.9999999747524271e-07") {
  std::string H = std::to_string(h);
  std::string text = concat(
      R"({"format": "lamport-bundle", "version": 1, "chip": "sm_90",
          "transport": "unicast", "program": "dual_norm", "mailboxes": [],
          "arguments": [)",
      buffer(0, "reduced", "bf16", "[-1, " + H + "]", "in"), ", ",
      buffer(1, "stream", "f32", "[-1, " + H + "]", "inout"), ", ",
      buffer(2, "alpha", "f32", alphaShape, "in"), ", ",
      buffer(3, "beta", "f32", "[1]", "in"), ", ",
      buffer(4, "post_weight", "bf16", "[" + H + "]", "in"), ", ",
      buffer(5, "next_weight", "bf16", "[" + H + "]", "in"), ", ",
      buffer(6, "out", "bf16", "[-1, " + H + "]", "out"), R"(], "kernels": [)",
      kernel("dual_norm_0", "dual_norm", "[16, 4, 1]", "[1, 4, 1]",
             concat(R"({"eps": )", eps, "}"),
             postWeight
                 ? std::vector<std::string>{param(0, "in", "reduced"),
                                            param(1, "inout", "stream"),
                                            param(2, "in", "alpha"),
                                            param(3, "in", "beta"),
                                            param(4, "in", "post_weight"),
                                            param(5, "in", "next_weight"),
                                            param(6, "out", "out"), kTokens}
                 : std::vector<std::string>{param(0, "in", "reduced"),
                                            param(1, "inout", "stream"),
                                            param(2, "in", "alpha"),
                                            param(3, "in", "beta"),
                                            param(5, "in", "next_weight"),
                                            param(6, "out", "out"), kTokens}),
      R"(], "launches": [{"kernel": "dual_norm_0"}]})");
  return parseManifest(text, "norm.json");
}

/// The boundary alone from a partial in memory, as lamport-compile writes
/// docs/examples/reduce_norm_boundary_tpN.mlir: partial [-1, H], the mailbox,
/// stream, scalar gates, post_weight, next_weight, out. By default one
/// all_reduce_dual_norm that publishes its partial first (without
/// \p publishing, a consumer alone); with \p firstOp, that op (given the
/// partial as `rows`) then the consumer.
Manifest boundaryManifest(int tp, int h, int capacity = 16,
                          const std::string &eps = "9.9999999747524271e-07",
                          const std::string &firstOp = "",
                          bool publishing = true) {
  std::string H = std::to_string(h);
  std::string mailbox = concat(R"({"kind": "mailbox", "argument": 1, "size": )",
                               40 + 8 * tp, R"(, "align": 8})");
  std::vector<std::string> consumer = {mailbox,
                                       param(2, "inout", "stream"),
                                       param(3, "in", "alpha"),
                                       param(4, "in", "beta"),
                                       param(5, "in", "post_weight"),
                                       param(6, "in", "next_weight"),
                                       param(7, "out", "out")};
  if (firstOp.empty() && publishing)
    consumer.push_back(param(0, "in", "partial"));
  consumer.push_back(kTokens);
  std::string kernels, launches;
  if (!firstOp.empty()) {
    kernels = concat(kernel(firstOp + "_0", firstOp, "[128, 1, 1]", "[1, 1, 1]",
                            R"({"transport": "unicast"})",
                            {mailbox, param(0, "in", "rows"), kTokens}),
                     ", ");
    launches = concat(R"({"kernel": ")", firstOp, R"(_0"}, )");
  }
  kernels +=
      kernel("all_reduce_dual_norm_0", "all_reduce_dual_norm", "[16, 4, 1]",
             "[1, 4, 1]",
             concat(R"({"eps": )", eps, R"(, "sum_order": "rank_ascending"})"),
             consumer);
  launches += R"({"kernel": "all_reduce_dual_norm_0"})";
  std::string text = concat(
      R"({"format": "lamport-bundle", "version": 1, "chip": "sm_90",
          "transport": "unicast", "program": "reduce_norm_boundary",
          "mailboxes": [{"id": 0, "name": "mailbox", "tp": )",
      tp, R"(, "capacity": )", capacity, R"(, "width": )", h,
      R"(}], "arguments": [)",
      buffer(0, "partial", "bf16", "[-1, " + H + "]", "in"), ", ",
      R"({"index": 1, "name": "mailbox", "kind": "mailbox", "mailbox": 0}, )",
      buffer(2, "stream", "f32", "[-1, " + H + "]", "inout"), ", ",
      buffer(3, "alpha", "f32", "[1]", "in"), ", ",
      buffer(4, "beta", "f32", "[1]", "in"), ", ",
      buffer(5, "post_weight", "bf16", "[" + H + "]", "in"), ", ",
      buffer(6, "next_weight", "bf16", "[" + H + "]", "in"), ", ",
      buffer(7, "out", "bf16", "[-1, " + H + "]", "out"), R"(], "kernels": [)",
      kernels, R"(], "launches": [)", launches, "]}");
  return parseManifest(text, "boundary.json");
}

/// The error checkBoundaryBundle gives, or "".
std::string boundaryError(const Manifest &boundary, const BoundaryPair &pair) {
  try {
    checkBoundaryBundle(boundary, pair);
  } catch (const Error &e) {
    return e.what();
  }
  return "";
}

} // namespace

TEST(BoundaryBenchOptions, Defaults) {
  BenchOptions o = parseBenchOptions({"fused", "norm", "--tp", "8"});
  EXPECT_EQ(o.fusedBundle, "fused");
  EXPECT_EQ(o.normBundle, "norm");
  EXPECT_EQ(o.tp, 8);
  EXPECT_EQ(o.tokens, (std::vector<int>{1, 4, 16}));
  EXPECT_EQ(o.steps, 4000u);
  EXPECT_EQ(o.batch, 32);
  EXPECT_EQ(o.modes, std::vector<TimingMode>{TimingMode::Pipelined});
  EXPECT_FALSE(o.baselineOnly);
  EXPECT_FALSE(o.noPdl);
  EXPECT_FALSE(o.plan);
}

TEST(BoundaryBenchOptions, EveryOption) {
  BenchOptions o = parseBenchOptions(
      {"--tp",    "2",           "f",       "n",      "--tokens", "16,2",
       "--steps", "96",          "--batch", "16",     "--seed",   "7",
       "--modes", "eager,graph", "--json",  "r.json", "--no-pdl", "--watchdog",
       "30",      "--boundary",  "b"});
  EXPECT_EQ(o.tp, 2);
  EXPECT_EQ(o.tokens, (std::vector<int>{16, 2}));
  EXPECT_EQ(o.steps, 96u);
  EXPECT_EQ(o.batch, 16);
  EXPECT_EQ(o.seed, 7u);
  EXPECT_EQ(o.modes,
            (std::vector<TimingMode>{TimingMode::Eager, TimingMode::Graph}));
  EXPECT_EQ(o.jsonPath, "r.json");
  EXPECT_TRUE(o.noPdl);
  EXPECT_EQ(o.boundaryBundle, "b");
  EXPECT_EQ(o.watchdogSeconds, 30.0);
}

TEST(BoundaryBenchOptions, HelpAndPlan) {
  EXPECT_TRUE(parseBenchOptions({"--help"}).help);
  EXPECT_TRUE(parseBenchOptions({"-h", "--bogus"}).help);
  BenchOptions plan = parseBenchOptions({"f", "n", "--plan"});
  EXPECT_TRUE(plan.plan);
  EXPECT_EQ(plan.tp, 0); // the fused bundle's, later
}

TEST(BoundaryBenchOptions, UsageErrors) {
  EXPECT_NE(usageError({}).find("missing FUSED_BUNDLE and DUAL_NORM_BUNDLE"),
            std::string::npos);
  EXPECT_NE(usageError({"f", "--tp", "2"}).find("missing DUAL_NORM_BUNDLE"),
            std::string::npos);
  EXPECT_EQ(usageError({"f", "n"}), "missing --tp N (the ranks, one GPU each)");
  EXPECT_EQ(usageError({"f", "n", "x", "--tp", "2"}),
            "unexpected argument 'x' (the bundles are 'f' and 'n')");
  EXPECT_EQ(usageError({"f", "n", "--tp", "0"}),
            "--tp must be in [1, 64], got 0");
  EXPECT_EQ(usageError({"f", "n", "--tp", "2", "--fast"}),
            "unknown option '--fast'");
  EXPECT_EQ(usageError({"f", "n", "--tp"}), "--tp expects a value");
  EXPECT_EQ(usageError({"f", "n", "--tp", "2", "--tokens", "1,,4"}),
            "--tokens expects a comma-separated list of token counts, got "
            "'1,,4'");
  EXPECT_EQ(usageError({"f", "n", "--tp", "2", "--tokens", "17"}),
            "--tokens must be in [1, 16], got 17");
  EXPECT_EQ(usageError({"f", "n", "--tp", "2", "--tokens", "4,4"}),
            "--tokens lists 4 twice");
  EXPECT_EQ(
      usageError({"f", "n", "--tp", "2", "--modes", "replay"}),
      "unknown mode 'replay' in --modes 'replay' (expected pipelined, graph "
      "or eager)");
  EXPECT_EQ(usageError({"f", "n", "--tp", "2", "--modes", "graph,graph"}),
            "--modes lists graph twice");
  EXPECT_EQ(usageError({"f", "n", "--tp", "2", "--batch", "3"}),
            "--batch must be in [4, 1024], got 3");
  EXPECT_EQ(
      usageError({"f", "n", "--tp", "2", "--batch", "8", "--steps", "23"}),
      "--steps 23 is less than 3 x --batch (24): a checked batch, a "
      "checked replay and at least one timed batch");
  EXPECT_EQ(
      usageError({"f", "n", "--tp", "2", "--batch", "8", "--steps", "24"}), "");
  EXPECT_EQ(usageError({"f", "n", "--tp", "2", "--json", ""}),
            "--json expects a file name");
  EXPECT_EQ(usageError({"f", "n", "--tp", "2", "--boundary"}),
            "--boundary expects a value");
  EXPECT_EQ(usageError({"f", "n", "--tp", "2", "--boundary", ""}),
            "--boundary expects a bundle directory");
  EXPECT_EQ(
      usageError({"f", "n", "--tp", "2", "--boundary", "b", "--baseline-only"}),
      "--boundary times ours, which --baseline-only skips");
  EXPECT_TRUE(parseBenchOptions({"f", "n", "--tp", "2", "--baseline-only"})
                  .baselineOnly);
}

TEST(BoundaryBenchPair, BindsRolesAndShapes) {
  BoundaryPair pair =
      pairBundles(fusedManifest(8, 8192, 1024), normManifest(8192), 8, false);
  EXPECT_EQ(pair.h, 8192);
  EXPECT_EQ(pair.k, 1024);
  EXPECT_EQ(pair.mailboxTp, 8);
  EXPECT_EQ(pair.capacity, 16);
  EXPECT_TRUE(pair.postWeight);
  EXPECT_EQ(pair.gemmKernels, std::vector<int>{0});
  EXPECT_EQ(pair.consumerKernel, 1);
  EXPECT_EQ(pair.normKernel, 0);
  EXPECT_EQ(pair.fused("x"), 0);
  EXPECT_EQ(pair.fused("weight"), 1);
  EXPECT_EQ(pair.fused("y"), 2);
  EXPECT_EQ(pair.fused("stream"), 4);
  EXPECT_EQ(pair.fused("out"), 9);
  EXPECT_EQ(pair.fused("reduced"), -1);
  EXPECT_EQ(pair.norm("reduced"), 0);
  EXPECT_EQ(pair.norm("out"), 6);
  EXPECT_FLOAT_EQ(float(pair.eps), 1e-6f);
}

TEST(BoundaryBenchPair, Refusals) {
  Manifest fused = fusedManifest(8, 8192, 1024), norm = normManifest(8192);
  EXPECT_NE(pairError(norm, fused, 8)
                .find("the bundles are in the wrong "
                      "order"),
            std::string::npos);
  EXPECT_NE(pairError(fused, fused, 8)
                .find("must be a standalone dual norm, "
                      "a step of one dual_norm; its "
                      "step launches gemm_publish, "
                      "all_reduce_dual_norm"),
            std::string::npos);
  EXPECT_NE(pairError(norm, norm, 8)
                .find("the first bundle (program "
                      "'dual_norm') must be a fused "
                      "attention boundary"),
            std::string::npos);
  EXPECT_EQ(pairError(fused, norm, 2),
            "--tp 2 does not match mailbox 'mailbox' of the fused bundle (tp "
            "= 8); --baseline-only runs the NCCL baseline alone at any tp");
  EXPECT_EQ(pairError(fused, normManifest(4096), 8),
            "the dual_norm bundle normalizes rows of H = 4096, but the fused "
            "boundary's are H = 8192 (its mailbox width)");
  EXPECT_EQ(pairError(fused, normManifest(8192, false), 8),
            "role 'post_weight' is bound in the fused bundle only; both must "
            "have the same dual norm");
  EXPECT_EQ(pairError(fusedManifest(8, 8192, 1024, false), norm, 8),
            "role 'post_weight' is bound in the dual_norm bundle only; both "
            "must have the same dual norm");
  EXPECT_EQ(pairError(fused, normManifest(8192, true, "[8192]"), 8),
            "role 'alpha' is [1] f32 in the fused bundle (argument 'alpha') "
            "but [8192] f32 in the dual_norm bundle (argument 'alpha')");
  EXPECT_NE(pairError(fused, normManifest(8192, true, "[1]", "1e-05"), 8)
                .find("eps differs"),
            std::string::npos);
}

TEST(BoundaryBenchPair, BoundaryAlone) {
  BoundaryPair pair =
      pairBundles(fusedManifest(8, 8192, 1024), normManifest(8192), 8, false);
  const std::string defaultEps = "9.9999999747524271e-07";
  // One kernel, or publish_rows then the consumer.
  EXPECT_EQ(boundaryError(boundaryManifest(8, 8192), pair), "");
  EXPECT_EQ(
      boundaryError(boundaryManifest(8, 8192, 16, defaultEps, "publish_rows"),
                    pair),
      "");
  EXPECT_EQ(boundaryError(boundaryManifest(4, 8192), pair),
            "the --boundary bundle's mailbox 'mailbox' is tp = 4, width 8192; "
            "the fused bundle's is tp = 8, width 8192: both must be the same "
            "boundary");
  EXPECT_EQ(boundaryError(boundaryManifest(8, 4096), pair),
            "the --boundary bundle's mailbox 'mailbox' is tp = 8, width 4096; "
            "the fused bundle's is tp = 8, width 8192: both must be the same "
            "boundary");
  EXPECT_EQ(boundaryError(boundaryManifest(8, 8192, 8), pair),
            "the --boundary bundle's mailbox 'mailbox' holds 8 tokens, fewer "
            "than the fused bundle's 16");
  EXPECT_EQ(boundaryError(boundaryManifest(8, 8192, 16, "1e-05"), pair),
            "eps differs: 1e-05 in the --boundary bundle, 1e-06 in the fused "
            "bundle");
  // A consumer alone publishes nothing: no boundary.
  EXPECT_NE(
      boundaryError(boundaryManifest(8, 8192, 16, defaultEps, "", false), pair)
          .find("must be the boundary alone: a step of all_reduce_dual_norm "
                "publishing its partial"),
      std::string::npos);
  EXPECT_EQ(boundaryError(fusedManifest(8, 8192, 1024), pair),
            "the --boundary bundle (program 'attention_boundary') must be the "
            "boundary alone: a step of all_reduce_dual_norm publishing its "
            "partial, or of publish_rows then all_reduce_dual_norm; its step "
            "launches gemm_publish, all_reduce_dual_norm");
}

TEST(BoundaryBenchPair, GemmChosenByM) {
  // The alternatives of the GEMM are one op to the step; the plan lists
  // each with its range of M.
  Manifest fused = fusedManifest(8, 8192, 1024, true, "9.9999999747524271e-07",
                                 /*byM=*/true);
  Manifest norm = normManifest(8192);
  BoundaryPair pair = pairBundles(fused, norm, 8, false);
  EXPECT_EQ(pair.gemmKernels, (std::vector<int>{0, 1}));
  EXPECT_EQ(pair.consumerKernel, 2);
  EXPECT_EQ(pair.k, 1024);
  EXPECT_EQ(pair.fused("x"), 0);
  EXPECT_EQ(pair.fused("out"), 9);
  std::string plan = describeBenchPlan(fused, norm, pair,
                                       parseBenchOptions({"f", "n", "--plan"}));
  EXPECT_NE(plan.find("      gemm_publish_0 (gemm_publish) for M in 1..8: "
                      "grid 512x1x1"),
            std::string::npos)
      << plan;
  EXPECT_NE(plan.find("      gemm_publish_1 (gemm_publish) for M in 9..16: "
                      "grid 512x1x1"),
            std::string::npos);
  EXPECT_NE(plan.find("      all_reduce_dual_norm_0 (all_reduce_dual_norm): "
                      "grid 16x4x1"),
            std::string::npos);
  // A dual norm chosen by M is refused: the baseline launches one kernel.
  std::string text = R"({"format": "lamport-bundle", "version": 1,
      "chip": "sm_90", "transport": "unicast", "program": "dual_norm",
      "mailboxes": [], "arguments": [)";
  text += concat(buffer(0, "reduced", "bf16", "[-1, 8192]", "in"), ", ",
                 buffer(1, "stream", "f32", "[-1, 8192]", "inout"), ", ",
                 buffer(2, "alpha", "f32", "[1]", "in"), ", ",
                 buffer(3, "beta", "f32", "[1]", "in"), ", ",
                 buffer(4, "next_weight", "bf16", "[8192]", "in"), ", ",
                 buffer(5, "out", "bf16", "[-1, 8192]", "out"));
  std::vector<std::string> params = {param(0, "in", "reduced"),
                                     param(1, "inout", "stream"),
                                     param(2, "in", "alpha"),
                                     param(3, "in", "beta"),
                                     param(4, "in", "next_weight"),
                                     param(5, "out", "out"),
                                     kTokens};
  text += concat(R"(], "kernels": [)",
                 kernel("dual_norm_0", "dual_norm", "[16, 4, 1]", "[1, 4, 1]",
                        "{}", params),
                 ", ",
                 kernel("dual_norm_1", "dual_norm", "[16, 4, 1]", "[1, 4, 1]",
                        "{}", params),
                 R"(], "launches": [{"kernel": "dual_norm_0", "tokens": [1, 4]},
                         {"kernel": "dual_norm_1", "tokens": [5, 16]}]})");
  EXPECT_EQ(pairError(fusedManifest(8, 8192, 1024, false),
                      parseManifest(text, "norm.json"), 8),
            "the dual_norm bundle (program 'dual_norm') chooses among 2 "
            "kernels by M; the baseline launches one dual-norm kernel for "
            "every M");
}

TEST(BoundaryBenchPair, BaselineOnlyAtAnyTp) {
  Manifest fused = fusedManifest(2, 8192, 4096), norm = normManifest(8192);
  for (int tp : {1, 2, 4, 8}) {
    BoundaryPair pair = pairBundles(fused, norm, tp, true);
    EXPECT_EQ(pair.k, 4096);
    EXPECT_EQ(pair.mailboxTp, 2);
  }
}

TEST(BoundaryBenchPair, AllocationsAreLamportRuns) {
  Manifest fused = fusedManifest(8, 8192, 1024);
  std::vector<std::size_t> bytes = allocationBytes(fused);
  EXPECT_EQ(bytes[0], 16u * 1024 * 2);   // attn: 16 tokens
  EXPECT_EQ(bytes[1], 8192u * 1024 * 2); // o_proj
  EXPECT_EQ(bytes[3], 0u);               // the mailbox
  EXPECT_EQ(bytes[4], 16u * 8192 * 4);   // stream
  EXPECT_EQ(bytes[5], 16u);              // a scalar gate, rounded up to 16
  EXPECT_EQ(allocationBytes(normManifest(8192))[0], 16u * 8192 * 2);
}

TEST(BoundaryBenchPair, Plan) {
  Manifest fused = fusedManifest(8, 8192, 1024), norm = normManifest(8192);
  BenchOptions options = parseBenchOptions({"f", "n", "--plan"});
  BoundaryPair pair = pairBundles(fused, norm, 0, false);
  std::string plan = describeBenchPlan(fused, norm, pair, options);
  EXPECT_NE(plan.find("tp 8 (devices 0..7), H 8192, K 1024, tokens 1,4,16"),
            std::string::npos);
  EXPECT_NE(plan.find("(1) ours: program 'attention_boundary' over the peer "
                      "transport"),
            std::string::npos);
  EXPECT_NE(plan.find("(4) cublasGemmEx partial [M, 8192] = x [M, 1024] @ "
                      "weight [8192, 1024]^T"),
            std::string::npos);
  EXPECT_NE(plan.find("x gemm-x [-1, 1024], weight gemm-weight [8192, "
                      "1024], stream stream [-1, 8192], alpha gate [1],"),
            std::string::npos);
  EXPECT_NE(plan.find("all-reduce of 16.0 KiB at M = 1, 64.0 KiB at M = 4, "
                      "256.0 KiB at M = 16"),
            std::string::npos);
  options.baselineOnly = true;
  options.tp = 1;
  plan = describeBenchPlan(fused, norm, pair, options);
  EXPECT_NE(plan.find("(1) ours: skipped (--baseline-only)"),
            std::string::npos);
  EXPECT_EQ(plan.find("ours as lamport-run"), std::string::npos);
  EXPECT_EQ(plan.find("equal to ours"), std::string::npos);
}

TEST(BoundaryBenchChecks, Fnv1aIsLamportRuns) {
  EXPECT_EQ(fnv1a("", 0), 0xCBF29CE484222325ull);
  EXPECT_EQ(fnv1a("a", 1), 0xAF63DC4C8601EC8Cull);
  EXPECT_EQ(fnv1a("foobar", 6), 0x85944171F73967E8ull);
}

TEST(BoundaryBenchChecks, CompareBf16) {
  const uint16_t want[] = {0x0000, 0x3F80, 0x8000, 0x4000};
  const uint16_t zeros[] = {0x8000, 0x3F80, 0x0000, 0x4000};
  EXPECT_EQ(compareBf16(zeros, want, 4, true).count, 0u);
  Mismatch strict = compareBf16(zeros, want, 4, false);
  EXPECT_EQ(strict.count, 2u);
  EXPECT_EQ(strict.first, 0u);
  const uint16_t off[] = {0x0000, 0x3F80, 0x8000, 0x4040};
  Mismatch one = compareBf16(off, want, 4, true);
  EXPECT_EQ(one.count, 1u);
  EXPECT_EQ(one.first, 3u);
}

TEST(BoundaryBenchChecks, IntegerAllReduce) {
  using lamport::check::floatToBf16;
  // Integer partials: the sum is exact in any order, -0.0 sums to +0.0.
  std::vector<uint16_t> a = {floatToBf16(16), floatToBf16(-3), 0x8000,
                             floatToBf16(2)};
  std::vector<uint16_t> b = {floatToBf16(16), floatToBf16(1), 0x8000,
                             floatToBf16(-2)};
  std::vector<uint16_t> sum = integerAllReduce({a.data(), b.data()}, 4);
  EXPECT_EQ(sum[0], floatToBf16(32));
  EXPECT_EQ(sum[1], floatToBf16(-2));
  EXPECT_EQ(sum[2], 0x0000); // 0.0f + -0.0 + -0.0 = +0.0
  EXPECT_EQ(sum[3], 0x0000);
}

TEST(BoundaryBenchChecks, NormWithinBound) {
  lamport::check::NormExpectation e;
  e.rows = 1;
  e.rowLength = 3;
  e.reference = {1.0, -2.0, 0.5};
  e.bound = {0.01, 0.01, 0.01};
  float good[] = {1.005f, -2.0f, 0.5f};
  NormCheck pass = checkNorm(good, lamport::runtime::DType::F32, e);
  EXPECT_EQ(pass.violations, 0u);
  EXPECT_NEAR(pass.worst, 0.5, 1e-3);
  float bad[] = {1.0f, -2.03f, NAN};
  NormCheck fail = checkNorm(bad, lamport::runtime::DType::F32, e);
  EXPECT_EQ(fail.violations, 2u);
  EXPECT_EQ(fail.first, 2u); // the NaN: an infinite ratio
  uint16_t bf16[] = {lamport::check::floatToBf16(1.0f),
                     lamport::check::floatToBf16(-2.0f),
                     lamport::check::floatToBf16(0.5f)};
  EXPECT_EQ(checkNorm(bf16, lamport::runtime::DType::BF16, e).violations, 0u);
}

TEST(BoundaryBenchLatency, LamportRunsPercentiles) {
  std::vector<double> samples;
  for (int i = 100; i >= 1; --i)
    samples.push_back(i);
  Latency l = summarize(samples);
  EXPECT_EQ(l.samples, 100u);
  EXPECT_EQ(l.median, 50);
  EXPECT_EQ(l.p99, 99);
  EXPECT_EQ(l.min, 1);
  EXPECT_DOUBLE_EQ(l.mean, 50.5);
  Latency one = summarize({7});
  EXPECT_EQ(one.median, 7);
  EXPECT_EQ(one.p99, 7);
  EXPECT_EQ(summarize({}).samples, 0u);
}

TEST(BoundaryBenchLatency, Table) {
  TableRow row;
  row.tp = 8;
  row.m = 4;
  row.ours = Latency{10, 12, 9, 10, 100};
  row.allReduce = Latency{25, 30, 20, 25, 100};
  row.allReduceNorm = Latency{30, 35, 28, 30, 100};
  row.baseline = Latency{40, 45, 38, 40, 100};
  row.boundary = Latency{5, 6, 4, 5, 100};
  row.check = "PASS";
  TableRow baselineOnly = row;
  baselineOnly.ours.reset();
  baselineOnly.boundary.reset();
  baselineOnly.mode = TimingMode::Eager;
  std::string table = formatTable({row, baselineOnly});
  // AR / boundary is the target's ratio; baseline / fused the other.
  EXPECT_NE(table.find("  8   4 graph         10.00/12.00       5.00/6.00     "
                       "25.00/30.00     30.00/35.00     40.00/45.00    5.00x  "
                       "    4.00x  PASS"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("  8   4 eager                   -               -     "
                       "25.00/30.00"),
            std::string::npos)
      << table;
  EXPECT_EQ(table.find(" \n"), std::string::npos) << table;
  EXPECT_EQ(*medianRatio(row.allReduce, row.ours), 2.5);
  EXPECT_FALSE(medianRatio(row.allReduce, std::nullopt));
}
