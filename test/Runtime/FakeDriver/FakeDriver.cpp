//===- FakeDriver.cpp - A host-only libcuda.so.1 for testing the runtime --===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// Exports the driver symbols the runtime binds, implemented on the host, so
// the whole of lamport-run (sessions, descriptors, launches, graph capture
// and replay, checks, timeout diagnostics) runs in CI without a GPU:
//
//   - device memory is host memory; streams run each operation when it is
//     enqueued (the runtime enqueues every rank's publish before any rank's
//     consumer, which is what makes this order valid), and stream capture
//     records operations that a graph launch runs again;
//   - kernels are recognised by name prefix (publish_rows, poll_rows,
//     all_reduce, all_gather, gemm_publish, all_reduce_dual_norm,
//     dual_norm, lamport_check_words) and run as host code that reads the
//     mailbox descriptor exactly as docs/bundle.md lays it out; the dual
//     norms compute in FP32 with tree-shaped sums, as a GPU kernel would,
//     so the runtime's bounds are exercised by a real rounding pattern;
//   - a poll that finds a sentinel has no one to wait for: it fills the
//     timeout record as a GPU poll would and "traps" (every later call
//     returns CUDA_ERROR_LAUNCH_FAILED); the record's timeout is the
//     image's lamport_poll_timeout_ns where the host set it, else 1 s;
//   - all_reduce_dual_norm with a `partial` publishes when enqueued and
//     consumes once every rank's has published, or before any other
//     operation or wait (a rank that never published then traps).
//
// A PTX without a "fake-kernel" line (one lamport-compile wrote) loads but
// does not run: its parameter sizes come from its `.entry`, and
// cuModuleGetGlobal finds its initialised `.global .b8` arrays (the ABI
// records) and its `.global .u64` words (the polls' timeout override, zero),
// so a real bundle's load checks run.
// A module's tp, capacity and width come from a line "// fake-kernel: tp=T
// capacity=C width=W" in its PTX. Without more, the kernel takes (mailbox,
// buffer, tokens); with "params=mailbox,weight,x,y,tokens" (kinds and
// buffer roles in order) it takes those, and "n=N k=K" (gemm_publish),
// "tile=T" (gemm_publish's token tile: a launch for more tokens computes and
// publishes only the first T rows, as a GPU kernel of that tile would, so a
// runtime that runs the wrong alternative of a choice by M is caught),
// "gate=G" (elements of alpha and beta), "eps=E" and "order=pairwise" say
// the rest. FAKE_CUDA_DEVICES sets the device count; FAKE_CUDA_FABRIC=1
// offers fabric handles (FakeVmm.cpp).
// FAKE_CUDA_FAULT plants a kernel bug, to show the checks catch it:
//   flip@N      the Nth consumer launch (from 0) flips one output bit;
//   flip-y@N    the Nth gemm_publish launch flips one bit of y after
//               publishing it (only y is wrong);
//   unfilled-record  a poll claims its timeout record, then the context
//               fails before it fills the record;
//   rank-skew   rank 1's all_reduce_dual_norm writes out's first element
//               one unit in the last place off (within any bound: only the
//               comparison of ranks catches it);
//   quiet-nan   publishers quiet signalling NaNs (0x7F81 -> 0x7FC1);
//   hang        a poll without data spins forever instead of trapping (a
//               kernel built without a timeout): events never complete.
// lamport-run's late-publish delay kernel (lamport_fault_delay) takes no
// time; one of at least the polls' timeout (1 s, as the records say) holds
// its stream back: what is enqueued after it on that stream runs at the
// next wait, after every other rank's polls have run (and trapped).
// FAKE_CUDA_TRACE=1 prints every kernel as it runs, on stderr: "fake-cuda:
// stream S: NAME", with the rank and stage words [ACTIVE, NEXT] of a
// kernel that takes a mailbox and the ns of the delay kernel.
// FAKE_CUDA_POLL_WAIT_MS lets a poll wait for another process's publish.
// cuLaunchHostFunc runs its function in stream order (the fake NCCL's
// collectives, test/Runtime/FakeNccl, enqueue themselves with it).
// This is a test double, not a simulator: it checks the runtime's side of
// the ABI, never a kernel's.
//
//===----------------------------------------------------------------------===//

#include "FakeVmm.h"
#include "lamport/Runtime/BFloat16.h"
#include "lamport/Runtime/Descriptor.h"

#include <cuda.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace {

CUresult sticky = CUDA_SUCCESS;
bool hung = false;

/// FAKE_CUDA_LEGACY_LAGS: the synchronous cuMemset and cuMemcpyHtoD into
/// device memory go to the legacy stream and land late, after what
/// non-blocking streams ran meanwhile, at the next call that waits for the
/// legacy stream (cuCtxSynchronize, cuMemcpyDtoH): the worst order a GPU
/// allows, since neither call waits for its copy to reach device memory and
/// a non-blocking stream does not wait for the legacy one.
std::vector<std::function<void()>> legacyPending;

bool legacyLags() { return std::getenv("FAKE_CUDA_LEGACY_LAGS") != nullptr; }

/// Runs \p operation on the legacy stream: now, or late (legacyLags).
CUresult onLegacyStream(std::function<void()> operation) {
  if (legacyLags())
    legacyPending.push_back(std::move(operation));
  else
    operation();
  return sticky;
}

/// Lands what the legacy stream still holds.
void landLegacy() {
  std::vector<std::function<void()>> pending;
  pending.swap(legacyPending);
  for (auto &operation : pending)
    operation();
}
long consumerLaunches = 0;

/// The consumer launch FAKE_CUDA_FAULT=flip@N corrupts, or -1.
long flipAt() {
  const char *fault = std::getenv("FAKE_CUDA_FAULT");
  if (!fault || std::strncmp(fault, "flip@", 5) != 0)
    return -1;
  return std::atol(fault + 5);
}

