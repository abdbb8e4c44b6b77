//===- Faults.h - The faults lamport-run injects ----------------*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// lamport-run's fault matrix: one rank of the TP group misbehaves in a way
// the protocol must turn into a clean outcome, injected by the harness from
// the host (never by the bundle's kernels):
//
//   skip-publish:rank=R          R never launches its publishing kernels;
//                                the others' polls time out on slot R.
//   late-publish:rank=R:ns=N     a delay kernel (a %globaltimer-bounded
//                                nanosleep loop) runs N ns on R's stream
//                                before each of R's publishing launches:
//                                below the polls' timeout the group
//                                completes and checks, above it the
//                                others' polls time out on slot R.
//   wrong-stage:rank=R           R's stage words start one generation
//                                ahead (ACTIVE = NEXT = 1, the others 0):
//                                R publishes into and reads stage 1 while
//                                its peers use stage 0, so both sides time
//                                out, each naming its stage.
//   corrupt:rank=R:row=I:col=J   after the host simulation, one BF16 of the
//                                input R publishes as it is (publish_rows'
//                                rows, all_reduce_dual_norm's partial) at
//                                [I, J] becomes 100.0 (101.0 where it was
//                                100.0): the check must name row I and
//                                column J.
//
// The parser and the judge of a timeout trap live here (no CUDA); the
// injection is the harness's (Harness.cpp, FaultKernel.h).
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_CHECK_FAULTS_H
#define LAMPORT_CHECK_FAULTS_H

#include "lamport/Runtime/Descriptor.h"

#include <cstdint>
#include <string>

namespace lamport {
namespace check {

/// What one rank does wrong.
enum class FaultKind { None, SkipPublish, LatePublish, WrongStage, Corrupt };

/// One injected fault; fields a kind does not take stay at their defaults.
struct Fault {
  FaultKind kind = FaultKind::None;
  int rank = -1;
  /// late-publish: the delay before each publishing launch, in ns.
  uint64_t ns = 0;
  /// corrupt: the element of the published input, [row, column].
  int row = 0;
  int column = 0;

  explicit operator bool() const { return kind != FaultKind::None; }
  /// True for the faults whose outcome is a poll's timeout trap (always
  /// for skip-publish and wrong-stage; late-publish when it is late by
  /// more than the timeout).
  bool canTrap() const {
    return kind == FaultKind::SkipPublish || kind == FaultKind::LatePublish ||
           kind == FaultKind::WrongStage;
  }
};

/// The BF16 -0.0 free value a corrupt fault writes: 100.0, or 101.0 where
/// the element already holds 100.0 (never the sentinel, never a NaN or an
/// infinity that would hide where the sum went wrong).
uint16_t corruptedBits(uint16_t original);

/// "late-publish", "wrong-stage", ...
const char *faultName(FaultKind kind);

/// Parses `--fault` text: KIND, then `:KEY=VALUE` fields (rank, and ns for
/// late-publish, row and col for corrupt; every field required). Throws
/// UsageError naming the fault and the field.
Fault parseFault(const std::string &text);

/// The fault as `--fault` spells it ("late-publish:rank=3:ns=200000").
std::string faultText(const Fault &fault);

/// One sentence: what the injected fault does to its rank.
std::string describeFault(const Fault &fault);

/// What the timeout records of \p fault must name, for messages ("slot 3",
/// "slot 1 in stage 0 (rank 1 in stage 1)").
std::string expectedTrap(const Fault &fault);

/// Why \p record is not a timeout \p fault causes, or "" when it is one:
/// skip-publish and late-publish: every record names slot R; wrong-stage:
/// a peer of R waits in stage 0 for slot R, and R itself in stage 1 for a
/// slot other than its own.
std::string unexpectedTrap(const Fault &fault,
                           const runtime::TimeoutRecord &record);

} // namespace check
} // namespace lamport

#endif // LAMPORT_CHECK_FAULTS_H
