//===- Session.h - Ranks, mailboxes and launches on GPUs --------*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// A Session is one TP group of a bundle brought up on GPUs: per rank a
// device context, a stream and the bundle's kernels loaded and checked; per
// mailbox a symmetric copy on every rank (every slot the sentinel, stage
// words {0, 0}, a host-mapped timeout record) and each rank's packed
// descriptor. Transports:
//   loopback  every rank on one GPU, each its own copy; peers[] are the
//             copies on that GPU;
//   peer      rank r on device (first + r), copies from cuMemCreate mapped
//             with access for every rank's device; peers[] are the mapped
//             addresses;
//   multicast refused (see docs/runtime.md).
// Launches go through cuLaunchKernelEx with configurations built once.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_RUNTIME_SESSION_H
#define LAMPORT_RUNTIME_SESSION_H

#include "lamport/Runtime/Descriptor.h"
#include "lamport/Runtime/DeviceCheck.h"
#include "lamport/Runtime/Error.h"
#include "lamport/Runtime/Manifest.h"
#include "lamport/Runtime/StreamFork.h"
#include "lamport/Runtime/Transport.h"

#include <cuda.h>

#include <array>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace lamport {
namespace runtime {

/// A launch or wait failed on the GPU. After a trap the CUDA context is
/// poisoned: report this and exit, never continue.
class KernelFailure : public Error {
public:
  KernelFailure(const std::string &message, CUresult result,
                std::vector<TimeoutRecord> records, bool watchdog)
      : Error(message), result(result), records(std::move(records)),
        watchdog(watchdog) {}
  CUresult result;
  /// Every timeout record a poll claimed, in (mailbox, rank) order.
  std::vector<TimeoutRecord> records;
  /// True when the host watchdog fired (the GPU never answered).
  bool watchdog;
};

/// The parameter pointers of kernel \p kernel of \p manifest, in its order:
/// `descriptorOf(mailbox)` for each mailbox (the packed descriptor),
/// `bufferSlot(argument)` (where the buffer's device pointer lives) for each
/// buffer, `tensorMapSlot(param)` (a TensorMapSlot, which encodeTensorMaps
/// fills before each launch) for each tensor map, \p tokens for the token
/// count.
std::vector<void *>
kernelParamList(const Manifest &manifest, int kernel,
                const std::function<void *(int mailbox)> &descriptorOf,
                const std::function<void *(int argument)> &bufferSlot,
                const std::function<void *(int param)> &tensorMapSlot,
                int32_t *tokens);

/// Throws the KernelFailure of \p result, which a call returned while
/// \p during ran: the message names every claimed timeout record in
/// \p records (\p mailboxName names a record's mailbox id) and the
/// \p unfilled records the context failed before filling.
[[noreturn]] void
throwKernelFailure(CUresult result, const std::string &during, bool watchdog,
                   std::vector<TimeoutRecord> records, int unfilled,
                   const std::function<std::string(int)> &mailboxName);

/// Copies \p record (host-mapped, written by a poll) to \p copy; true when
/// a poll claimed and filled it, counting one claimed but left unfilled in
/// \p unfilled.
bool readTimeoutRecord(const TimeoutRecord *record, TimeoutRecord &copy,
                       int *unfilled);

/// How to bring a session up.
struct SessionConfig {
  int tp = 0;
  TransportKind transport = TransportKind::Loopback;
  int firstDevice = 0;
  bool allowMulticast = false;
  /// Launch kernels whose manifest says `pdl` with programmatic stream
  /// serialization.
  bool pdl = true;
  /// The most tokens a step will carry; 0: up to the kernels' rows (the
  /// mailbox capacity). Only the loopback residency check uses it: CTAs of
  /// rows past M exit without waiting, so only M rows' clusters must fit.
  int maxTokens = 0;
};

/// What lamport-run needs to know of device \p ordinal (\p device its
/// handle): name, compute capability, limits, cluster support. Throws Error
/// for a device without unified addressing or host-mappable memory (the
/// timeout records live in mapped host memory).
DeviceProperties queryDevice(int ordinal, CUdevice device);

/// A kernel launch's shape: what a CUlaunchConfig takes from a manifest
/// entry or from a launch of a host-lowered program.
struct LaunchShape {
  std::array<unsigned, 3> grid{1, 1, 1};
  std::array<unsigned, 3> block{1, 1, 1};
  std::array<unsigned, 3> cluster{1, 1, 1};
  unsigned sharedBytes = 0;
};

/// The launch of \p shape on \p stream: grid, block, dynamic shared
/// memory, its cluster (when larger than one CTA) and, where \p pdl is set,
/// programmatic stream serialization. The attributes are written to
/// \p attributes, which must outlive every launch with \p config. The one
/// place a CUlaunchConfig is filled in.
void setLaunchConfig(const LaunchShape &shape, CUstream stream, bool pdl,
                     CUlaunchConfig &config,
                     CUlaunchAttribute (&attributes)[2]);

/// The launch of \p kernel on \p stream as its manifest entry says: grid,
/// block, dynamic shared memory, its cluster (when larger than one CTA) and,
/// where the manifest marks it pdl and \p pdl is set, programmatic stream
/// serialization. The attributes are written to \p attributes, which must
/// outlive every launch with \p config.
void setLaunchConfig(const KernelSpec &kernel, CUstream stream, bool pdl,
                     CUlaunchConfig &config,
                     CUlaunchAttribute (&attributes)[2]);

class Session {
public:
  Session(const Bundle &bundle, const SessionConfig &config);
  ~Session();
  Session(const Session &) = delete;
  Session &operator=(const Session &) = delete;