bool hangs() {
  const char *fault = std::getenv("FAKE_CUDA_FAULT");
  return fault && std::strcmp(fault, "hang") == 0;
}

bool quietNans() {
  const char *fault = std::getenv("FAKE_CUDA_FAULT");
  return fault && std::strcmp(fault, "quiet-nan") == 0;
}

/// FAKE_CUDA_FAULT=unfilled-record: the poll claims the timeout record but
/// the context fails before it fills it (another rank's trap, on one GPU).
bool unfilledRecord() {
  const char *fault = std::getenv("FAKE_CUDA_FAULT");
  return fault && std::strcmp(fault, "unfilled-record") == 0;
}

bool rankSkew() {
  const char *fault = std::getenv("FAKE_CUDA_FAULT");
  return fault && std::strcmp(fault, "rank-skew") == 0;
}

/// The gemm_publish launch FAKE_CUDA_FAULT=flip-y@N corrupts, or -1.
long flipYAt() {
  const char *fault = std::getenv("FAKE_CUDA_FAULT");
  if (!fault || std::strncmp(fault, "flip-y@", 7) != 0)
    return -1;
  return std::atol(fault + 7);
}
long gemmLaunches = 0;
bool capturing = false;
/// The stream being captured while capturing.
CUstream captureStream = nullptr;
std::vector<std::function<void()>> captured;

/// The polls' timeout as the fake's records report it.
constexpr uint64_t kTimeoutNs = 1000000000;

/// A stream a delay of at least the timeout holds back, and what it held.
CUstream heldStream = nullptr;
std::vector<std::function<void()>> held;

/// Streams are numbered in the order they are created (FAKE_CUDA_TRACE).
int nextStream = 0;
int streamNumber(CUstream stream) {
  return stream ? *reinterpret_cast<int *>(stream) : -1;
}

/// Prints "fake-cuda: stream S: TEXT" with FAKE_CUDA_TRACE set.
void trace(CUstream stream, const std::string &text) {
  if (std::getenv("FAKE_CUDA_TRACE"))
    std::fprintf(stderr, "fake-cuda: stream %d: %s\n", streamNumber(stream),
                 text.c_str());
}

struct Module {
  int tp = 0, capacity = 0, width = 0;
  /// Parameter kinds and buffer roles in order; empty: mailbox, buffer,
  /// tokens.
  std::vector<std::string> params;
  int n = 0, k = 0, gate = 1;
  /// gemm_publish's token tile; 0: every M.
  int tile = 0;
  float eps = 1e-6f;
  bool pairwise = false;
  /// The parameter sizes of the image's `.entry`, for a PTX without a
  /// fake-kernel line (what lamport-compile writes).
  std::vector<size_t> entrySizes;
  /// The image's initialised `.global .b8` arrays (ABI records) and
  /// `.global .u64` words, by name; shared with the module's functions, so a
  /// kernel sees what the host wrote to its module.
  std::map<std::string, std::shared_ptr<std::vector<uint8_t>>> globals;
};
struct Function {
  std::string name;
  Module module;
};
struct Graph {
  std::vector<std::function<void()>> operations;
};

/// The consuming halves of all_reduce_dual_norm kernels that publish their
/// own partial, waiting for the other ranks' publishes: the fake runs a
/// kernel whole when it is enqueued, and rank 0's kernel comes before rank
/// 1's. They run when every rank's has published, or before anything else
/// runs or anyone waits (then a missing publish traps, as on a GPU).
std::vector<std::function<void()>> waitingConsumers;

void runWaitingConsumers() {
  std::vector<std::function<void()>> ready;
  ready.swap(waitingConsumers);
  for (auto &consume : ready)
    consume();
}

/// Runs what a late stream held back (at a wait), unless a trap came first.
void releaseHeld() {
  heldStream = nullptr;
  std::vector<std::function<void()>> ready;
  ready.swap(held);
  for (auto &operation : ready)
    if (sticky == CUDA_SUCCESS)
      operation();
}

/// Runs \p operation now, or records it while a stream is being captured.
/// Waiting consumers run first unless \p selfPublishing (the operation is
/// one more such kernel, or a delay that must not let them run early).
/// While \p stream is held back, the operation waits with it.
CUresult enqueue(std::function<void()> operation, bool selfPublishing = false,
                 CUstream stream = nullptr) {
  if (sticky != CUDA_SUCCESS)
    return sticky;
  std::function<void()> run = [operation = std::move(operation),
                               selfPublishing] {
    if (!selfPublishing)
      runWaitingConsumers();
    operation();
  };
  auto step = [run, stream] {
    if (stream && stream == heldStream)
      held.push_back(run);
    else
      run();
  };
  if (capturing)
    captured.push_back(std::move(step));
  else
    step();
  return CUDA_SUCCESS;
}

template <typename T> T *at(uint64_t address) {
  return reinterpret_cast<T *>(address);
}

/// The descriptor as docs/bundle.md lays it out.
struct Descriptor {
  uint64_t local, multicast, stage, diagnostics;
  int32_t rank, mailboxId;
  const uint64_t *peers;
};

Descriptor readDescriptor(const void *bytes) {
  const char *p = static_cast<const char *>(bytes);
  Descriptor d;
  std::memcpy(&d.local, p + 0, 8);
  std::memcpy(&d.multicast, p + 8, 8);
  std::memcpy(&d.stage, p + 16, 8);
  std::memcpy(&d.diagnostics, p + 24, 8);
  std::memcpy(&d.rank, p + 32, 4);
  std::memcpy(&d.mailboxId, p + 36, 4);
  d.peers = reinterpret_cast<const uint64_t *>(p + 40);
  return d;
}

