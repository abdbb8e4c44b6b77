//===- Statistics.h - Latency summaries of timed steps ----------*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// How lamport-run and the benchmarks turn per-step times into the figures
// docs/performance.md records: median, p99 (nearest rank), min and mean.
// One definition, so every table's percentiles mean the same thing.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_CHECK_STATISTICS_H
#define LAMPORT_CHECK_STATISTICS_H

#include <cstddef>
#include <vector>

namespace lamport {
namespace check {

/// The summary of a set of latency samples; all zero for no samples.
struct LatencyStats {
  double median = 0, p99 = 0, min = 0, mean = 0;
  std::size_t samples = 0;
};

/// Median, p99, min and mean of \p samples. A quantile q is the sample of
/// rank ceil(q * n) (nearest rank), so p99 of fewer than 100 samples is the
/// largest.
LatencyStats summarizeSamples(std::vector<double> samples);

} // namespace check
} // namespace lamport

#endif // LAMPORT_CHECK_STATISTICS_H
