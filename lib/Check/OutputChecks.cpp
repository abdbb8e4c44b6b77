//===- OutputChecks.cpp - Checking what a step wrote ----------------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#include "lamport/Check/OutputChecks.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace lamport {
namespace check {

using namespace runtime;

double elementValue(DType dtype, const uint8_t *bytes, std::size_t i) {
  if (dtype == DType::BF16) {
    uint16_t v;
    std::memcpy(&v, bytes + 2 * i, 2);
    return bf16ToFloat(v);
  }
  if (dtype == DType::F32) {
    float v;
    std::memcpy(&v, bytes + 4 * i, 4);
    return v;
  }
  int32_t v;
  std::memcpy(&v, bytes + 4 * i, 4);
  return v;
}

std::size_t countMismatches(std::size_t width, const std::vector<uint8_t> &got,
                            const std::vector<uint8_t> &want,
                            std::size_t *first) {
  std::size_t mismatches = 0;
  std::size_t count = std::min(got.size(), want.size()) / width;
  for (std::size_t i = 0; i < count; ++i)
    if (std::memcmp(&got[i * width], &want[i * width], width) &&
        mismatches++ == 0 && first)
      *first = i;
  return mismatches;
}

BoundCheck checkWithinBound(DType dtype, const std::vector<uint8_t> &got,
                            const NormExpectation &norm) {
  BoundCheck found;
  std::size_t width = dtypeBytes(dtype);
  std::size_t written = std::size_t(norm.rows) * norm.rowLength;
  for (std::size_t i = 0; i < got.size() / width; ++i) {
    if (i >= written) {
      if (std::memcmp(&got[i * width], &(*norm.base)[i * width], width) &&
          found.outside++ == 0)
        found.firstOutside = i;
      continue;
    }
    double value = elementValue(dtype, got.data(), i);
    double ratio = std::isfinite(value)
                       ? std::fabs(value - norm.reference[i]) / norm.bound[i]
                       : INFINITY;
    found.worst = std::max(found.worst, ratio);
    if (!withinTolerance(value, norm.reference[i], norm.bound[i])) {
      ++found.violations;
      if (ratio > found.worstViolation) {
        found.worstViolation = ratio;
        found.worstAt = i;
      }
    }
  }
  return found;
}

} // namespace check
} // namespace lamport