uint64_t elementOffset(const Module &m, int stage, int slot, int row, int col) {
  return ((uint64_t(stage) * m.tp + slot) * m.capacity + row) * m.width + col;
}

using lamport::runtime::bf16ToFloat;
using lamport::runtime::floatToBf16;

/// The kernels, on the host. Parameters arrive as cuLaunchKernelEx's array.
void publishRows(const Module &m, const Descriptor &d, const uint16_t *rows,
                 int tokens) {
  int32_t *words = at<int32_t>(d.stage);
  int stage = words[1];
  for (int row = 0; row < tokens; ++row)
    for (int col = 0; col < m.width; ++col) {
      uint16_t v = rows[row * m.width + col];
      if (quietNans() && (v & 0x7FC0) == 0x7F80 && (v & 0x3F))
        v |= 0x0040;
      for (int q = 0; q < m.tp; ++q)
        at<uint16_t>(d.peers[q])[elementOffset(m, stage, d.rank, row, col)] =
            v == 0x8000 ? 0 : v;
    }
  words[0] = stage;
}

/// FAKE_CUDA_POLL_WAIT_MS: how long a poll waits for a sentinel to be
/// overwritten before it traps. Rank processes share their copies (memfds,
/// FakeVmm.cpp), so another process's publish may still come; within one
/// process nothing else runs meanwhile, so the default is not to wait.
double pollWaitMs() {
  const char *wait = std::getenv("FAKE_CUDA_POLL_WAIT_MS");
  return wait ? std::atof(wait) : 0.0;
}

