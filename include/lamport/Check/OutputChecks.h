//===- OutputChecks.h - Checking what a step wrote --------------*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// The element-by-element comparisons every checker of decode steps makes
// (lamport-run's harness, lamport-launch's rank processes): an exact output
// bit for bit against the host simulation's bytes, a bound-checked output
// (a dual norm's, or an all-reduce summed in another library's order)
// against its FP64 reference and bound, with the elements past the rows the
// step writes unchanged. Each caller words its own messages from what these
// find. No CUDA.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_CHECK_OUTPUTCHECKS_H
#define LAMPORT_CHECK_OUTPUTCHECKS_H

#include "lamport/Check/Simulator.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace lamport {
namespace check {

/// Element \p i of a buffer of \p dtype as a double (BF16, F32, I32).
double elementValue(runtime::DType dtype, const uint8_t *bytes, std::size_t i);

/// How many elements of \p width bytes of \p got differ bit for bit from
/// \p want (the shorter's count); the first in \p first.
std::size_t countMismatches(std::size_t width, const std::vector<uint8_t> &got,
                            const std::vector<uint8_t> &want,
                            std::size_t *first = nullptr);

/// What comparing an output with its NormExpectation found.
struct BoundCheck {
  /// Written elements outside their bound (or not finite), the worst of
  /// them and its error in bounds.
  std::size_t violations = 0;
  std::size_t worstAt = 0;
  double worstViolation = -1;
  /// The largest |got - ref| / bound over the written elements.
  double worst = 0;
  /// Elements past the written rows that differ from the base bytes, and
  /// the first of them.
  std::size_t outside = 0;
  std::size_t firstOutside = 0;

  bool pass() const { return !violations && !outside; }
};

/// Compares \p got (an output of \p dtype, its whole allocation) with
/// \p norm: every written element within its bound of the FP64 reference,
/// every other element equal to the base bytes.
BoundCheck checkWithinBound(runtime::DType dtype,
                            const std::vector<uint8_t> &got,
                            const NormExpectation &norm);

} // namespace check
} // namespace lamport

#endif // LAMPORT_CHECK_OUTPUTCHECKS_H
