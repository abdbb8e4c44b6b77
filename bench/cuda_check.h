//===- cuda_check.h - A plain CUDA bench tool's errors ----------*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// What the plain CUDA tools of bench/ share on the host side
// (lamport-stream-floor, lamport-pdl-depth, lamport-handover-chain): the
// error path (a message naming the tool, the call and what it was for,
// then the tool's exit status), their integer and list arguments, and the
// median time of a CUDA graph's replays. Each tool defines kToolName.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_BENCH_CUDA_CHECK_H
#define LAMPORT_BENCH_CUDA_CHECK_H

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace lamport::bench {

/// The tool's name, the first word of its messages.
extern const char *const kToolName;

/// Prints "TOOL: MESSAGE" and exits with `status`.
[[noreturn]] inline void fail(const std::string &message, int status) {
  std::fprintf(stderr, "%s: %s\n", kToolName, message.c_str());
  std::exit(status);
}

/// Fails with status 1 where a CUDA call did not succeed, naming the call,
/// CUDA's reason and `what` it was for.
inline void check(cudaError_t error, const char *call,
                  const std::string &what) {
  if (error != cudaSuccess)
    fail(std::string(call) + " failed: " + cudaGetErrorString(error) + " (" +
             what + ")",
         1);
}

/// `text` as an integer in [least, most]; else fails with status 2, naming
/// `flag` and the range.
inline int parseCount(const char *flag, const char *text, int least, int most) {
  char *end = nullptr;
  long value = std::strtol(text, &end, 10);
  if (!*text || *end || value < least || value > most)
    fail(std::string(flag) + " takes an integer in [" + std::to_string(least) +
             ", " + std::to_string(most) + "], not '" + text + "'",
         2);
  return int(value);
}

/// The comma-separated items of `text` (an empty one where two commas meet).
inline std::vector<std::string> splitList(const std::string &text) {
  std::vector<std::string> items;
  size_t start = 0;
  for (size_t end; (end = text.find(',', start)) != std::string::npos;
       start = end + 1)
    items.push_back(text.substr(start, end - start));
  items.push_back(text.substr(start));
  return items;
}

} // namespace lamport::bench

#define CHECK(call, what) ::lamport::bench::check((call), #call, (what))

namespace lamport::bench {

/// The median time of one replay of `exec` on `stream`, in ms: `replays`
/// replays after `warmups`, each between `start` and `stop` and waited for.
inline float medianReplayMs(cudaGraphExec_t exec, cudaStream_t stream,
                            cudaEvent_t start, cudaEvent_t stop, int warmups,
                            int replays, const std::string &what) {
  std::vector<float> times;
  for (int r = 0; r < warmups + replays; ++r) {
    CHECK(cudaEventRecord(start, stream), what);
    CHECK(cudaGraphLaunch(exec, stream), what);
    CHECK(cudaEventRecord(stop, stream), what);
    CHECK(cudaEventSynchronize(stop), what);
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop), what);
    if (r >= warmups)
      times.push_back(ms);
  }
  std::nth_element(times.begin(), times.begin() + times.size() / 2,
                   times.end());
  return times[times.size() / 2];
}

} // namespace lamport::bench

#endif // LAMPORT_BENCH_CUDA_CHECK_H