  int tp() const { return config.tp; }
  TransportKind transport() const { return config.transport; }
  const Manifest &manifest() const { return bundle.manifest; }
  const DeviceProperties &device(int rank) const;
  /// How the kernels were loaded: "cubin" or "PTX (driver JIT)".
  const std::string &imageDescription() const { return imageText; }

  /// Makes rank \p rank's context current on this thread.
  void makeCurrent(int rank) const;
  /// Sets how long every poll of every rank waits after its first miss:
  /// \p ns, or with 0 the compiled timeouts (checkPollTimeout and
  /// checkPollTimeoutOverrides in KernelLoader.h say what it refuses), and
  /// waits until the writes alone have landed (writePollTimeoutsNow), so
  /// any stream's later launches see them. A manifest without kernels (a
  /// host-lowered program's, whose modules load at their first launch) only
  /// records it: pollTimeout().
  void setPollTimeout(uint64_t ns);
  /// The override setPollTimeout set, 0 for none.
  uint64_t pollTimeout() const { return pollTimeoutNs; }
  /// Loopback only: refuses a kernel that publishes and then polls in the
  /// same CTAs when the tp ranks' grids cannot all be resident on the GPU
  /// at once (cuOccupancyMaxActiveClusters), which would otherwise spin
  /// until its timeout.
  void checkLoopbackResidency();
  CUstream stream(int rank) const;
  /// The stream steps fork from and join into (rank 0's device).
  CUstream mainStream() const { return main; }

  /// A device allocation on rank \p rank's GPU, freed with the session.
  CUdeviceptr allocate(int rank, std::size_t bytes, const std::string &what);
  /// Copies \p bytes from the host to rank \p rank's \p to and waits until
  /// they have landed, so any stream's later work sees them.
  void upload(int rank, CUdeviceptr to, const void *from, std::size_t bytes,
              const std::string &what);
  void download(int rank, void *to, CUdeviceptr from, std::size_t bytes,
                const std::string &what);
  /// A timing-capable event on rank 0's device, destroyed with the session.
  CUevent createEvent(bool timing);

  /// The packed descriptor of \p mailbox for \p rank (stable storage: a
  /// kernel parameter may point at it).
  void *descriptor(int mailbox, int rank);

  /// The parameter pointers of kernel \p kernel for \p rank, in the
  /// manifest's order, as launch() takes them: the rank's descriptor of
  /// each mailbox, `bufferSlot(argument)` (where the buffer's device pointer
  /// lives) for each buffer, \p tokens for the token count. The pointees
  /// must outlive every launch with them.
  std::vector<void *>
  kernelParams(int rank, int kernel,
               const std::function<void *(int argument)> &bufferSlot,
               int32_t *tokens);

  /// Launches kernel \p kernel for \p rank on its stream. \p params points at
  /// each parameter's bytes, as cuLaunchKernelEx takes them.
  void launch(int rank, int kernel, void **params);