/// Waits up to pollWaitMs() for \p element to stop being the sentinel.
bool awaitPublish(const uint16_t *element) {
  double ms = pollWaitMs();
  if (ms <= 0)
    return false;
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::duration<double, std::milli>(ms);
  while (std::chrono::steady_clock::now() < deadline) {
    if (__atomic_load_n(element, __ATOMIC_ACQUIRE) != 0x8000)
      return true;
    std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
  return false;
}

/// The timeout \p m's polls record: the host's override, else the default.
uint64_t pollTimeout(const Module &m) {
  auto found = m.globals.find(lamport::runtime::kPollTimeoutSymbol);
  uint64_t override = 0;
  if (found != m.globals.end() && found->second->size() == sizeof(override))
    std::memcpy(&override, found->second->data(), sizeof(override));
  return override ? override : kTimeoutNs;
}

/// Reads every slot of rows < tokens; false (after the "trap") on a
/// sentinel.
bool pollAll(const Module &m, const Descriptor &d, int tokens,
             const std::function<void(int, int, int, uint16_t)> &use) {
  int32_t *words = at<int32_t>(d.stage);
  int stage = words[0];
  uint16_t *copy = at<uint16_t>(d.local);
  for (int row = 0; row < tokens; ++row)
    for (int col = 0; col < m.width; col += 8)
      for (int slot = 0; slot < m.tp; ++slot) {
        uint16_t *fragment = copy + elementOffset(m, stage, slot, row, col);
        for (int lane = 0; lane < 8; ++lane)
          if (fragment[lane] == 0x8000 && !awaitPublish(&fragment[lane])) {
            if (hangs()) {
              hung = true;
              return false;
            }
            uint32_t *record = at<uint32_t>(d.diagnostics);
            if (record && record[0] == 0 && unfilledRecord()) {
              record[0] = 1;
            } else if (record && record[0] == 0) {
              int32_t fields[6] = {d.rank, d.mailboxId, stage, slot, row, col};
              record[0] = 1;
              std::memcpy(record + 1, fields, sizeof(fields));
              record[7] = 0; // block
              uint64_t timeout = pollTimeout(m), elapsed = timeout + 1000;
              std::memcpy(record + 8, &elapsed, 8);
              std::memcpy(record + 10, &timeout, 8);
            }
            sticky = CUDA_ERROR_LAUNCH_FAILED;
            return false;
          }
        for (int lane = 0; lane < 8; ++lane) {
          use(slot, row, col + lane, fragment[lane]);
          fragment[lane] = 0x8000; // rearm
        }
      }
  words[1] = (stage + 1) % 3;
  return true;
}

void pollRows(const Module &m, const Descriptor &d, uint16_t *out, int tokens) {
  pollAll(m, d, tokens, [&](int slot, int row, int col, uint16_t v) {
    out[(uint64_t(slot) * tokens + row) * m.width + col] = v;
  });
}

void allReduce(const Module &m, const Descriptor &d, uint16_t *out,
               int tokens) {
  std::vector<float> sum(uint64_t(tokens) * m.width, 0.0f);
  bool ok = pollAll(m, d, tokens, [&](int, int row, int col, uint16_t v) {
    uint32_t w = uint32_t(v) << 16;
    float f;
    std::memcpy(&f, &w, 4);
    sum[uint64_t(row) * m.width + col] += f; // slots arrive rank-ascending
  });
  if (ok)
    for (uint64_t i = 0; i < sum.size(); ++i)
      out[i] = floatToBf16(sum[i]);
}

/// Sums [m, width] of every slot in the module's order; false after a trap.
bool reduceSlots(const Module &m, const Descriptor &d, int tokens,
                 std::vector<float> &sum) {
  std::vector<float> parts(uint64_t(m.tp) * tokens * m.width);
  bool ok = pollAll(m, d, tokens, [&](int slot, int row, int col, uint16_t v) {
    parts[(uint64_t(slot) * tokens + row) * m.width + col] = bf16ToFloat(v);
  });
  if (!ok)
    return false;
  sum.assign(uint64_t(tokens) * m.width, 0.0f);
  std::vector<float> level;
  for (uint64_t i = 0; i < sum.size(); ++i) {
    level.clear();
    for (int s = 0; s < m.tp; ++s)
      level.push_back(parts[uint64_t(s) * tokens * m.width + i]);
    if (!m.pairwise) {
      float acc = level[0];
      for (int s = 1; s < m.tp; ++s)
        acc += level[s];
      sum[i] = acc;
      continue;
    }
    while (level.size() > 1) {
      std::vector<float> next;
      for (size_t j = 0; j + 1 < level.size(); j += 2)
        next.push_back(level[j] + level[j + 1]);
      if (level.size() % 2)
        next.push_back(level.back());
      level.swap(next);
    }
    sum[i] = level[0];
  }
  return true;
}

/// A tree-shaped FP32 sum of squares, the shape of a block reduction.
float sumSquares(const float *v, int count) {
  if (count == 1)
    return v[0] * v[0];
  int half = count / 2;
  return sumSquares(v, half) + sumSquares(v + half, count - half);
}

/// The dual norm of \p tokens rows of \p r (FP32), in place on the stream.
void dualNormRows(const Module &m, int tokens, const float *r, float *stream,
                  const float *alpha, const float *beta, const uint16_t *post,
                  const uint16_t *next, uint16_t *out) {
  int h = m.width;
  std::vector<float> s2(h);
  for (int row = 0; row < tokens; ++row) {
    const float *rr = r + uint64_t(row) * h;
    float *st = stream + uint64_t(row) * h;
    float inv1 = 1.0f / std::sqrt(sumSquares(rr, h) / float(h) + m.eps);
    for (int c = 0; c < h; ++c) {
      float hv = rr[c] * inv1;
      if (post)
        hv *= bf16ToFloat(post[c]);
      int g = m.gate == 1 ? 0 : c;
      s2[c] = std::fmaf(alpha[g], st[c], beta[g] * hv);
    }
    float inv2 = 1.0f / std::sqrt(sumSquares(s2.data(), h) / float(h) + m.eps);
    for (int c = 0; c < h; ++c) {
      st[c] = s2[c];
      out[uint64_t(row) * h + c] =
          floatToBf16(s2[c] * inv2 * bf16ToFloat(next[c]));
    }
  }
}

/// y = x W^T in FP32 from +0.0, over x's nonzeros (the rest add nothing).
void gemm(const Module &m, const uint16_t *w, const uint16_t *x, uint16_t *y,
          int tokens) {
  for (int row = 0; row < tokens; ++row) {
    std::vector<int> nonzeros;
    for (int c = 0; c < m.k; ++c)
      if (bf16ToFloat(x[uint64_t(row) * m.k + c]) != 0.0f)
        nonzeros.push_back(c);
    for (int col = 0; col < m.n; ++col) {
      float acc = 0.0f;
      for (int c : nonzeros)
        acc = std::fmaf(bf16ToFloat(x[uint64_t(row) * m.k + c]),
                        bf16ToFloat(w[uint64_t(col) * m.k + c]), acc);
      y[uint64_t(row) * m.n + col] = floatToBf16(acc);
    }
  }
}

/// A launch of a kernel with named parameters.
struct Bound {
  std::vector<char> descriptor;
  std::map<std::string, uint64_t> buffers;
  int tokens = 0;
};

void runBound(const std::string &name, const Module &m, const Bound &b) {
  auto buffer = [&](const char *role) -> uint64_t {
    auto it = b.buffers.find(role);
    return it == b.buffers.end() ? 0 : it->second;
  };
  Descriptor d{};
  if (!b.descriptor.empty())
    d = readDescriptor(b.descriptor.data());
  int tokens = b.tokens;
  if (name.rfind("gemm_publish", 0) == 0) {
    if (m.tile > 0)
      tokens = std::min(tokens, m.tile);
    uint16_t *y = at<uint16_t>(buffer("y"));
    gemm(m, at<uint16_t>(buffer("weight")), at<uint16_t>(buffer("x")), y,
         tokens);
    if (!b.descriptor.empty())
      publishRows(m, d, y, tokens);
    if (gemmLaunches++ == flipYAt())
      y[0] ^= 0x0100;
    return;
  }
  if (name.rfind("publish_rows", 0) == 0) {
    publishRows(m, d, at<uint16_t>(buffer("rows")), tokens);
    return;
  }
  uint64_t flipped = 0; // elements of out written, for flip@N
  uint16_t *out = at<uint16_t>(buffer("out"));
  if (name.rfind("all_reduce_dual_norm", 0) == 0 && buffer("partial")) {
    // Publishes now; consumes once every rank has published (or traps on
    // the missing slot when something else must run first).
    publishRows(m, d, at<uint16_t>(buffer("partial")), tokens);
    Bound consumer = b;
    consumer.buffers.erase("partial");
    waitingConsumers.push_back(
        [name, m, consumer] { runBound(name, m, consumer); });
    if (int(waitingConsumers.size()) == m.tp)
      runWaitingConsumers();
    return;
  }
  if (name.rfind("all_reduce_dual_norm", 0) == 0 ||
      name.rfind("dual_norm", 0) == 0) {
    std::vector<float> r;
    if (!b.descriptor.empty()) {
      if (!reduceSlots(m, d, tokens, r))
        return;
    } else {
      const uint16_t *reduced = at<uint16_t>(buffer("reduced"));
      r.resize(uint64_t(tokens) * m.width);
      for (uint64_t i = 0; i < r.size(); ++i)
        r[i] = bf16ToFloat(reduced[i]);
    }
    uint64_t post = buffer("post_weight");
    dualNormRows(m, tokens, r.data(), at<float>(buffer("stream")),
                 at<float>(buffer("alpha")), at<float>(buffer("beta")),
                 post ? at<uint16_t>(post) : nullptr,
                 at<uint16_t>(buffer("next_weight")), out);
    if (rankSkew() && !b.descriptor.empty() && d.rank == 1)
      out[0] ^= 0x0001;
    flipped = uint64_t(tokens) * m.width;
  } else if (name.rfind("all_gather", 0) == 0) {
    if (!pollAll(m, d, tokens, [&](int slot, int row, int col, uint16_t v) {
          out[(uint64_t(row) * m.tp + slot) * m.width + col] = v;
        }))
      return;
    flipped = uint64_t(tokens) * m.tp * m.width;
  } else if (name.rfind("poll_rows", 0) == 0) {
    pollRows(m, d, out, tokens);
    flipped = uint64_t(m.tp) * tokens * m.width;
  } else if (name.rfind("all_reduce", 0) == 0) {
    std::vector<float> sum;
    if (!reduceSlots(m, d, tokens, sum))
      return;
    for (uint64_t i = 0; i < sum.size(); ++i)
      out[i] = floatToBf16(sum[i]);
    flipped = sum.size();
  }
  if (consumerLaunches++ == flipAt())
    out[flipped - 1] ^= 0x0100;
}

void checkWords(const uint32_t *out, const uint32_t *expected, uint64_t words,
                uint32_t *result, uint32_t tag) {
  for (uint64_t i = 0; i < words; ++i)
    if (out[i] != expected[i] && result[0]++ == 0) {
      result[1] = tag;
      std::memcpy(result + 2, &i, 8);
      result[4] = out[i];
      result[5] = expected[i];
    }
}

/// "rank R stages [A, N]" of the descriptor at \p bytes, as a kernel that
/// runs now sees it.
std::string describeMailbox(const void *bytes) {
  Descriptor d = readDescriptor(bytes);
  const int32_t *words = at<int32_t>(d.stage);
  return "rank " + std::to_string(d.rank) + " stages [" +
         std::to_string(words[0]) + ", " + std::to_string(words[1]) + "]";
}

CUresult launch(CUfunction f, void **params, CUstream stream) {
  Function function = *reinterpret_cast<Function *>(f);
  const std::string &name = function.name;
  const Module &m = function.module;
  if (name == "lamport_fault_delay") {
    auto ns = *static_cast<uint64_t *>(params[0]);
    return enqueue(
        [=] {
          trace(stream, name + " ns " + std::to_string(ns));
          if (ns >= kTimeoutNs)
            heldStream = stream;
        },
        /*selfPublishing=*/true, stream);
  }
  if (name == "lamport_check_words") {
    auto out = *static_cast<CUdeviceptr *>(params[0]);
    auto expected = *static_cast<CUdeviceptr *>(params[1]);
    auto words = *static_cast<uint64_t *>(params[2]);
    auto result = *static_cast<CUdeviceptr *>(params[3]);
    auto tag = *static_cast<uint32_t *>(params[4]);
    return enqueue(
        [=] {
          trace(stream, name);
          checkWords(at<uint32_t>(out), at<uint32_t>(expected), words,
                     at<uint32_t>(result), tag);
        },
        false, stream);
  }
  if (!m.params.empty()) {
    // Copy everything now: a launch takes its parameters by value.
    Bound b;
    for (size_t i = 0; i < m.params.size(); ++i) {
      const std::string &p = m.params[i];
      if (p == "mailbox") {
        b.descriptor.resize(40 + 8 * m.tp);
        std::memcpy(b.descriptor.data(), params[i], b.descriptor.size());
      } else if (p == "tokens") {
        b.tokens = *static_cast<int *>(params[i]);
      } else {
        b.buffers[p] = *static_cast<CUdeviceptr *>(params[i]);
      }
    }
    bool selfPublishing = name.rfind("all_reduce_dual_norm", 0) == 0 &&
                          b.buffers.count("partial");
    return enqueue(
        [=] {
          trace(stream,
                b.descriptor.empty()
                    ? name
                    : name + " " + describeMailbox(b.descriptor.data()));
          runBound(name, m, b);
        },
        selfPublishing, stream);
  }
  // Copy the descriptor now: a launch takes its parameters by value.
  std::vector<char> descriptor(40 + 8 * m.tp);
  std::memcpy(descriptor.data(), params[0], descriptor.size());
  auto buffer = *static_cast<CUdeviceptr *>(params[1]);
  int tokens = *static_cast<int *>(params[2]);
  return enqueue(
      [=] {
        trace(stream, name + " " + describeMailbox(descriptor.data()));
        Descriptor d = readDescriptor(descriptor.data());
        if (name.rfind("publish_rows", 0) == 0) {
          publishRows(m, d, at<uint16_t>(buffer), tokens);
          return;
        }
        if (name.rfind("poll_rows", 0) == 0)
          pollRows(m, d, at<uint16_t>(buffer), tokens);
        else if (name.rfind("all_reduce", 0) == 0)
          allReduce(m, d, at<uint16_t>(buffer), tokens);
        if (consumerLaunches++ == flipAt())
          at<uint16_t>(buffer)[tokens * m.width - 1] ^= 0x0100;
      },
      false, stream);
}

void *allocate(size_t bytes) {
  return std::aligned_alloc(256, (bytes + 255) / 256 * 256);
}

/// The sizes of the parameters of the first `.entry` of \p text.
std::vector<size_t> readEntrySizes(const std::string &text) {
  std::vector<size_t> sizes;
  size_t entry = text.find(".entry ");
  if (entry == std::string::npos)
    return sizes;
  size_t end = text.find(')', entry);
  for (size_t at = text.find(".param", entry); at < end;
       at = text.find(".param", at + 1)) {
    std::string param = text.substr(at, text.find_first_of(",)", at) - at);
    size_t bracket = param.find('[');
    sizes.push_back(bracket != std::string::npos
                        ? size_t(std::atol(param.c_str() + bracket + 1))
                    : param.find(".u32") != std::string::npos ||
                            param.find(".b32") != std::string::npos
                        ? 4
                        : 8);
  }
  return sizes;
}

/// The `.global .align A .b8 NAME[N] = {b, ...};` arrays and the
/// `.global .align 8 .u64 NAME;` words (zero) of \p text.
std::map<std::string, std::shared_ptr<std::vector<uint8_t>>>
readGlobals(const std::string &text) {
  std::map<std::string, std::shared_ptr<std::vector<uint8_t>>> globals;
  for (size_t at = text.find(".global "); at != std::string::npos;
       at = text.find(".global ", at + 1)) {
    size_t u64 = text.find(".u64 ", at), semicolon = text.find(';', at),
           line = text.find('\n', at);
    if (u64 < line && semicolon < line && u64 < semicolon) {
      globals[text.substr(u64 + 5, semicolon - u64 - 5)] =
          std::make_shared<std::vector<uint8_t>>(8, 0);
      continue;
    }
    size_t b8 = text.find(".b8 ", at);
    size_t bracket = text.find('[', at), brace = text.find('{', at);
    if (b8 > line || bracket > line || brace > line)
      continue;
    std::string name = text.substr(b8 + 4, bracket - b8 - 4);
    auto &shared = globals[name];
    shared = std::make_shared<std::vector<uint8_t>>();
    std::vector<uint8_t> &bytes = *shared;
    for (const char *p = text.c_str() + brace + 1; *p && *p != '}';) {
      char *next = nullptr;
      long byte = std::strtol(p, &next, 10);
      if (next == p) { // a separator: ',', a space or a line break
        ++p;
        continue;
      }
      bytes.push_back(uint8_t(byte));
      p = next;
    }
  }
  return globals;
}

} // namespace

