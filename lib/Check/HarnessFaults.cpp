//===- HarnessFaults.cpp - Injecting lamport-run's faults -----------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// How the harness makes one rank misbehave (--fault, Faults.h), from the
// host and never through the bundle's kernels: the fault checked against
// the bundle before anything is allocated; a late rank's delay kernel,
// launched before each of its publishing launches (enqueueStep); a rank's
// stage words moved one generation ahead through its own descriptor; one
// value of a rank's published input altered after the host simulation took
// its reference.
//
//===----------------------------------------------------------------------===//

#include "lamport/Check/Harness.h"
#include "lamport/Check/Reference.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace lamport {
namespace check {

using namespace runtime;

namespace {

/// "0x42c8 (100)": a BF16's bits and value.
std::string bf16Text(uint16_t bits) {
  char text[48];
  std::snprintf(text, sizeof(text), "0x%04x (%g)", unsigned(bits),
                double(bf16ToFloat(bits)));
  return text;
}

} // namespace

void Harness::checkFault() {
  const Fault &fault = options.fault;
  const Manifest &m = bundle.manifest;
  if (fault.kind == FaultKind::LatePublish ||
      fault.kind == FaultKind::WrongStage) {
    // The delay runs before each publishing launch of a step.
    int most = 0;
    for (int t : tokens) {
      int publishing = 0;
      for (std::size_t i = 0; i < m.launches.size(); ++i)
        publishing +=
            m.launchRuns(i, t) && m.kernels[m.launches[i]].publishes();
      most = std::max(most, publishing);
    }
    if (!most)
      throw Error(concat("--fault ", faultText(fault),
                         ": no launch of this bundle publishes, so no rank "
                         "can publish ",
                         fault.kind == FaultKind::LatePublish
                             ? "late"
                             : "into the wrong stage"));
    if (fault.kind == FaultKind::LatePublish)
      stepDelaySeconds = double(fault.ns) / 1e9 * most;
    return;
  }
  if (fault.kind != FaultKind::Corrupt)
    return;
  // The first input that a launch publishes as it is: one of its values is
  // one value of the published rows.
  for (const PlannedLaunch &launch : plan->launches) {
    int arg = launch.op == "publish_rows"           ? launch.argument("rows")
              : launch.op == "all_reduce_dual_norm" ? launch.argument("partial")
                                                    : -1;
    if (arg >= 0 && plan->arguments[arg].input) {
      corruptArgument = arg;
      break;
    }
  }
  if (corruptArgument < 0)
    throw Error(concat(
        "--fault ", faultText(fault),
        ": no launch of this bundle publishes an input buffer as it is "
        "(publish_rows' rows, the partial of an all_reduce_dual_norm that "
        "publishes it); a gemm_publish publishes rows it computes, where no "
        "one input value is one published value"));
  const ArgumentSpec &spec = m.arguments[corruptArgument];
  int most = *std::max_element(tokens.begin(), tokens.end());
  if (fault.row >= most)
    throw Error(concat("--fault ", faultText(fault), ": row ", fault.row,
                       " of '", spec.name,
                       "' is published by no step of this run (its steps "
                       "carry at most ",
                       most, " token(s))"));
  int64_t width = spec.shape.back();
  if (spec.dtype != DType::BF16 || spec.shape.size() != 2 ||
      fault.column >= width)
    throw Error(concat("--fault ", faultText(fault), ": column ", fault.column,
                       " is outside '", spec.name, "' ", shapeText(spec.shape),
                       " ", dtypeName(spec.dtype), " (BF16 rows of ", width,
                       " columns)"));
}

void Harness::injectFault() {
  const Fault &fault = options.fault;
  const Manifest &m = bundle.manifest;
  int r = fault.rank;
  if (fault)
    faultNote = describeFault(fault);
  if (fault.kind == FaultKind::LatePublish) {
    faultKernel = std::make_unique<FaultKernel>(*session);
  } else if (fault.kind == FaultKind::WrongStage) {
    // The rank's own descriptor says where its stage words are.
    std::size_t size = descriptor::bytes(options.tp);
    for (std::size_t mb = 0; mb < m.mailboxes.size(); ++mb) {
      const auto *packed =
          static_cast<const uint8_t *>(session->descriptor(int(mb), r));
      DescriptorFields fields =
          unpackDescriptor(std::vector<uint8_t>(packed, packed + size));
      int32_t words[kStageWords] = {};
      words[kActiveStage] = words[kNextStage] = 1;
      session->upload(r, fields.stage, words, sizeof(words),
                      concat("mailbox '", m.mailboxes[mb].name,
                             "': its stage words one generation ahead"));
    }
  } else if (fault.kind == FaultKind::Corrupt) {
    const ArgumentSpec &spec = m.arguments[corruptArgument];
    std::size_t offset =
        2 * (std::size_t(fault.row) * std::size_t(spec.shape.back()) +
             std::size_t(fault.column));
    std::string what = concat("'", spec.name, "' [row ", fault.row, ", column ",
                              fault.column, "]");
    uint16_t first = 0, firstNow = 0;
    for (int j = 0; j < batch; ++j)
      for (CUdeviceptr base : {buffers[bufferIndex(corruptArgument, j, r)],
                               pristine[bufferIndex(corruptArgument, j, r)]}) {
        if (!base)
          continue;
        uint16_t bits = 0;
        session->download(r, &bits, base + offset, 2, what);
        uint16_t now = corruptedBits(bits);
        if (j == 0) {
          first = bits;
          firstNow = now;
        }
        session->upload(r, base + offset, &now, 2,
                        concat(what, " of batch position ", j, ", corrupted"));
      }
    faultNote = concat("rank ", r, "'s ", what,
                       " set to 100.0 (101.0 where "
                       "it held 100.0) in every batch position after the "
                       "host simulation took its reference: in position 0 ",
                       bf16Text(first), " became ", bf16Text(firstNow));
  }
}

} // namespace check
} // namespace lamport
