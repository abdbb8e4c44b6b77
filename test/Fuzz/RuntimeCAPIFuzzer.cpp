//===- RuntimeCAPIFuzzer.cpp - Fuzz the runtime's C API -------------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// A libFuzzer target over include/lamport-c/Runtime.h, run over the host-only
// libcuda of test/Runtime/FakeDriver (the executable's rpath names it). An
// input is a script of calls, one a line, each a verb and its numbers
// (missing numbers are 0; what does not parse is skipped):
//
//   create B TP T DEV PDL NULL  lamportRuntimeCreate on bundle B of
//                               test/Runtime/Inputs (then a missing
//                               directory, an empty path and a null one),
//                               transport T (loopback, peer, multicast, "",
//                               null, LOOPBACK); NULL != 0 passes a null
//                               result pointer
//   destroy                     lamportRuntimeDestroy
//   device RANK NULL            lamportRuntimeGetDevice
//   alloc RANK BYTES NULL       lamportRuntimeAllocate (BYTES <= 1 MiB)
//   bind RANK ARG A OFF BYTES   lamportRuntimeBind to allocation A + OFF
//                               (A < 0: a null pointer)
//   bindall TOKENS EXTRA        allocate and bind every buffer of every
//                               rank: its bytes for TOKENS, plus EXTRA
//   upload RANK A OFF BYTES NULL    lamportRuntimeUpload into allocation A
//   download RANK A OFF BYTES NULL  lamportRuntimeDownload from it
//   step TOKENS WATCHDOG        lamportRuntimeStep (WATCHDOG as strtod
//                               reads it: nan, inf and 1e300 included)
//   timeout NS                  lamportRuntimeSetPollTimeout (NS as
//                               strtoull reads it: -1 is UINT64_MAX)
//
// Calls before a create, or after a failed one, pass a null runtime. The
// script never lies about memory, because the runtime cannot check what a
// caller's pointers hold: a bound or copied range always lies inside an
// allocation the runtime made. Within that contract any crash, sanitizer
// report or exception escaping the C API is a finding.
//
//===----------------------------------------------------------------------===//

#include "lamport-c/Runtime.h"

#include "lamport/Runtime/Error.h"
#include "lamport/Runtime/Manifest.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

using namespace lamport::runtime;

namespace {

/// The bundles of test/Runtime/Inputs whose stand-in PTX the host-only
/// driver runs.
const char *const kBundles[] = {
    "publish_poll_tp2", "all_reduce_tp4",         "attention_tp2",
    "reduce_norm_tp4",  "unpooler_tp4",           "attention_unfused_tp2",
    "no_images",        "attention_dispatch_tp2", "attention_channel_tp4"};
constexpr int kBundleCount = sizeof(kBundles) / sizeof(kBundles[0]);

/// The largest allocation a script makes: the host-only driver's device
/// memory is the fuzzer's own heap.
constexpr int64_t kMaxAllocation = 1 << 20;

/// The manifest of `bundle`, for the script's own bookkeeping (bindall);
/// none where it does not load.
std::optional<Manifest> readManifest(const std::string &bundle) {
  std::ifstream file(bundle + "/manifest.json");
  std::stringstream text;
  text << file.rdbuf();
  try {
    return parseManifest(text.str());
  } catch (const Error &) {
    return std::nullopt;
  }
}

/// The errors go nowhere; the call's status is what matters.
void ignoreError(const char *, size_t, void *) {}

struct Allocation {
  uint64_t pointer;
  uint64_t bytes;
};

/// One script's state: the runtime, its manifest and what it allocated.
class Script {
public:
  ~Script() { destroy(); }

  void run(const std::string &line) {
    std::istringstream words(line);
    std::string verb;
    words >> verb;
    std::vector<std::string> rest;
    for (std::string word; words >> word && rest.size() < 8;)
      rest.push_back(word);
    auto n = [&](std::size_t i) -> int64_t {
      return i < rest.size() ? std::strtoll(rest[i].c_str(), nullptr, 0) : 0;
    };
    if (verb == "create")
      create(n(0), n(1), n(2), n(3), n(4), n(5));
    else if (verb == "destroy")
      destroy();
    else if (verb == "device")
      device(int(n(0)), n(1));
    else if (verb == "alloc")
      allocate(int(n(0)), n(1), n(2));
    else if (verb == "bind")
      bind(int(n(0)), int(n(1)), n(2), n(3), n(4));
    else if (verb == "bindall")
      bindAll(n(0), n(1));
    else if (verb == "upload" || verb == "download")
      copy(verb == "upload", int(n(0)), n(1), n(2), n(3), n(4));
    else if (verb == "step")
      lamportRuntimeStep(runtime, int(n(0)),
                         rest.size() > 1 ? std::strtod(rest[1].c_str(), nullptr)
                                         : 5.0,
                         ignoreError, nullptr);
    else if (verb == "timeout")
      lamportRuntimeSetPollTimeout(
          runtime,
          rest.empty() ? 0 : std::strtoull(rest[0].c_str(), nullptr, 0),
          ignoreError, nullptr);
  }

private:
  void create(int64_t bundle, int64_t tp, int64_t transport, int64_t device,
              int64_t pdl, int64_t nullResult) {
    destroy();
    std::string path;
    const char *bundlePath = nullptr;
    int choice = int(uint64_t(bundle) % (kBundleCount + 3));
    if (choice < kBundleCount) {
      path = std::string(LAMPORT_FUZZ_BUNDLES) + "/" + kBundles[choice];
      manifest = readManifest(path);
    } else if (choice == kBundleCount) {
      path = std::string(LAMPORT_FUZZ_BUNDLES) + "/no-such-bundle";
    }
    if (choice <= kBundleCount + 1)
      bundlePath = path.c_str();
    const char *const transports[] = {"loopback", "peer",  "multicast",
                                      "",         nullptr, "LOOPBACK"};
    const char *transportName = transports[uint64_t(transport) % 6];
    lamportRuntimeCreate(bundlePath, int(tp), transportName, int(device),
                         int(pdl), nullResult ? nullptr : &runtime, ignoreError,
                         nullptr);
    if (!runtime)
      manifest.reset();
    else
      this->tp = int(tp);
  }