extern "C" {

CUresult cuInit(unsigned) { return CUDA_SUCCESS; }
CUresult cuDriverGetVersion(int *v) {
  *v = CUDA_VERSION;
  return CUDA_SUCCESS;
}
CUresult cuGetErrorName(CUresult e, const char **s) {
  switch (e) {
  case CUDA_ERROR_LAUNCH_FAILED:
    *s = "CUDA_ERROR_LAUNCH_FAILED";
    break;
  case CUDA_ERROR_NOT_READY:
    *s = "CUDA_ERROR_NOT_READY";
    break;
  // What the fake's cuMem* return (FakeVmm.cpp).
  case CUDA_ERROR_INVALID_VALUE:
    *s = "CUDA_ERROR_INVALID_VALUE";
    break;
  case CUDA_ERROR_OUT_OF_MEMORY:
    *s = "CUDA_ERROR_OUT_OF_MEMORY";
    break;
  case CUDA_ERROR_NOT_SUPPORTED:
    *s = "CUDA_ERROR_NOT_SUPPORTED";
    break;
  default:
    *s = "CUDA_ERROR_UNKNOWN";
  }
  return CUDA_SUCCESS;
}
CUresult cuGetErrorString(CUresult e, const char **s) {
  *s = e == CUDA_ERROR_LAUNCH_FAILED ? "unspecified launch failure"
                                     : "fake driver error";
  return CUDA_SUCCESS;
}
CUresult cuDeviceGetCount(int *count) {
  const char *env = std::getenv("FAKE_CUDA_DEVICES");
  *count = env ? std::atoi(env) : 1;
  return CUDA_SUCCESS;
}
CUresult cuDeviceGet(CUdevice *d, int ordinal) {
  *d = ordinal;
  return CUDA_SUCCESS;
}
CUresult cuDeviceGetName(char *name, int length, CUdevice) {
  std::strncpy(name, "Fake H200 (host)", length);
  return CUDA_SUCCESS;
}
CUresult cuDeviceGetAttribute(int *v, CUdevice_attribute a, CUdevice) {
  switch (a) {
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
    *v = 9;
    break;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
    *v = 0;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
    *v = 1024;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN:
    *v = 227 * 1024;
    break;
  case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
    *v = 132;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X:
    *v = 2147483647;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y:
  case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z:
    *v = 65535;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X:
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y:
    *v = 1024;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z:
    *v = 64;
    break;
  case CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED:
    *v = fakecuda::fakeFabric() ? 1 : 0;
    break;
  default:
    *v = 1;
  }
  return CUDA_SUCCESS;
}
CUresult cuDeviceCanAccessPeer(int *can, CUdevice, CUdevice) {
  *can = 1;
  return CUDA_SUCCESS;
}
CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d) {
  *c = reinterpret_cast<CUcontext>(uintptr_t(0x1000 + d));
  return CUDA_SUCCESS;
}
CUresult cuDevicePrimaryCtxRelease_v2(CUdevice) { return CUDA_SUCCESS; }
CUresult cuCtxSetCurrent(CUcontext) { return CUDA_SUCCESS; }
CUresult cuCtxSynchronize() {
  landLegacy();
  runWaitingConsumers();
  releaseHeld();
  return sticky;
}

