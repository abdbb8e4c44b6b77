//===- HostLaunches.h - The launches of host-lowered programs ---*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// What a runtime keeps for programs lowered by `lamport-lower-host`
// (include/lamport-c/HostRuntime.h): each rank's mailbox and stream handles,
// the programs' kernel images loaded per device, and one step's launches,
// held until the step ends and then issued every rank's i-th launch before
// any rank's (i+1)-th, as StepRunner issues a bundle's.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_LIB_RUNTIME_CAPI_HOSTLAUNCHES_H
#define LAMPORT_LIB_RUNTIME_CAPI_HOSTLAUNCHES_H

#include "lamport-c/HostRuntime.h"

#include "lamport/Runtime/Session.h"
#include "lamport/Runtime/TensorMap.h"

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

namespace lamport {
namespace runtime {
class HostLaunches;
} // namespace runtime
} // namespace lamport

/// One rank's view of one mailbox.
struct LamportMailbox_ {
  lamport::runtime::HostLaunches *host = nullptr;
  int rank = 0;
  lamport::runtime::MailboxSpec spec;
};

/// One rank's stream: where that rank's launches go.
struct LamportStream_ {
  lamport::runtime::HostLaunches *host = nullptr;
  int rank = 0;
};

/// A kernel image a program embeds; loaded per runtime and device on use.
struct LamportModule_ {
  /// Tells this module from a later one at the same address.
  uint64_t serial = 0;
  const void *image = nullptr;
  /// 0: NUL-terminated PTX.
  std::size_t bytes = 0;
  int optLevel = 3;
  std::mutex mutex;
  std::map<std::string, std::unique_ptr<LamportFunction_>> functions;
};

struct LamportFunction_ {
  LamportModule_ *module = nullptr;
  std::string name;
};

namespace lamport {
namespace runtime {

/// A launch's shape as the program asked for it.
using HostLaunchShape = LaunchShape;

class HostLaunches {
public:
  explicit HostLaunches(Session &session);
  ~HostLaunches();
  HostLaunches(const HostLaunches &) = delete;
  HostLaunches &operator=(const HostLaunches &) = delete;

  Session &getSession() { return session; }

  /// Rank \p rank's handle of mailbox \p id. Throws Error for either out of
  /// range.
  LamportMailbox_ *mailbox(int id, int rank);
  LamportStream_ *stream(int rank) { return streams[rank].get(); }
  /// Whether \p stream is a live stream handle of any runtime.
  static bool isLive(const LamportStream_ *stream);

  /// The packed descriptor of \p mailbox when the kernel's mailbox type
  /// (\p tp, \p capacity, \p width) is its shape; otherwise keeps the error
  /// for the step and returns zeros of that type's size.
  const void *descriptor(const LamportMailbox_ &mailbox, int tp, int capacity,
                         int width);

  /// The tensor map of the \p rows x \p cols BF16 buffer at \p base in
  /// boxes of \p boxInner x \p boxOuter; where the driver refuses it, keeps
  /// the error for the step and returns zeros. Valid until the next call.
  const void *tensorMap(const LamportMailbox_ &mailbox, const void *base,
                        int64_t rows, int64_t cols, int boxInner, int boxOuter);

  void beginStep();
  /// Throws the step's kept error, or issues its launches and waits for
  /// them (KernelFailure when the GPU fails).
  void endStep(double watchdogSeconds);

  /// Holds a launch of \p function on \p rank's stream for the step: loads
  /// it on the rank's device and copies its parameters. Throws Error (kept
  /// for the step too) outside a step, for a kernel the image lacks, or
  /// parameters the driver cannot size.
  void hold(LamportFunction_ &function, int rank, const HostLaunchShape &shape,
            void **params, int paramCount);

  /// Keeps \p message as the step's error unless one is kept already.
  void keepError(const std::string &message);

  /// Writes the session's poll timeout (Session::pollTimeout) into the
  /// override of every image loaded so far and waits for the writes, so the
  /// launches issued after it see it; an image loaded later gets it as it
  /// loads. Images without the override (no polls) are left as they are.
  void applyPollTimeout();

private:
  /// A kernel loaded on one device, and its parameters' sizes.
  struct Loaded {
    CUfunction function = nullptr;
    std::vector<std::size_t> sizes;
  };
  /// A launch of the step, parameters copied.
  struct Held {
    CUfunction function = nullptr;
    std::string name;
    HostLaunchShape shape;
    std::vector<uint8_t> bytes;
    std::vector<std::size_t> offsets;
  };

  /// An image loaded on one device.
  struct LoadedModule {
    CUmodule module = nullptr;
    /// The rank whose context holds it.
    int rank = 0;
    /// Its polls' timeout override, 0 where it has none.
    CUdeviceptr pollTimeout = 0;
  };

  const Loaded &load(LamportFunction_ &function, int rank);
  CUmodule loadModule(LamportModule_ &module, int rank);
  void issue(int rank, Held &launch);
  /// Writes the session's poll timeout into \p overrides, images' overrides
  /// in rank \p rank's context, and waits for those writes alone
  /// (writePollTimeoutsNow).
  void writePollTimeouts(int rank, const std::vector<CUdeviceptr> &overrides);
  /// Throws KernelFailure when a rank's stream reports a failure.
  void failIfStreamFailed();

  Session &session;
  /// The last tensor map lowered code asked for.
  TensorMapSlot lastTensorMap;
  std::vector<std::unique_ptr<LamportStream_>> streams;
  std::vector<std::unique_ptr<LamportMailbox_>> mailboxes; // [id * tp + rank]
  /// Loaded images by (module serial, device ordinal).
  std::map<std::pair<uint64_t, int>, LoadedModule> modules;
  std::map<std::tuple<uint64_t, std::string, int>, Loaded> functions;
  std::vector<std::unique_ptr<uint8_t[]>> zeroDescriptors;
  std::vector<std::vector<Held>> held; // per rank
  std::string error;
  bool inStep = false;
  bool failed = false;
  uint64_t steps = 0;
  CUevent done = nullptr;
};

} // namespace runtime
} // namespace lamport

#endif // LAMPORT_LIB_RUNTIME_CAPI_HOSTLAUNCHES_H