  void destroy() {
    lamportRuntimeDestroy(runtime);
    runtime = nullptr;
    manifest.reset();
    allocations.clear();
  }

  void device(int rank, int64_t nullResult) {
    int ordinal = 0;
    lamportRuntimeGetDevice(runtime, rank, nullResult ? nullptr : &ordinal,
                            ignoreError, nullptr);
  }

  void allocate(int rank, int64_t bytes, int64_t nullResult) {
    if (bytes < 0 || bytes > kMaxAllocation)
      return;
    uint64_t pointer = 0;
    if (lamportRuntimeAllocate(runtime, rank, uint64_t(bytes),
                               nullResult ? nullptr : &pointer, ignoreError,
                               nullptr) == LAMPORT_STATUS_OK &&
        !nullResult)
      allocations.push_back({pointer, uint64_t(bytes)});
  }

  /// A range inside allocation `which` from `offset` (both wrapped into
  /// range), at most `bytes` long; none where nothing is allocated.
  std::optional<Allocation> rangeOf(int64_t which, int64_t offset,
                                    int64_t bytes) const {
    if (allocations.empty())
      return std::nullopt;
    const Allocation &a = allocations[uint64_t(which) % allocations.size()];
    uint64_t start = uint64_t(offset) % (a.bytes + 1);
    uint64_t length = std::min<uint64_t>(uint64_t(bytes), a.bytes - start);
    return Allocation{a.pointer + start, length};
  }

  void bind(int rank, int argument, int64_t which, int64_t offset,
            int64_t bytes) {
    Allocation range{0, uint64_t(bytes)};
    if (which >= 0) {
      std::optional<Allocation> inside = rangeOf(which, offset, bytes);
      if (!inside)
        return;
      range = *inside;
    }
    lamportRuntimeBind(runtime, rank, argument, range.pointer, range.bytes,
                       ignoreError, nullptr);
  }

  void bindAll(int64_t tokens, int64_t extra) {
    if (!manifest || tokens < 1 || tokens > manifest->maxTokens())
      return;
    for (const ArgumentSpec &arg : manifest->arguments) {
      if (arg.kind != ArgumentKind::Buffer)
        continue;
      int64_t bytes = int64_t(arg.bytes(int(tokens))) + extra % 64;
      if (bytes < 0 || bytes > kMaxAllocation)
        continue;
      for (int rank = 0; rank < tp; ++rank) {
        uint64_t pointer = 0;
        if (lamportRuntimeAllocate(runtime, rank, uint64_t(bytes), &pointer,
                                   ignoreError, nullptr) != LAMPORT_STATUS_OK)
          return;
        allocations.push_back({pointer, uint64_t(bytes)});
        lamportRuntimeBind(runtime, rank, arg.index, pointer, uint64_t(bytes),
                           ignoreError, nullptr);
      }
    }
  }

  void copy(bool upload, int rank, int64_t which, int64_t offset, int64_t bytes,
            int64_t nullHost) {
    std::optional<Allocation> range = rangeOf(which, offset, bytes);
    if (!range)
      return;
    static std::vector<uint8_t> host(kMaxAllocation, 0x5a);
    uint8_t *hostPointer = nullHost ? nullptr : host.data();
    if (upload)
      lamportRuntimeUpload(runtime, rank, range->pointer, hostPointer,
                           range->bytes, ignoreError, nullptr);
    else
      lamportRuntimeDownload(runtime, rank, hostPointer, range->pointer,
                             range->bytes, ignoreError, nullptr);
  }

  LamportRuntime runtime = nullptr;
  int tp = 0;
  std::optional<Manifest> manifest;
  std::vector<Allocation> allocations;
};

} // namespace

/// No leak checks: the host-only driver never frees its modules, functions
/// and events (its unload and destroy calls are no-ops), so every input
/// that creates a runtime would trigger a whole-heap leak scan, which cuts
/// the executions per second fivefold.
extern "C" const char *__asan_default_options() { return "detect_leaks=0"; }

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  // Eight devices, so the peer transport can bring up every group size of
  // the bundles (the host-only driver reads this when asked).
  setenv("FAKE_CUDA_DEVICES", "8", /*overwrite=*/0);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  std::istringstream lines(text);
  Script script;
  int calls = 0;
  for (std::string line; std::getline(lines, line) && calls < 64; ++calls)
    script.run(line);
  return 0;
}
