//===- RankRuntime.h - One rank of a TP group in its own process -*- C++
//-*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// How a serving process (one process per GPU, as vLLM, SGLang or
// TensorRT-LLM run) runs a bundle: it opens one rank of the TP group from the
// bundle, its rank, tp, device and a rendezvous address. The rank's mailbox
// copies are shared with the other rank processes (RankMailboxes.h); a step
// launches the rank's kernels on the caller's stream with the caller's
// buffers and returns at once: no device-wide synchronisation, so the
// framework keeps its stream order and may capture steps into a CUDA graph
// (the stage words a replay needs live on the device). Kernels whose
// manifest says `pdl` launch with programmatic stream serialization, as the
// Session launches them.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_RUNTIME_RANKRUNTIME_H
#define LAMPORT_RUNTIME_RANKRUNTIME_H

#include "lamport/Runtime/DeviceCheck.h"
#include "lamport/Runtime/Manifest.h"
#include "lamport/Runtime/Nccl.h"
#include "lamport/Runtime/NcclPlan.h"
#include "lamport/Runtime/RankMailboxes.h"
#include "lamport/Runtime/Rendezvous.h"
#include "lamport/Runtime/TensorMap.h"
#include "lamport/Runtime/Transport.h"

#include <cuda.h>

#include <memory>
#include <string>
#include <vector>

namespace lamport {
namespace runtime {

/// Which rank to open, and where the group meets.
struct RankConfig {
  int rank = 0;
  int tp = 0;
  /// The CUDA device ordinal this process runs the rank on.
  int device = 0;
  /// The rendezvous store's address (Rendezvous.h).
  std::string rendezvous;
  /// How long to wait for the other ranks at the rendezvous.
  double rendezvousSeconds = 60;
  bool pdl = true;
  /// Mailbox: the compiled kernels over mailbox copies shared between the
  /// rank processes. Nccl: each publish_rows + all_reduce pair as one
  /// ncclAllReduce (NcclPlan.h), no mailbox allocated.
  RankTransport transport = RankTransport::Mailbox;
};

/// A caller's buffer for one argument: a device pointer, its element type
/// and its shape (row-major, contiguous).
struct BufferView {
  CUdeviceptr pointer = 0;
  DType dtype = DType::BF16;
  std::vector<int64_t> shape;
};

class RankRuntime {
public:
  /// Loads the bundle in \p directory and opens rank \p config.rank.
  RankRuntime(const std::string &directory, const RankConfig &config);
  /// Opens rank \p config.rank of \p bundle: its device's primary context,
  /// the bundle's kernels, the rendezvous, the mailbox exchange, and a
  /// barrier so no rank launches before every rank has mapped every copy.
  RankRuntime(Bundle bundle, const RankConfig &config);
  ~RankRuntime();
  RankRuntime(const RankRuntime &) = delete;
  RankRuntime &operator=(const RankRuntime &) = delete;

  const Manifest &manifest() const { return bundle.manifest; }
  int rank() const { return config.rank; }
  int tp() const { return config.tp; }
  int device() const { return config.device; }
  const DeviceProperties &deviceProperties() const { return properties; }
  /// The device's primary context (the one frameworks use).
  CUcontext context() const { return primary; }
  Rendezvous &store() { return *rendezvous; }
  RankTransport transport() const { return config.transport; }
  /// The rank's mailbox copies (the mailbox transport only).
  RankMailboxes &mailboxes();

  /// Checks \p buffers (one per argument of the manifest, in its order;
  /// mailbox arguments' entries are ignored) against a step of \p tokens
  /// tokens: a non-null 16-byte-aligned pointer, the argument's dtype and
  /// shape (-1 is \p tokens; a leading -1 may be larger). Throws Error
  /// naming the rank and the argument.
  void checkBuffers(int tokens, const std::vector<BufferView> &buffers) const;

  /// Enqueues one decode step of \p tokens tokens on \p stream (in this
  /// rank's context) over \p buffers, checked first; returns without
  /// waiting. Throws KernelFailure when a launch fails.
  void step(CUstream stream, int tokens,
            const std::vector<BufferView> &buffers);

  /// Waits for what \p stream holds, at most \p watchdogSeconds. Throws
  /// KernelFailure naming every timeout record this rank's polls left (the
  /// slot is the rank whose data never came) when the GPU fails or the
  /// watchdog fires. Under the nccl transport it also polls the
  /// communicator's asynchronous error; an error or the watchdog aborts the
  /// communicator and throws naming the rank and tp.
  void wait(CUstream stream, double watchdogSeconds, const std::string &during);

  /// Sets how long each poll of this rank's kernels waits after its first
  /// miss before it traps: \p ns, or with 0 each poll's compiled timeout
  /// again (the manifest's `timeout_ns`). The write is enqueued on \p
  /// stream, so the steps enqueued after it there see it, as do replays of
  /// graphs captured before (each kernel reads it from its image's global
  /// as it starts); steps already enqueued may see either. Set it between
  /// steps, outside a capture: long for a first step that waits out the
  /// other ranks' warm-up, short after. Throws Error naming a kernel that
  /// polls but has no override (compiled before it), and while \p stream
  /// captures a CUDA graph (a copy from the host cannot be captured; the
  /// capture goes on).
  void setPollTimeout(uint64_t ns, CUstream stream);
  /// The override setPollTimeout set, 0 for none.
  uint64_t pollTimeout() const { return pollTimeoutNs; }

  /// Steps enqueued so far.
  uint64_t steps() const { return stepsRun; }

private:
  [[noreturn]] void fail(CUresult result, const std::string &during,
                         bool watchdog = false) const;
  void makeCurrent() const;
  /// Opens the mailbox copies, or the NCCL communicator, and the kernels'
  /// parameter lists.
  void openTransport();
  /// Launches launch \p i of the manifest's step on \p stream.
  void launch(CUstream stream, std::size_t i);
  /// Enqueues the nccl transport's actions of one step.
  void stepNccl(CUstream stream, int stepTokens);
  /// Throws (aborting the communicator) if NCCL reports an asynchronous
  /// error.
  void checkNccl(const std::string &during);
  /// Releases the mailboxes, modules, context and store (also when the
  /// constructor fails half-way).
  void release();

  Bundle bundle;
  RankConfig config;
  DeviceProperties properties;
  CUdevice handle = 0;
  CUcontext primary = nullptr;
  std::vector<CUmodule> modules;
  std::vector<CUfunction> kernels;
  /// Per kernel, its image's override of its polls' timeout (0: none).
  std::vector<CUdeviceptr> pollTimeouts;
  uint64_t pollTimeoutNs = 0;
  std::unique_ptr<Rendezvous> rendezvous;
  std::unique_ptr<RankMailboxes> rankMailboxes;
  std::unique_ptr<NcclCommunicator> communicator;
  /// The nccl transport's step (planned at open).
  std::vector<NcclAction> ncclActions;
  /// What kernel parameters point at: per argument, the step's pointer.
  std::vector<CUdeviceptr> pointers;
  /// Per kernel (empty for a kernel the nccl transport replaces).
  std::vector<std::vector<void *>> params;
  /// Each kernel's tensor map parameters' bytes, by parameter index.
  std::vector<std::vector<TensorMapSlot>> tensorMaps;
  int32_t tokens = 0;
  uint64_t stepsRun = 0;
};

} // namespace runtime
} // namespace lamport

#endif // LAMPORT_RUNTIME_RANKRUNTIME_H
