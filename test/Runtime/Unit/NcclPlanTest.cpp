//===- NcclPlanTest.cpp - The step of the nccl transport ------------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#include "lamport/Runtime/NcclPlan.h"
#include "lamport/Runtime/Error.h"
#include "lamport/Runtime/Transport.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

using namespace lamport::runtime;

namespace {

const std::string kInputs = LAMPORT_RUNTIME_TEST_INPUTS;

Manifest manifestOf(const std::string &bundle) {
  std::ifstream in(kInputs + "/" + bundle + "/manifest.json");
  std::stringstream text;
  text << in.rdbuf();
  return parseManifest(text.str(), bundle);
}

std::string refusal(const Manifest &m) {
  try {
    planNcclStep(m);
  } catch (const Error &e) {
    return e.what();
  }
  return "";
}

} // namespace

TEST(NcclPlan, AllReduceIsOneCallAtTheAllReducesPlace) {
  Manifest m = manifestOf("all_reduce_tp4");
  std::vector<NcclAction> actions = planNcclStep(m);
  ASSERT_EQ(actions.size(), 1u);
  EXPECT_EQ(actions[0].kind, NcclAction::Kind::AllReduce);
  EXPECT_EQ(actions[0].launch, 1u);
  EXPECT_EQ(m.arguments[actions[0].send].name, "rows");
  EXPECT_EQ(m.arguments[actions[0].out].name, "out");
  EXPECT_EQ(actions[0].mailbox, 0);
  EXPECT_EQ(actions[0].width, 256);
}

TEST(NcclPlan, UnfusedBoundaryKeepsItsOtherKernels) {
  Manifest m = manifestOf("attention_unfused_tp2");
  std::vector<NcclAction> actions = planNcclStep(m);
  ASSERT_EQ(actions.size(), 3u);
  EXPECT_EQ(actions[0].kind, NcclAction::Kind::Launch);
  EXPECT_EQ(m.kernels[m.launches[actions[0].launch]].op, "gemm_publish");
  EXPECT_EQ(actions[1].kind, NcclAction::Kind::AllReduce);
  EXPECT_EQ(m.arguments[actions[1].send].name,
            m.arguments[m.kernels[m.launches[1]].params[1].argument].name);
  EXPECT_EQ(actions[2].kind, NcclAction::Kind::Launch);
  EXPECT_EQ(m.kernels[m.launches[actions[2].launch]].op, "dual_norm");
}

TEST(NcclPlan, RefusesWhatNeedsTheMailboxProtocol) {
  std::string fused = refusal(manifestOf("attention_tp2"));
  EXPECT_NE(fused.find("kernel 'gemm_publish_0' (gemm_publish) publishes "
                       "into a mailbox ('mb')"),
            std::string::npos)
      << fused;
  EXPECT_NE(fused.find("the nccl transport runs programs whose only mailbox "
                       "use is publish_rows followed by all_reduce"),
            std::string::npos)
      << fused;
  std::string poll = refusal(manifestOf("publish_poll_tp2"));
  EXPECT_NE(poll.find("(poll_rows) polls a mailbox"), std::string::npos)
      << poll;
  std::string norm = refusal(manifestOf("reduce_norm_tp4"));
  EXPECT_NE(norm.find("(all_reduce_dual_norm)"), std::string::npos) << norm;
  std::string gather = refusal(manifestOf("unpooler_tp4"));
  EXPECT_FALSE(gather.empty());
}

TEST(NcclPlan, APublishAndAnAllReduceGoTogether) {
  Manifest m = manifestOf("all_reduce_tp4");
  Manifest publishOnly = m;
  publishOnly.launches = {0};
  publishOnly.launchTokens = {std::nullopt};
  EXPECT_NE(refusal(publishOnly)
                .find("mailbox 'mb' is published into but no all_reduce "
                      "reads it"),
            std::string::npos);
  Manifest reduceOnly = m;
  reduceOnly.launches = {1};
  reduceOnly.launchTokens = {std::nullopt};
  EXPECT_NE(refusal(reduceOnly)
                .find("kernel 'all_reduce_0' (all_reduce) reduces mailbox "
                      "'mb' without a publish_rows before it"),
            std::string::npos);
  // Alternatives of the all_reduce by M: one call each, for its range.
  Manifest alternatives = m;
  alternatives.launches = {0, 1, 1};
  alternatives.launchTokens = {std::nullopt, TokenRange{1, 4},
                               TokenRange{5, 8}};
  std::vector<NcclAction> actions = planNcclStep(alternatives);
  ASSERT_EQ(actions.size(), 2u);
  EXPECT_EQ(actions[1].launch, 2u);
  EXPECT_EQ(actions[1].send, actions[0].send);
  // Alternatives of the publish could publish different rows: refused.
  Manifest publishes = m;
  publishes.launches = {0, 0, 1};
  publishes.launchTokens = {TokenRange{1, 4}, TokenRange{5, 8}, std::nullopt};
  EXPECT_NE(refusal(publishes).find("runs for a range of M only"),
            std::string::npos);
}

TEST(NcclPlan, TransportNames) {
  EXPECT_EQ(parseRankTransport("mailbox"), RankTransport::Mailbox);
  EXPECT_EQ(parseRankTransport("nccl"), RankTransport::Nccl);
  EXPECT_STREQ(rankTransportName(RankTransport::Nccl), "nccl");
  EXPECT_THROW(parseRankTransport("NCCL"), Error);
}