CUresult cuModuleLoadData(CUmodule *module, const void *image) {
  auto *m = new Module;
  const char *text = static_cast<const char *>(image);
  m->entrySizes = readEntrySizes(text);
  m->globals = readGlobals(text);
  if (const char *line = std::strstr(text, "fake-kernel:")) {
    std::sscanf(line, "fake-kernel: tp=%d capacity=%d width=%d", &m->tp,
                &m->capacity, &m->width);
    std::string rest(line, std::strcspn(line, "\n"));
    auto value = [&](const char *key) -> const char * {
      size_t at = rest.find(std::string(" ") + key + "=");
      return at == std::string::npos ? nullptr
                                     : rest.c_str() + at + std::strlen(key) + 2;
    };
    if (const char *list = value("params")) {
      std::string items(list, std::strcspn(list, " "));
      for (size_t start = 0; start <= items.size();) {
        size_t comma = items.find(',', start);
        if (comma == std::string::npos)
          comma = items.size();
        m->params.push_back(items.substr(start, comma - start));
        start = comma + 1;
      }
    }
    if (const char *n = value("n"))
      m->n = std::atoi(n);
    if (const char *k = value("k"))
      m->k = std::atoi(k);
    if (const char *tile = value("tile"))
      m->tile = std::atoi(tile);
    if (const char *gate = value("gate"))
      m->gate = std::atoi(gate);
    if (const char *eps = value("eps"))
      m->eps = std::strtof(eps, nullptr);
    if (const char *order = value("order"))
      m->pairwise = std::strncmp(order, "pairwise", 8) == 0;
  }
  *module = reinterpret_cast<CUmodule>(m);
  return CUDA_SUCCESS;
}
CUresult cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned,
                            CUjit_option *, void **) {
  return cuModuleLoadData(module, image);
}
CUresult cuModuleUnload(CUmodule) { return CUDA_SUCCESS; }
CUresult cuModuleGetGlobal_v2(CUdeviceptr *address, size_t *bytes,
                              CUmodule module, const char *name) {
  auto &globals = reinterpret_cast<Module *>(module)->globals;
  auto found = globals.find(name);
  if (found == globals.end())
    return CUDA_ERROR_NOT_FOUND;
  *address = CUdeviceptr(uintptr_t(found->second->data()));
  *bytes = found->second->size();
  return CUDA_SUCCESS;
}
CUresult cuModuleGetFunction(CUfunction *f, CUmodule module, const char *name) {
  *f = reinterpret_cast<CUfunction>(
      new Function{name, *reinterpret_cast<Module *>(module)});
  return CUDA_SUCCESS;
}
CUresult cuFuncGetAttribute(int *v, CUfunction_attribute, CUfunction) {
  *v = 1024;
  return CUDA_SUCCESS;
}
CUresult cuFuncSetAttribute(CUfunction, CUfunction_attribute, int) {
  return CUDA_SUCCESS;
}
CUresult cuFuncLoad(CUfunction) { return CUDA_SUCCESS; }
/// The driver's rules for a tiled 2-D map that the runtime relies on; the
/// map records the address and box, which tests do not read.
CUresult cuTensorMapEncodeTiled(
    CUtensorMap *map, CUtensorMapDataType, cuuint32_t rank, void *address,
    const cuuint64_t *dims, const cuuint64_t *strides, const cuuint32_t *box,
    const cuuint32_t *, CUtensorMapInterleave, CUtensorMapSwizzle,
    CUtensorMapL2promotion, CUtensorMapFloatOOBfill) {
  if (!map || rank != 2 || reinterpret_cast<uintptr_t>(address) % 16 ||
      strides[0] % 16 || box[0] > 256 || box[1] > 256 || box[0] > dims[0] ||
      box[1] > dims[1])
    return CUDA_ERROR_INVALID_VALUE;
  map->opaque[0] = reinterpret_cast<uintptr_t>(address);
  map->opaque[1] = (cuuint64_t(box[1]) << 32) | box[0];
  return CUDA_SUCCESS;
}
CUresult cuFuncGetParamInfo(CUfunction f, size_t index, size_t *offset,
                            size_t *size) {
  const Function &function = *reinterpret_cast<Function *>(f);
  std::vector<size_t> sizes = {size_t(40 + 8 * function.module.tp), 8, 4};
  if (function.module.tp == 0 && !function.module.entrySizes.empty())
    sizes = function.module.entrySizes;
  if (!function.module.params.empty()) {
    sizes.clear();
    for (const std::string &p : function.module.params)
      sizes.push_back(p == "mailbox"  ? size_t(40 + 8 * function.module.tp)
                      : p == "tokens" ? 4
                                      : 8);
  }
  if (function.name == "lamport_check_words")
    sizes = {8, 8, 8, 8, 4};
  if (index >= sizes.size())
    return CUDA_ERROR_INVALID_VALUE;
  *offset = 0;
  for (size_t i = 0; i < index; ++i)
    *offset += sizes[i];
  *size = sizes[index];
  return CUDA_SUCCESS;
}

CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t bytes) {
  *p = CUdeviceptr(uintptr_t(allocate(bytes)));
  return CUDA_SUCCESS;
}
CUresult cuMemFree_v2(CUdeviceptr p) {
  std::free(at<void>(p));
  return CUDA_SUCCESS;
}
CUresult cuMemHostAlloc(void **p, size_t bytes, unsigned) {
  *p = allocate(bytes);
  return CUDA_SUCCESS;
}
CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr *d, void *p, unsigned) {
  *d = CUdeviceptr(uintptr_t(p));
  return CUDA_SUCCESS;
}
CUresult cuMemFreeHost(void *p) {
  std::free(p);
  return CUDA_SUCCESS;
}
CUresult cuMemsetD16_v2(CUdeviceptr p, unsigned short v, size_t n) {
  return onLegacyStream([=] { std::fill_n(at<uint16_t>(p), n, v); });
}
CUresult cuMemsetD32_v2(CUdeviceptr p, unsigned v, size_t n) {
  return onLegacyStream([=] { std::fill_n(at<uint32_t>(p), n, v); });
}
CUresult cuMemsetD16Async(CUdeviceptr p, unsigned short v, size_t n,
                          CUstream stream) {
  return enqueue([=] { std::fill_n(at<uint16_t>(p), n, v); }, false, stream);
}
// A copy of no bytes may name null pointers, as the driver allows; memcpy
// does not, so it is not called for one.
CUresult cuMemcpyHtoD_v2(CUdeviceptr to, const void *from, size_t n) {
  if (!n)
    return sticky;
  // The driver has copied the host bytes when the call returns.
  auto bytes = std::make_shared<std::vector<uint8_t>>(
      static_cast<const uint8_t *>(from),
      static_cast<const uint8_t *>(from) + n);
  return onLegacyStream(
      [=] { std::memcpy(at<void>(to), bytes->data(), bytes->size()); });
}
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr to, const void *from, size_t n,
                              CUstream stream) {
  // From pageable memory the driver stages the bytes before it returns.
  auto bytes = std::make_shared<std::vector<uint8_t>>(
      static_cast<const uint8_t *>(from),
      static_cast<const uint8_t *>(from) + n);
  return enqueue(
      [=] {
        if (!bytes->empty())
          std::memcpy(at<void>(to), bytes->data(), bytes->size());
      },
      false, stream);
}
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr to, CUdeviceptr from, size_t n,
                              CUstream stream) {
  return enqueue([=] { std::memcpy(at<void>(to), at<void>(from), n); }, false,
                 stream);
}
CUresult cuMemcpyDtoH_v2(void *to, CUdeviceptr from, size_t n) {
  landLegacy();
  if (sticky != CUDA_SUCCESS)
    return sticky;
  if (n)
    std::memcpy(to, at<void>(from), n);
  return CUDA_SUCCESS;
}