  /// Fills \p count 16-bit words at \p pointer with \p value on rank
  /// \p rank's stream (poisoning an output before a step).
  void fill16Async(int rank, CUdeviceptr pointer, uint16_t value,
                   std::size_t count, const std::string &what);

  /// Copies \p bytes from \p from to \p to, both on rank \p rank's
  /// device, on its stream (restoring an in-place input before a step).
  void copyAsync(int rank, CUdeviceptr to, CUdeviceptr from, std::size_t bytes,
                 const std::string &what);

  /// Captures what \p enqueue puts on the main stream (and the rank streams
  /// forked from it) into a graph, instantiated and owned by the session.
  CUgraphExec capture(const std::function<void()> &enqueue,
                      const std::string &what);
  /// Launches \p graph on the main stream.
  void replay(CUgraphExec graph, const std::string &what);
  /// Records \p event on the main stream.
  void record(CUevent event, const std::string &what);
  /// Milliseconds between two completed events.
  float elapsedMs(CUevent start, CUevent end);

  /// Fork: every rank's stream waits for the work enqueued so far on the
  /// main stream. Join: the main stream waits for every rank's stream. A
  /// step between the two is the whole TP group's (StreamFork.h).
  void fork();
  void join();
  /// Publish barrier: \p rank marks the end of its publishes on its stream;
  /// awaitPublishes makes \p rank's stream wait for every rank's mark.
  void markPublished(int rank);
  void awaitPublishes(int rank);

  /// Waits for \p event with a host watchdog of \p seconds. Throws
  /// KernelFailure (with the timeout records) when the GPU reports an error
  /// or the watchdog fires; \p during says what was running.
  void wait(CUevent event, double seconds, const std::string &during);

  /// Every timeout record a poll has claimed and filled so far; with
  /// \p unfilled, how many were claimed but not filled (the context failed
  /// in between).
  std::vector<TimeoutRecord> claimedTimeouts(int *unfilled = nullptr) const;
  /// The mailbox name of a record's mailbox_id (or "#id").
  std::string mailboxName(int id) const;

  /// Throws KernelFailure for \p result, which a call returned while
  /// \p during ran, with every claimed timeout record in the message.
  [[noreturn]] void fail(CUresult result, const std::string &during,
                         bool watchdog = false) const;

private:
  struct Rank;
  struct Mailbox;
  struct DeviceModules;
  struct Launch;

  void openDevices();
  /// Rank \p r's device, context, stream and events.
  void openRank(int r);
  /// Peer transport: every pair of ranks' devices can reach each other.
  void checkPeerAccess();
  /// The main stream, its fork event and the fork/join of the ranks.
  void createMainStream();
  void loadKernels();
  void createMailboxes();
  /// Rank \p r's copy of \p mailbox (the sentinel in every slot), its stage
  /// words and its timeout record.
  void createCopy(Mailbox &mailbox, int r);
  /// Peer transport: rank \p r's copy as a VMM allocation on its GPU,
  /// mapped with access for every rank's device.
  CUdeviceptr mapPeerCopy(Mailbox &mailbox, int r, std::size_t bytes,
                          const std::string &who);
  /// Every rank's descriptor of \p mailbox, once every copy exists.
  void packDescriptors(Mailbox &mailbox);
  void prepareLaunches();
  DeviceModules &modulesOf(int rank);

  const Bundle &bundle;
  SessionConfig config;
  std::vector<std::unique_ptr<Rank>> ranks;
  std::vector<std::unique_ptr<DeviceModules>> modules;
  std::vector<std::unique_ptr<Mailbox>> mailboxes;
  std::vector<std::unique_ptr<Launch>> launches; // [rank * kernels + kernel]
  struct Allocation {
    int rank;
    CUdeviceptr pointer;
  };
  std::vector<Allocation> allocations;
  std::vector<CUevent> events;
  std::vector<CUgraph> graphs;
  std::vector<CUgraphExec> graphExecs;
  CUstream main = nullptr;
  CUevent forkEvent = nullptr;
  uint64_t pollTimeoutNs = 0;
  std::unique_ptr<StreamFork> streamFork;
  std::string imageText;
};

} // namespace runtime
} // namespace lamport

#endif // LAMPORT_RUNTIME_SESSION_H
