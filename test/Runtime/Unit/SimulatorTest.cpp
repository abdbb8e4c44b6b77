//===- SimulatorTest.cpp - Roles, the program plan and the step model -----===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#include "lamport/Check/Simulator.h"
#include "lamport/Runtime/Error.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>

using namespace lamport::runtime;
using namespace lamport::check;
using nlohmann::json;

namespace {

/// A manifest written by hand: one mailbox, buffers, kernels launched in
/// the order they are added.
struct Builder {
  json m;
  int tp;

  Builder(int tp, int capacity, int width) : tp(tp) {
    m = {{"format", "lamport-bundle"},
         {"version", 1},
         {"chip", "sm_90"},
         {"transport", "unicast"},
         {"program", "test"},
         {"mailboxes", json::array({{{"id", 0},
                                     {"name", "mb"},
                                     {"tp", tp},
                                     {"capacity", capacity},
                                     {"width", width}}})},
         {"arguments", json::array()},
         {"kernels", json::array()},
         {"launches", json::array()}};
  }

  int buffer(const std::string &name, const std::string &dtype,
             std::vector<int64_t> shape, const std::string &io) {
    int index = int(m["arguments"].size());
    m["arguments"].push_back({{"index", index},
                              {"name", name},
                              {"kind", "buffer"},
                              {"dtype", dtype},
                              {"shape", shape},
                              {"io", io}});
    return index;
  }

  int mailbox() {
    int index = int(m["arguments"].size());
    m["arguments"].push_back({{"index", index},
                              {"name", "mb"},
                              {"kind", "mailbox"},
                              {"mailbox", 0}});
    return index;
  }

  /// The param `io` lamport-compile writes for \p role (from the op's
  /// buffer roles): what the kernel does to that buffer.
  static const char *ioOf(const std::string &role) {
    if (role == "out" || role == "y")
      return "out";
    return role == "stream" ? "inout" : "in";
  }

  /// \p params: (argument or -1 for tokens, role or "" ; "mailbox" marks
  /// the mailbox).
  void kernel(const std::string &op,
              const std::vector<std::pair<int, std::string>> &params,
              json attributes = json::object()) {
    std::string name = op + "_" + std::to_string(m["kernels"].size());
    json list = json::array();
    for (const auto &[argument, role] : params) {
      if (argument < 0)
        list.push_back({{"kind", "tokens"}, {"size", 4}, {"align", 4}});
      else if (role == "mailbox")
        list.push_back({{"kind", "mailbox"},
                        {"argument", argument},
                        {"size", 40 + 8 * tp},
                        {"align", 8}});
      else if (role.empty())
        list.push_back({{"kind", "buffer"},
                        {"argument", argument},
                        {"size", 8},
                        {"align", 8}});
      else
        list.push_back({{"kind", "buffer"},
                        {"argument", argument},
                        {"io", ioOf(role)},
                        {"size", 8},
                        {"align", 8},
                        {"role", role}});
    }
    m["kernels"].push_back({{"name", name},
                            {"op", op},
                            {"ptx", name + ".ptx"},
                            {"cubin", name + ".cubin"},
                            {"grid", {16, 1, 1}},
                            {"block", {128, 1, 1}},
                            {"cluster", {1, 1, 1}},
                            {"shared_bytes", 0},
                            {"pdl", true},
                            {"attributes", attributes},
                            {"params", list}});
    m["launches"].push_back({{"kernel", name}});
  }