// Virtual memory (cuMem*) lives in FakeVmm.cpp.

CUresult cuStreamCreate(CUstream *s, unsigned) {
  *s = reinterpret_cast<CUstream>(new int(nextStream++));
  return CUDA_SUCCESS;
}
CUresult cuStreamDestroy_v2(CUstream) { return CUDA_SUCCESS; }
CUresult cuStreamQuery(CUstream) {
  runWaitingConsumers();
  releaseHeld();
  return sticky;
}
/// With FAKE_CUDA_TRACE_EVENTS set, says where a stream waits for an event
/// among the traced kernels (apart from FAKE_CUDA_TRACE, whose tests follow
/// the kernels alone).
CUresult cuStreamWaitEvent(CUstream stream, CUevent, unsigned) {
  if (std::getenv("FAKE_CUDA_TRACE_EVENTS"))
    std::fprintf(stderr, "fake-cuda: stream %d: waits for an event\n",
                 streamNumber(stream));
  return sticky;
}
/// A host function on a stream: what the fake libnccl.so.2 enqueues its
/// collectives as, so they run in stream order and a capture records them.
CUresult cuLaunchHostFunc(CUstream stream, CUhostFn function, void *data) {
  return enqueue([=] { function(data); }, false, stream);
}
CUresult cuStreamBeginCapture_v2(CUstream stream, CUstreamCaptureMode) {
  capturing = true;
  captureStream = stream;
  captured.clear();
  return sticky;
}
/// The captured stream is active; the rest, the legacy stream among them
/// (captures here are relaxed), are not.
CUresult cuStreamIsCapturing(CUstream stream, CUstreamCaptureStatus *status) {
  *status = capturing && stream == captureStream
                ? CU_STREAM_CAPTURE_STATUS_ACTIVE
                : CU_STREAM_CAPTURE_STATUS_NONE;
  return sticky;
}
/// Operations run as they are enqueued, or wait in a capture or behind a
/// held stream, which a wait for another stream does not release.
CUresult cuStreamSynchronize(CUstream) { return sticky; }
/// Each thread's mode, swapped as the driver does; captures here are
/// never invalidated, so it changes nothing else.
CUresult cuThreadExchangeStreamCaptureMode(CUstreamCaptureMode *mode) {
  thread_local CUstreamCaptureMode threadMode = CU_STREAM_CAPTURE_MODE_GLOBAL;
  std::swap(*mode, threadMode);
  return CUDA_SUCCESS;
}
CUresult cuStreamEndCapture(CUstream, CUgraph *graph) {
  capturing = false;
  *graph = reinterpret_cast<CUgraph>(new Graph{captured});
  captured.clear();
  return sticky;
}
CUresult cuEventCreate(CUevent *e, unsigned) {
  *e = reinterpret_cast<CUevent>(new double(0));
  return CUDA_SUCCESS;
}
CUresult cuEventDestroy_v2(CUevent) { return CUDA_SUCCESS; }
CUresult cuEventRecord(CUevent e, CUstream) {
  if (!capturing)
    *reinterpret_cast<double *>(e) =
        std::chrono::duration<double, std::milli>(
            std::chrono::steady_clock::now().time_since_epoch())
            .count();
  return sticky;
}
CUresult cuEventQuery(CUevent) {
  runWaitingConsumers();
  releaseHeld();
  return sticky == CUDA_SUCCESS && hung ? CUDA_ERROR_NOT_READY : sticky;
}
CUresult cuEventElapsedTime_v2(float *ms, CUevent start, CUevent end) {
  *ms = float(*reinterpret_cast<double *>(end) -
              *reinterpret_cast<double *>(start));
  return sticky;
}
CUresult cuLaunchKernel(CUfunction f, unsigned, unsigned, unsigned, unsigned,
                        unsigned, unsigned, unsigned, CUstream stream,
                        void **params, void **) {
  return launch(f, params, stream);
}
CUresult cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f,
                          void **params, void **) {
  return launch(f, params, config->hStream);
}
CUresult cuGraphInstantiateWithFlags(CUgraphExec *exec, CUgraph graph,
                                     unsigned long long) {
  *exec = reinterpret_cast<CUgraphExec>(graph);
  return sticky;
}
CUresult cuGraphLaunch(CUgraphExec exec, CUstream) {
  // The operations were wrapped when captured (enqueue): run them as they
  // are, so a replay orders waiting consumers as the eager steps did.
  for (auto &operation : reinterpret_cast<Graph *>(exec)->operations) {
    if (sticky != CUDA_SUCCESS)
      break;
    operation();
  }
  return CUDA_SUCCESS;
}
CUresult cuGraphDestroy(CUgraph) { return CUDA_SUCCESS; }
CUresult cuGraphExecDestroy(CUgraphExec) { return CUDA_SUCCESS; }

} // extern "C"
