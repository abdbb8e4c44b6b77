//===- Statistics.cpp - Latency summaries of timed steps ------------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#include "lamport/Check/Statistics.h"

#include <algorithm>
#include <cmath>

namespace lamport {
namespace check {

LatencyStats summarizeSamples(std::vector<double> samples) {
  LatencyStats stats;
  stats.samples = samples.size();
  if (samples.empty())
    return stats;
  std::sort(samples.begin(), samples.end());
  auto at = [&](double q) {
    std::size_t i = std::size_t(std::ceil(q * samples.size())) - 1;
    return samples[std::min(i, samples.size() - 1)];
  };
  stats.median = at(0.5);
  stats.p99 = at(0.99);
  stats.min = samples.front();
  double sum = 0;
  for (double v : samples)
    sum += v;
  stats.mean = sum / samples.size();
  return stats;
}

} // namespace check
} // namespace lamport