  Manifest parse() const { return parseManifest(m.dump(), "test.json"); }
};

/// The allocation sizes lamport-run uses: the most tokens, 16-byte multiples.
SimulationConfig configFor(const Manifest &m, int tp, uint64_t seed = 3) {
  SimulationConfig config;
  config.tp = tp;
  config.seed = seed;
  for (const ArgumentSpec &arg : m.arguments)
    config.allocationBytes.push_back(arg.kind == ArgumentKind::Buffer
                                         ? (arg.bytes(m.maxTokens()) + 15) /
                                               16 * 16
                                         : 0);
  return config;
}

uint16_t bf16At(const std::vector<uint8_t> &bytes, std::size_t i) {
  uint16_t v;
  std::memcpy(&v, bytes.data() + 2 * i, 2);
  return v;
}

float f32At(const std::vector<uint8_t> &bytes, std::size_t i) {
  float v;
  std::memcpy(&v, bytes.data() + 4 * i, 4);
  return v;
}

/// The message ProgramPlan throws for \p m, or "".
std::string planError(const Manifest &m, int tp, bool strict = true) {
  try {
    ProgramPlan plan(m, tp, strict);
  } catch (const Error &e) {
    return e.what();
  }
  return "";
}

const int H = 256, K = 64;

/// The fused attention boundary: gemm_publish into the mailbox, then
/// all_reduce_dual_norm; per-channel gates when \p channel.
Builder fusedAttention(int tp, bool channel = false, bool post = true) {
  Builder b(tp, 16, H);
  int attn = b.buffer("attn", "bf16", {-1, K}, "in");
  int proj = b.buffer("o_proj", "bf16", {H, K}, "in");
  int partial = b.buffer("partial", "bf16", {-1, H}, "out");
  int mb = b.mailbox();
  int stream = b.buffer("stream", "f32", {-1, H}, "inout");
  int alpha = b.buffer("alpha", "f32", {channel ? H : 1}, "in");
  int beta = b.buffer("beta", "f32", {channel ? H : 1}, "in");
  int pw = post ? b.buffer("post_weight", "bf16", {H}, "in") : -1;
  int nw = b.buffer("next_weight", "bf16", {H}, "in");
  int out = b.buffer("out", "bf16", {-1, H}, "out");
  b.kernel("gemm_publish", {{mb, "mailbox"},
                            {proj, "weight"},
                            {attn, "x"},
                            {partial, "y"},
                            {-1, ""}});
  std::vector<std::pair<int, std::string>> norm = {
      {mb, "mailbox"}, {stream, "stream"}, {alpha, "alpha"}, {beta, "beta"}};
  if (post)
    norm.push_back({pw, "post_weight"});
  norm.insert(norm.end(), {{nw, "next_weight"}, {out, "out"}, {-1, ""}});
  b.kernel("all_reduce_dual_norm", norm,
           {{"eps", 1e-6}, {"sum_order", "rank_ascending"}});
  return b;
}

/// The unfused attention boundary, the same role names.
Builder unfusedAttention(int tp) {
  Builder b(tp, 16, H);
  int attn = b.buffer("attn", "bf16", {-1, K}, "in");
  int proj = b.buffer("o_proj", "bf16", {H, K}, "in");
  int partial = b.buffer("partial", "bf16", {-1, H}, "inout");
  int mb = b.mailbox();
  int reduced = b.buffer("reduced", "bf16", {-1, H}, "inout");
  int stream = b.buffer("stream", "f32", {-1, H}, "inout");
  int alpha = b.buffer("alpha", "f32", {1}, "in");
  int beta = b.buffer("beta", "f32", {1}, "in");
  int pw = b.buffer("post_weight", "bf16", {H}, "in");
  int nw = b.buffer("next_weight", "bf16", {H}, "in");
  int out = b.buffer("out", "bf16", {-1, H}, "out");
  b.kernel("gemm_publish",
           {{proj, "weight"}, {attn, "x"}, {partial, "y"}, {-1, ""}});
  b.kernel("publish_rows", {{mb, "mailbox"}, {partial, "rows"}, {-1, ""}});
  b.kernel("all_reduce", {{mb, "mailbox"}, {reduced, "out"}, {-1, ""}});
  b.kernel("dual_norm",
           {{reduced, "reduced"},
            {stream, "stream"},
            {alpha, "alpha"},
            {beta, "beta"},
            {pw, "post_weight"},
            {nw, "next_weight"},
            {out, "out"},
            {-1, ""}},
           {{"eps", 1e-6}});
  return b;
}

/// y of \p rank computed densely from the generated x and weight.
std::vector<double> denseGemm(const InputSpec &x, const InputSpec &w,
                              uint64_t seed, uint32_t set, int rank, int m,
                              int n, int k) {
  std::vector<uint8_t> xv = inputBytes(x, seed, set, rank, 16 * k * 2);
  std::vector<uint8_t> wv = inputBytes(w, seed, set, rank, n * k * 2);
  std::vector<double> y(m * n);
  for (int row = 0; row < m; ++row)
    for (int col = 0; col < n; ++col) {
      double sum = 0;
      for (int c = 0; c < k; ++c)
        sum += double(bf16ToFloat(bf16At(xv, row * k + c))) *
               bf16ToFloat(bf16At(wv, col * k + c));
      y[row * n + col] = sum;
    }
  return y;
}

TEST(Plan, RolesInputsAndChecksOfTheFusedBoundary) {
  Manifest m = fusedAttention(2).parse();
  ProgramPlan plan(m, 2, true);
  ASSERT_EQ(plan.launches.size(), 2u);
  EXPECT_TRUE(plan.complete);
  const PlannedLaunch &gemm = plan.launches[0];
  EXPECT_EQ(gemm.n, H);
  EXPECT_EQ(gemm.k, K);
  EXPECT_EQ(gemm.argument("weight"), 1);
  EXPECT_EQ(gemm.argument("x"), 0);
  EXPECT_EQ(gemm.argument("ticket"), -1);
  EXPECT_EQ(plan.launches[1].width, H);
  EXPECT_EQ(plan.launches[1].eps, 1e-6);
  auto arg = [&](int i) { return plan.arguments[i]; };
  EXPECT_EQ(arg(0).spec.kind, InputKind::GemmX);
  EXPECT_EQ(arg(0).spec.rowLength, K);
  EXPECT_EQ(arg(0).spec.role, "x");
  EXPECT_EQ(arg(1).spec.kind, InputKind::GemmWeight);
  EXPECT_FALSE(arg(2).input);
  EXPECT_EQ(arg(2).check, OutputCheck::Exact);
  EXPECT_TRUE(arg(2).poison);
  EXPECT_EQ(arg(4).spec.kind, InputKind::Stream);
  EXPECT_EQ(arg(4).check, OutputCheck::Norm);
  EXPECT_TRUE(arg(4).restore);
  EXPECT_FALSE(arg(4).poison);
  EXPECT_EQ(arg(5).spec.kind, InputKind::Gate);
  EXPECT_EQ(arg(5).spec.role, "alpha");
  EXPECT_EQ(arg(6).spec.role, "beta");
  EXPECT_EQ(arg(7).spec.kind, InputKind::NormWeight);
  EXPECT_EQ(arg(9).check, OutputCheck::Norm);
  EXPECT_TRUE(arg(9).poison);
  EXPECT_EQ(arg(9).writer, "kernel 'all_reduce_dual_norm_1' "
                           "(all_reduce_dual_norm)");
  std::string checks = describeChecks(m);
  EXPECT_NE(checks.find("'stream': input stream (salted by role 'stream'), "
                        "the same on every rank; output of kernel "
                        "'all_reduce_dual_norm_1' (all_reduce_dual_norm), "
                        "checked within the bound, then bit for bit, "
                        "restored before each step"),
            std::string::npos)
      << checks;
}

TEST(Plan, RowsAreIntegersOnlyWhenSummed) {
  for (const char *consumer : {"poll_rows", "all_reduce", "all_gather"}) {
    Builder b(2, 16, 64);
    int rows = b.buffer("rows", "bf16", {-1, 64}, "in");
    int mb = b.mailbox();
    std::vector<int64_t> shape =
        std::string(consumer) == "poll_rows" ? std::vector<int64_t>{2, -1, 64}
        : std::string(consumer) == "all_gather" ? std::vector<int64_t>{-1, 128}
                                                : std::vector<int64_t>{-1, 64};
    int out = b.buffer("out", "bf16", shape, "out");
    // No roles: manifests written before them name one buffer per op.
    b.kernel("publish_rows", {{mb, "mailbox"}, {rows, ""}, {-1, ""}});
    b.kernel(consumer, {{mb, "mailbox"}, {out, ""}, {-1, ""}});
    ProgramPlan plan(b.parse(), 2, true);
    EXPECT_EQ(plan.arguments[rows].spec.kind,
              std::string(consumer) == "all_reduce" ? InputKind::Integers
                                                    : InputKind::Bits)
        << consumer;
    EXPECT_EQ(plan.arguments[out].check, OutputCheck::Exact);
  }
}

TEST(Simulate, PublishPollCopiesEveryRankCanonicalised) {
  Builder b(3, 16, 64);
  int rows = b.buffer("rows", "bf16", {-1, 64}, "in");
  int mb = b.mailbox();
  int out = b.buffer("out", "bf16", {3, -1, 64}, "out");
  b.kernel("publish_rows", {{mb, "mailbox"}, {rows, "rows"}, {-1, ""}});
  b.kernel("poll_rows", {{mb, "mailbox"}, {out, "out"}, {-1, ""}});
  Manifest m = b.parse();
  ProgramPlan plan(m, 3, true);
  SimulationConfig config = configFor(m, 3);
  StepExpectation e = simulateStep(m, plan, config, 7, 5);
  ASSERT_EQ(e.exact[out].size(), 3u);
  EXPECT_EQ(e.exact[out][0], e.exact[out][2]); // one vector for all ranks
  // The old reference, from the old patterns: the same bytes.
  std::vector<std::vector<uint16_t>> published(3,
                                               std::vector<uint16_t>(5 * 64));
  for (int r = 0; r < 3; ++r)
    for (int i = 0; i < 5 * 64; ++i)
      published[r][i] = patternValue(PatternKind::Bits, 3, 7, r, i);
  std::vector<uint16_t> want(config.allocationBytes[out] / 2, kPoison);
  referencePollRows(published, 5, 64, OutputLayout{5, 64}, want);
  for (std::size_t i = 0; i < want.size(); ++i)
    ASSERT_EQ(bf16At(*e.exact[out][0], i), want[i]) << i;
  EXPECT_EQ(e.norm[out], nullptr);
  EXPECT_TRUE(e.exact[rows].empty()); // inputs are not outputs
}

TEST(Simulate, AllReduceSumsInItsOrder) {
  for (const char *order : {"rank_ascending", "pairwise"}) {
    Builder b(4, 8, 256);
    int rows = b.buffer("rows", "bf16", {-1, 256}, "in");
    int mb = b.mailbox();
    int out = b.buffer("out", "bf16", {-1, 256}, "out");
    b.kernel("publish_rows", {{mb, "mailbox"}, {rows, "rows"}, {-1, ""}});
    b.kernel("all_reduce", {{mb, "mailbox"}, {out, "out"}, {-1, ""}},
             {{"sum_order", order}});
    Manifest m = b.parse();
    ProgramPlan plan(m, 4, true);
    StepExpectation e = simulateStep(m, plan, configFor(m, 4), 1, 3);
    std::vector<std::vector<uint16_t>> published(
        4, std::vector<uint16_t>(3 * 256));
    for (int r = 0; r < 4; ++r)
      for (int i = 0; i < 3 * 256; ++i)
        published[r][i] = patternValue(PatternKind::Integers, 3, 1, r, i);
    std::vector<uint16_t> want(8 * 256, kPoison);
    referenceAllReduce(published, 3, 256, parseSumOrder(order), want);
    for (std::size_t i = 0; i < want.size(); ++i)
      ASSERT_EQ(bf16At(*e.exact[out][1], i), want[i]) << order << " " << i;
  }
}

TEST(Simulate, SumsWithinBoundForAnotherLibrarysOrder) {
  // The nccl transport: out is checked within the bound of the FP64 sum,
  // and later launches still read the simulated sum.
  Builder b(4, 8, 256);
  int rows = b.buffer("rows", "bf16", {-1, 256}, "in");
  int mb = b.mailbox();
  int out = b.buffer("out", "bf16", {-1, 256}, "out");
  b.kernel("publish_rows", {{mb, "mailbox"}, {rows, "rows"}, {-1, ""}});
  b.kernel("all_reduce", {{mb, "mailbox"}, {out, "out"}, {-1, ""}});
  Manifest m = b.parse();
  ProgramPlan plan(m, 4, true);
  ASSERT_EQ(plan.arguments[out].check, OutputCheck::Exact);
  plan.checkSumsWithinBound();
  ASSERT_EQ(plan.arguments[out].check, OutputCheck::Norm);
  StepExpectation e = simulateStep(m, plan, configFor(m, 4), 1, 3);
  ASSERT_TRUE(e.exact[out].empty());
  ASSERT_NE(e.norm[out], nullptr);
  const NormExpectation &norm = *e.norm[out];
  EXPECT_EQ(norm.rows, 3);
  EXPECT_EQ(norm.rowLength, 256);
  ASSERT_EQ(norm.reference.size(), 3u * 256);
  for (int i = 0; i < 3 * 256; ++i) {
    double sum = 0, magnitudes = 0;
    for (int r = 0; r < 4; ++r) {
      double v = bf16ToFloat(patternValue(PatternKind::Integers, 3, 1, r, i));
      sum += v;
      magnitudes += std::fabs(v);
    }
    ASSERT_EQ(norm.reference[i], sum) << i;
    ASSERT_EQ(norm.bound[i], sumTolerance(magnitudes, 4)) << i;
  }
  // Past the rows the step writes, the poison must stay.
  EXPECT_EQ(bf16At(*norm.base, 3 * 256), kPoison);
}

TEST(Reference, SumToleranceIsOneBf16RoundingPerRank) {
  EXPECT_EQ(sumTolerance(256, 1), 1 + std::ldexp(1.0, -133));
  EXPECT_EQ(sumTolerance(256, 4), 4 + std::ldexp(1.0, -133));
  EXPECT_GT(sumTolerance(0, 8), 0);
}

TEST(Simulate, GemmAllGatherIsTheUnpoolerBoundary) {
  const int tp = 4, n = 64, k = 64, m = 6;
  Builder b(tp, 16, n);
  int x = b.buffer("x", "bf16", {-1, k}, "in");
  int w = b.buffer("w_block", "bf16", {n, k}, "in");
  int y = b.buffer("y", "bf16", {-1, n}, "out");
  int mb = b.mailbox();
  int out = b.buffer("out", "bf16", {-1, tp * n}, "out");
  b.kernel("gemm_publish",
           {{mb, "mailbox"}, {w, "weight"}, {x, "x"}, {y, "y"}, {-1, ""}});
  b.kernel("all_gather", {{mb, "mailbox"}, {out, "out"}, {-1, ""}});
  Manifest manifest = b.parse();
  ProgramPlan plan(manifest, tp, true);
  StepExpectation e =
      simulateStep(manifest, plan, configFor(manifest, tp), 2, m);
  const std::vector<uint8_t> &gathered = *e.exact[out][0];
  for (int r = 0; r < tp; ++r) {
    EXPECT_EQ(e.exact[out][r], e.exact[out][0]);
    std::vector<double> want = denseGemm(
        plan.arguments[x].spec, plan.arguments[w].spec, 3, 2, r, m, n, k);
    const std::vector<uint8_t> &got = *e.exact[y][r];
    for (int i = 0; i < m * n; ++i) {
      ASSERT_EQ(double(bf16ToFloat(bf16At(got, i))), want[i]) << r << " " << i;
      // A zero y is +0.0; published, it is +0.0 too.
      if (want[i] == 0)
        ASSERT_EQ(bf16At(got, i), 0x0000);
      int row = i / n, col = i % n;
      ASSERT_EQ(bf16At(gathered, (row * tp + r) * n + col), bf16At(got, i));
    }
    for (std::size_t i = m * n; i < got.size() / 2; ++i)
      ASSERT_EQ(bf16At(got, i), kPoison);
  }
  EXPECT_NE(*e.exact[y][0], *e.exact[y][1]); // every rank its own block
  for (std::size_t i = std::size_t(m) * tp * n; i < gathered.size() / 2; ++i)
    ASSERT_EQ(bf16At(gathered, i), kPoison);
}

TEST(Simulate, FusedDualNormReferencesAndBounds) {
  for (bool channel : {false, true}) {
    const int tp = 3, m = 4;
    Manifest manifest = fusedAttention(tp, channel, /*post=*/!channel).parse();
    ProgramPlan plan(manifest, tp, true);
    SimulationConfig config = configFor(manifest, tp);
    StepExpectation e = simulateStep(manifest, plan, config, 5, m);
    int stream = channel ? 4 : 4, out = channel ? 8 : 9;
    ASSERT_NE(e.norm[out], nullptr);
    ASSERT_NE(e.norm[stream], nullptr);
    const NormExpectation &o = *e.norm[out], &s = *e.norm[stream];
    EXPECT_EQ(o.rows, m);
    EXPECT_EQ(o.rowLength, H);
    // r: the ranks' exact y summed.
    std::vector<double> r(m * H, 0.0);
    for (int rank = 0; rank < tp; ++rank) {
      std::vector<double> y = denseGemm(
          plan.arguments[0].spec, plan.arguments[1].spec, 3, 5, rank, m, H, K);
      for (int i = 0; i < m * H; ++i)
        r[i] += y[i];
    }
    auto input = [&](int arg) {
      return inputBytes(plan.arguments[arg].spec, 3, 5, 0,
                        config.allocationBytes[arg]);
    };
    std::vector<uint8_t> streamIn = input(4), alpha = input(5), beta = input(6),
                         next = input(channel ? 7 : 8);
    std::vector<float> st(m * H), av(channel ? H : 1), bv(channel ? H : 1);
    for (int i = 0; i < m * H; ++i)
      st[i] = f32At(streamIn, i);
    for (std::size_t i = 0; i < av.size(); ++i) {
      av[i] = f32At(alpha, i);
      bv[i] = f32At(beta, i);
    }
    std::vector<uint16_t> nw(H), pw(H);
    std::vector<uint8_t> post = channel ? std::vector<uint8_t>() : input(7);
    for (int c = 0; c < H; ++c) {
      nw[c] = bf16At(next, c);
      if (!channel)
        pw[c] = bf16At(post, c);
    }
    for (int row = 0; row < m; ++row) {
      DualNormRowInputs in;
      in.width = H;
      in.reduced = &r[row * H];
      in.stream = &st[row * H];
      in.alpha = av.data();
      in.alphaCount = int(av.size());
      in.beta = bv.data();
      in.betaCount = int(bv.size());
      in.postWeight = channel ? nullptr : pw.data();
      in.nextWeight = nw.data();
      in.eps = 1e-6;
      std::vector<double> sr(H), sb(H), orf(H), ob(H);
      referenceDualNormRow(in, sr.data(), sb.data(), orf.data(), ob.data());
      for (int c = 0; c < H; ++c) {
        ASSERT_EQ(s.reference[row * H + c], sr[c]);
        ASSERT_EQ(s.bound[row * H + c], sb[c]);
        ASSERT_EQ(o.reference[row * H + c], orf[c]);
        ASSERT_EQ(o.bound[row * H + c], ob[c]);
        ASSERT_GT(ob[c], 0);
      }
    }
    // Outside the written rows: poison for out, the input for the stream.
    for (std::size_t i = m * H; i < o.base->size() / 2; ++i)
      ASSERT_EQ(bf16At(*o.base, i), kPoison);
    for (std::size_t i = m * H; i < s.base->size() / 4; ++i)
      ASSERT_EQ(f32At(*s.base, i), f32At(streamIn, i));
  }
}

TEST(Simulate, UnfusedGivesTheFusedReferences) {
  const int tp = 2, m = 7;
  Manifest fused = fusedAttention(tp).parse();
  Manifest unfused = unfusedAttention(tp).parse();
  ProgramPlan fusedPlan(fused, tp, true), unfusedPlan(unfused, tp, true);
  EXPECT_EQ(unfusedPlan.arguments[2].check, OutputCheck::Exact); // partial
  EXPECT_TRUE(unfusedPlan.arguments[2].poison);
  EXPECT_EQ(unfusedPlan.arguments[4].check, OutputCheck::Exact); // reduced
  EXPECT_EQ(unfusedPlan.arguments[5].spec.kind, InputKind::Stream);
  StepExpectation a =
      simulateStep(fused, fusedPlan, configFor(fused, tp), 9, m);
  StepExpectation b =
      simulateStep(unfused, unfusedPlan, configFor(unfused, tp), 9, m);
  // Same roles, same seed: the same inputs, so the same y and references.
  for (int r = 0; r < tp; ++r)
    EXPECT_EQ(*a.exact[2][r], *b.exact[2][r]);
  EXPECT_EQ(a.norm[9]->reference, b.norm[10]->reference);
  EXPECT_EQ(a.norm[9]->bound, b.norm[10]->bound);
  EXPECT_EQ(a.norm[4]->reference, b.norm[5]->reference);
  EXPECT_EQ(*a.norm[4]->base, *b.norm[5]->base);
  // reduced is the exact sum of the partials.
  const std::vector<uint8_t> &reduced = *b.exact[4][0];
  for (int i = 0; i < m * H; ++i) {
    float sum = bf16ToFloat(bf16At(*b.exact[2][0], i)) +
                bf16ToFloat(bf16At(*b.exact[2][1], i));
    ASSERT_EQ(bf16At(reduced, i), floatToBf16(sum));
  }
}

/// The boundary alone: partials in memory, published and consumed either
/// by publish_rows then all_reduce_dual_norm, or (\p oneKernel) by one
/// all_reduce_dual_norm that publishes its `partial` first.
Builder boundaryAlone(int tp, bool oneKernel) {
  Builder b(tp, 16, H);
  int partial = b.buffer("partial", "bf16", {-1, H}, "in");
  int mb = b.mailbox();
  int stream = b.buffer("stream", "f32", {-1, H}, "inout");
  int alpha = b.buffer("alpha", "f32", {1}, "in");
  int beta = b.buffer("beta", "f32", {1}, "in");
  int pw = b.buffer("post_weight", "bf16", {H}, "in");
  int nw = b.buffer("next_weight", "bf16", {H}, "in");
  int out = b.buffer("out", "bf16", {-1, H}, "out");
  if (!oneKernel)
    b.kernel("publish_rows", {{mb, "mailbox"}, {partial, "rows"}, {-1, ""}});
  std::vector<std::pair<int, std::string>> norm = {
      {mb, "mailbox"}, {stream, "stream"},  {alpha, "alpha"},
      {beta, "beta"},  {pw, "post_weight"}, {nw, "next_weight"},
      {out, "out"}};
  if (oneKernel)
    norm.push_back({partial, "partial"});
  norm.push_back({-1, ""});
  b.kernel("all_reduce_dual_norm", norm,
           {{"eps", 1e-6}, {"sum_order", "rank_ascending"}});
  return b;
}

TEST(Simulate, OneKernelBoundaryIsPublishRowsThenConsumer) {
  const int tp = 4, m = 5;
  Manifest one = boundaryAlone(tp, true).parse();
  Manifest two = boundaryAlone(tp, false).parse();
  EXPECT_TRUE(one.kernels[0].publishes());
  EXPECT_TRUE(one.kernels[0].publishesAndConsumes());
  EXPECT_TRUE(two.kernels[0].publishes());
  EXPECT_FALSE(two.kernels[0].publishesAndConsumes());
  EXPECT_FALSE(two.kernels[1].publishes());
  ProgramPlan onePlan(one, tp, true), twoPlan(two, tp, true);
  // The partial is an input of integers in both: what is summed is exact.
  EXPECT_TRUE(onePlan.arguments[0].input);
  EXPECT_EQ(onePlan.arguments[0].spec.kind, InputKind::Integers);
  EXPECT_EQ(twoPlan.arguments[0].spec.kind, InputKind::Integers);
  EXPECT_EQ(onePlan.arguments[7].check, OutputCheck::Norm);
  StepExpectation a = simulateStep(one, onePlan, configFor(one, tp), 4, m);
  StepExpectation b = simulateStep(two, twoPlan, configFor(two, tp), 4, m);
  ASSERT_TRUE(a.norm[7] && b.norm[7] && a.norm[2] && b.norm[2]);
  EXPECT_EQ(a.norm[7]->reference, b.norm[7]->reference);
  EXPECT_EQ(a.norm[7]->bound, b.norm[7]->bound);
  EXPECT_EQ(a.norm[2]->reference, b.norm[2]->reference);

  // Another consumer after it has nothing left to read: the one kernel
  // consumed what it published.
  Builder again = boundaryAlone(tp, true);
  int reduced = again.buffer("reduced", "bf16", {-1, H}, "out");
  again.kernel("all_reduce", {{1, "mailbox"}, {reduced, "out"}, {-1, ""}});
  EXPECT_EQ(planError(again.parse(), tp),
            "kernel 'all_reduce_1' (all_reduce): consumes mailbox 'mb', but "
            "no earlier launch of the step publishes into it, so what it "
            "reads has no reference");
}

TEST(Simulate, DualNormOfAReducedInput) {
  Builder b(2, 16, H);
  int reduced = b.buffer("r", "bf16", {-1, H}, "in");
  int stream = b.buffer("s", "f32", {-1, H}, "inout");
  int alpha = b.buffer("a", "f32", {1}, "in");
  int beta = b.buffer("b", "f32", {H}, "in");
  int nw = b.buffer("nw", "bf16", {H}, "in");
  int out = b.buffer("out", "bf16", {-1, H}, "out");
  b.mailbox();
  b.kernel("dual_norm",
           {{reduced, "reduced"},
            {stream, "stream"},
            {alpha, "alpha"},
            {beta, "beta"},
            {nw, "next_weight"},
            {out, "out"},
            {-1, ""}},
           {{"eps", 1e-5}});
  Manifest m = b.parse();
  ProgramPlan plan(m, 2, true);
  EXPECT_EQ(plan.arguments[reduced].spec.kind, InputKind::Reduced);
  EXPECT_EQ(plan.launches[0].alphaCount, 1);
  EXPECT_EQ(plan.launches[0].betaCount, H);
  EXPECT_EQ(plan.launches[0].eps, 1e-5);
  StepExpectation e = simulateStep(m, plan, configFor(m, 2), 0, 2);
  ASSERT_NE(e.norm[out], nullptr);
  for (double bound : e.norm[out]->bound)
    EXPECT_GT(bound, 0);
}

TEST(PlanErrors, MissingUnknownAndRepeatedRoles) {
  Builder missing = fusedAttention(2);
  missing.m["kernels"][0]["params"][2].erase("role");
  EXPECT_EQ(planError(missing.parse(), 2),
            "kernel 'gemm_publish_0' (gemm_publish): buffer parameter 2 "
            "(argument 'attn') names no role; gemm_publish tells its buffers "
            "apart by role (weight, x, y, ticket (optional)): recompile the "
            "bundle with a lamport-compile that writes roles");
  // Without --check the launch is left out and its buffers are Bits.
  ProgramPlan lenient(missing.parse(), 2, false);
  EXPECT_FALSE(lenient.complete);
  EXPECT_EQ(lenient.arguments[0].spec.kind, InputKind::Bits);
  EXPECT_TRUE(lenient.arguments[0].input);

  Builder unknown = fusedAttention(2);
  unknown.m["kernels"][1]["params"][2]["role"] = "gamma";
  EXPECT_EQ(
      planError(unknown.parse(), 2),
      "kernel 'all_reduce_dual_norm_1' (all_reduce_dual_norm): buffer "
      "parameter 2 (argument 'alpha') has role 'gamma', which "
      "all_reduce_dual_norm does not have (its roles: stream, alpha, "
      "beta, post_weight (optional), next_weight, out, partial (optional))");

  Builder twice = fusedAttention(2);
  twice.m["kernels"][1]["params"][3]["role"] = "alpha";
  EXPECT_EQ(planError(twice.parse(), 2),
            "kernel 'all_reduce_dual_norm_1' (all_reduce_dual_norm): buffer "
            "parameter 3 (argument 'beta') repeats role 'alpha'");

  Builder absent = fusedAttention(2);
  absent.m["kernels"][1]["params"].erase(5); // next_weight
  EXPECT_EQ(planError(absent.parse(), 2),
            "kernel 'all_reduce_dual_norm_1' (all_reduce_dual_norm): no "
            "buffer parameter has role 'next_weight', which "
            "all_reduce_dual_norm needs");
}

TEST(PlanErrors, TicketsAreRefusedWithOrWithoutCheck) {
  Builder b = fusedAttention(2);
  int ticket = b.buffer("ticket", "i32", {1}, "in");
  b.m["kernels"][0]["params"].insert(b.m["kernels"][0]["params"].begin() + 4,
                                     json::object({{"kind", "buffer"},
                                                   {"argument", ticket},
                                                   {"size", 8},
                                                   {"align", 8},
                                                   {"role", "ticket"}}));
  std::string want =
      "kernel 'gemm_publish_0' (gemm_publish): buffer parameter 4 (argument "
      "'ticket') has role 'ticket': lamport-run does not drive ticket stages "
      "(the kernel would publish into the ticket's stage and set no stage "
      "word for a consumer to read); compile the program without a ticket";
  EXPECT_EQ(planError(b.parse(), 2, true), want);
  EXPECT_EQ(planError(b.parse(), 2, false), want);
}

TEST(PlanErrors, ShapesDtypesAndAttributes) {
  auto errorWith = [](const std::function<void(json &)> &edit) {
    Builder b = fusedAttention(2);
    edit(b.m);
    return planError(b.parse(), 2);
  };
  EXPECT_EQ(errorWith([](json &m) { m["arguments"][5]["shape"] = {2}; }),
            "kernel 'all_reduce_dual_norm_1' (all_reduce_dual_norm): role "
            "'alpha' (argument 'alpha') is [2] f32, but all_reduce_dual_norm "
            "needs [1] or [256] f32 (mailbox 'mb' is 256 wide)");
  EXPECT_EQ(errorWith([](json &m) { m["arguments"][4]["dtype"] = "bf16"; }),
            "kernel 'all_reduce_dual_norm_1' (all_reduce_dual_norm): role "
            "'stream' (argument 'stream') is [-1, 256] bf16, but "
            "all_reduce_dual_norm needs [-1, 256] f32 (mailbox 'mb' is 256 "
            "wide)");
  EXPECT_EQ(errorWith([](json &m) { m["arguments"][0]["shape"] = {-1, 32}; }),
            "kernel 'gemm_publish_0' (gemm_publish): role 'x' (argument "
            "'attn') is [-1, 32] bf16, but gemm_publish needs [-1, 64] bf16 "
            "(K = 64 from the weight)");
  EXPECT_EQ(errorWith([](json &m) { m["arguments"][1]["shape"] = {128, 64}; }),
            "kernel 'gemm_publish_0' (gemm_publish): role 'weight' (argument "
            "'o_proj') has N = 128 rows, but mailbox 'mb' is 256 wide: the "
            "GEMM publishes y [m, N] into it");
  EXPECT_EQ(errorWith([](json &m) {
              m["arguments"][1]["shape"] = {256, 66};
              m["arguments"][0]["shape"] = {-1, 66};
            }),
            "kernel 'gemm_publish_0' (gemm_publish): role 'weight' (argument "
            "'o_proj') has K = 66, not a multiple of 4, which lamport-run's x "
            "(4 nonzeros a row at o + q * K / 4) needs");
  EXPECT_EQ(errorWith([](json &m) { m["arguments"][9]["io"] = "in"; }),
            "kernel 'all_reduce_dual_norm_1' (all_reduce_dual_norm): buffer "
            "parameter 6 (argument 'out') has role 'out', which "
            "all_reduce_dual_norm writes, but the argument's io is 'in'");
  EXPECT_EQ(
      errorWith([](json &m) { m["kernels"][1]["attributes"]["eps"] = "x"; }),
      "kernel 'all_reduce_dual_norm_1' (all_reduce_dual_norm): "
      "attribute eps must be a finite number >= 0, got 'x'");
  EXPECT_EQ(errorWith([](json &m) {
              m["kernels"][1]["attributes"]["sum_order"] = "tree";
            }),
            "kernel 'all_reduce_dual_norm_1' (all_reduce_dual_norm): "
            "attribute sum_order: unknown sum_order 'tree' (expected "
            "'rank_ascending' or 'pairwise')");
  // A fixed token dimension must hold the most tokens a step carries.
  EXPECT_EQ(errorWith([](json &m) { m["arguments"][9]["shape"] = {8, 256}; }),
            "kernel 'all_reduce_dual_norm_1' (all_reduce_dual_norm): role "
            "'out' (argument 'out') is [8, 256] bf16, but "
            "all_reduce_dual_norm needs [-1, 256] bf16 (mailbox 'mb' is 256 "
            "wide)");
  EXPECT_EQ(errorWith([](json &m) { m["arguments"][9]["shape"] = {16, 256}; }),
            "");
}

TEST(PlanErrors, WhatTheSimulationCannotFollow) {
  // A consumer nothing published for.
  Builder lone(2, 16, 64);
  int mb = lone.mailbox();
  int out = lone.buffer("out", "bf16", {-1, 128}, "out");
  lone.kernel("all_gather", {{mb, "mailbox"}, {out, "out"}, {-1, ""}});
  EXPECT_EQ(planError(lone.parse(), 2),
            "kernel 'all_gather_0' (all_gather): consumes mailbox 'mb', but "
            "no earlier launch of the step publishes into it, so what it "
            "reads has no reference");
  EXPECT_EQ(planError(lone.parse(), 2, /*strict=*/false), "");

  // A launch that reads a dual norm's output.
  Builder reads = fusedAttention(2);
  reads.kernel("publish_rows", {{3, "mailbox"}, {9, "rows"}, {-1, ""}});
  EXPECT_EQ(planError(reads.parse(), 2),
            "kernel 'publish_rows_2' (publish_rows): role 'rows' reads "
            "argument 'out', which kernel 'all_reduce_dual_norm_1' "
            "(all_reduce_dual_norm) wrote earlier in the step; a dual norm's "
            "output is known only within a bound, so lamport-run cannot "
            "simulate what reads it");

  // A GEMM over something lamport-run did not generate as x.
  Builder chained = unfusedAttention(2);
  int weight = chained.buffer("w2", "bf16", {64, H}, "in");
  int y = chained.buffer("y2", "bf16", {-1, 64}, "out");
  chained.kernel("gemm_publish",
                 {{weight, "weight"}, {4, "x"}, {y, "y"}, {-1, ""}});
  EXPECT_EQ(planError(chained.parse(), 2),
            "kernel 'gemm_publish_4' (gemm_publish): role 'x' (argument "
            "'reduced') is written by kernel 'all_reduce_2' (all_reduce); "
            "lamport-run simulates gemm_publish only over the x and weight it "
            "generates (small integers, so y is exact)");

  // The wrong number of mailboxes.
  Builder mailboxed = unfusedAttention(2);
  mailboxed.m["kernels"][3]["params"].insert(
      mailboxed.m["kernels"][3]["params"].begin(),
      json::object(
          {{"kind", "mailbox"}, {"argument", 3}, {"size", 56}, {"align", 8}}));
  EXPECT_EQ(planError(mailboxed.parse(), 2),
            "kernel 'dual_norm_3' (dual_norm): has 1 mailbox parameter(s), "
            "but dual_norm takes none");
}

TEST(PlanErrors, AnOpWithoutSimulation) {
  // Every op a manifest may name has one today; the refusal stays for the
  // next op the dialect grows before lamport-run learns it.
  Manifest m = fusedAttention(2).parse();
  m.kernels[1].op = "all_to_all";
  EXPECT_FALSE(hasSimulation("all_to_all"));
  EXPECT_EQ(planError(m, 2),
            "kernel 'all_reduce_dual_norm_1' (all_to_all): lamport-run has no "
            "host simulation of op 'all_to_all', so it cannot check what it "
            "writes; run it without --check");
  ProgramPlan lenient(m, 2, false);
  EXPECT_FALSE(lenient.complete);
  EXPECT_EQ(lenient.launches.size(), 1u);
  EXPECT_NE(describeChecks(m).find("refused: kernel 'all_reduce_dual_norm_1'"),
            std::string::npos);
}

TEST(Simulate, RefusesAllocationsTooSmall) {
  Manifest m = fusedAttention(2).parse();
  ProgramPlan plan(m, 2, true);
  SimulationConfig config = configFor(m, 2);
  config.allocationBytes[9] = 64;
  try {
    simulateStep(m, plan, config, 0, 4);
    FAIL() << "simulated";
  } catch (const Error &e) {
    EXPECT_EQ(std::string(e.what()),
              "kernel 'all_reduce_dual_norm_1' (all_reduce_dual_norm): "
              "argument 'out' holds 32 elements, but m = 4 needs 1024");
  }
}

} // namespace
