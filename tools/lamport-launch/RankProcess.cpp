//===- RankProcess.cpp - One rank of lamport-launch -----------------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// Inputs, poison and restored inputs follow lamport-run's checked steps, so
// the host simulation's expectations (lib/Check) hold for every rank: exact
// outputs bit for bit over the whole allocation, a dual norm's within its
// bound of the FP64 reference. Each eager step is enqueued, waited for and
// checked before the next (timed as enqueue + wait); graph replays are timed
// with CUDA events, as lamport-run times its own, and go back to back unless
// their outputs are checked.
//
// A step's poison and restores go on the rank's stream, ahead of its
// kernels: cuMemset and cuMemcpyHtoD run on the legacy stream and return
// before their bytes reach device memory, and the rank's non-blocking
// stream does not wait for them, so a one-kernel boundary would read a
// half-restored residual stream or have its output poisoned after it wrote.
//
//===----------------------------------------------------------------------===//

#include "RankProcess.h"

#include "lamport/Check/Inputs.h"
#include "lamport/Check/OutputChecks.h"
#include "lamport/Check/Reference.h"
#include "lamport/Check/Simulator.h"
#include "lamport/Check/Statistics.h"
#include "lamport/Runtime/CheckedMath.h"
#include "lamport/Runtime/Driver.h"
#include "lamport/Runtime/RankRuntime.h"
#include "lamport/Runtime/Session.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>

#include <unistd.h>

namespace lamport {
namespace launch {

using namespace runtime;
using namespace check;

namespace {

std::string hex64(uint64_t value) {
  std::ostringstream os;
  os << std::hex << std::setw(16) << std::setfill('0') << value;
  return os.str();
}

/// The checked steps of one rank.
class RankSteps {
public:
  RankSteps(const RankOptions &options, RankRuntime &rank)
      : options(options), rank(rank), m(rank.manifest()),
        plan(m, options.tp, /*strict=*/true) {
    capacity = m.maxTokens();
    // NCCL sums in its own order: its all-reduces are checked within the
    // BF16 bound of the FP64 sum, not bit for bit.
    if (options.transport == RankTransport::Nccl)
      plan.checkSumsWithinBound();
    if (options.tokens > capacity)
      throw Error(concat("--tokens ", options.tokens,
                         " exceeds the mailbox capacity ", capacity));
    SimulationConfig config;
    config.tp = options.tp;
    config.seed = options.seed;
    config.allocationBytes.assign(m.arguments.size(), 0);
    for (const ArgumentSpec &arg : m.arguments)
      if (arg.kind == ArgumentKind::Buffer)
        config.allocationBytes[arg.index] = checkedRoundUp(
            arg.bytes(capacity), 16, concat("argument '", arg.name, "'"));
    bytes = config.allocationBytes;
    for (int j = 0; j < options.batch; ++j) {
      tokens.push_back(options.tokens ? options.tokens : 1 + j % capacity);
      expected.push_back(simulateStep(m, plan, config, uint32_t(j), tokens[j]));
    }
    allocateBuffers();
    LAMPORT_CU(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING),
               concat("rank ", options.rank, ": creating its stream"));
    if (options.pollTimeoutSeconds > 0)
      rank.setPollTimeout(
          uint64_t(std::llround(options.pollTimeoutSeconds * 1e9)), stream);
  }

  ~RankSteps() {
    const DriverApi &cu = api();
    for (CUevent event : replayEvents)
      cu.cuEventDestroy(event);
    for (CUgraphExec exec : {checkedExec, plainExec})
      if (exec)
        cu.cuGraphExecDestroy(exec);
    for (CUgraph graph : {checkedGraph, plainGraph})
      if (graph)
        cu.cuGraphDestroy(graph);
    for (CUdeviceptr pointer : pristineDevice)
      if (pointer)
        cu.cuMemFree(pointer);
    for (CUdeviceptr pointer : buffers)
      if (pointer)
        cu.cuMemFree(pointer);
    if (stream)
      cu.cuStreamDestroy(stream);
  }

  /// Runs step \p s and checks it; throws Error on a wrong element.
  void run(uint64_t s) {
    int j = int(s % options.batch);
    prepare(j);
    auto start = std::chrono::steady_clock::now();
    rank.step(stream, tokens[j], views(j));
    rank.wait(stream, options.watchdogSeconds,
              concat("rank ", options.rank, ": step ", s, " (", tokens[j],
                     " token(s))"));
    samples.push_back(std::chrono::duration<double, std::micro>(
                          std::chrono::steady_clock::now() - start)
                          .count());
    check(s, j);
  }

  /// Captures one batch of steps into two graphs on the rank's stream: the
  /// checked one with each step's poison and restores, and the plain one
  /// with the kernels alone, which the timed, unchecked replays run (as
  /// lamport-run --graph --bench replays its plain graph).
  void capture() {
    checkedExec = captureBatch(true, checkedGraph);
    plainExec = captureBatch(false, plainGraph);
  }

  /// Enqueues a replay of the checked or the plain graph (steps \p first ..
  /// first + batch - 1) between two timing events and returns at once.
  void enqueueReplay(uint64_t first, bool checked) {
    std::size_t slot = 2 * inFlight.size();
    while (replayEvents.size() < slot + 2) {
      CUevent event = nullptr;
      LAMPORT_CU(cuEventCreate(&event, CU_EVENT_DEFAULT),
                 concat("rank ", options.rank, ": a timing event"));
      replayEvents.push_back(event);
    }
    // Timed on the GPU, as lamport-run --graph --bench times its replays
    // (events around each, the median per step): the host's launch and
    // wake-up are not part of a step.
    LAMPORT_CU(cuEventRecord(replayEvents[slot], stream),
               concat("rank ", options.rank, ": before a replay"));
    LAMPORT_CU(cuGraphLaunch(checked ? checkedExec : plainExec, stream),
               concat("rank ", options.rank, ": replaying its graph"));
    LAMPORT_CU(cuEventRecord(replayEvents[slot + 1], stream),
               concat("rank ", options.rank, ": after a replay"));
    inFlight.push_back(first);
  }

  /// Replays enqueued and not yet waited for.
  std::size_t replaysInFlight() const { return inFlight.size(); }

  /// Waits for every enqueued replay, keeps their per-step times and checks
  /// the last one's outputs when \p checkLast (that one replayed the
  /// checked graph; only the newest replay's outputs are still there).
  void finishReplays(bool checkLast) {
    if (inFlight.empty())
      return;
    uint64_t first = inFlight.front(),
             last = inFlight.back() + options.batch - 1;
    rank.wait(stream,
              options.watchdogSeconds +
                  0.01 * options.batch * double(inFlight.size()),
              concat("rank ", options.rank, ": the replays of steps ", first,
                     "..", last));
    for (std::size_t r = 0; r < inFlight.size(); ++r) {
      float ms = 0;
      LAMPORT_CU(
          cuEventElapsedTime(&ms, replayEvents[2 * r], replayEvents[2 * r + 1]),
          concat("rank ", options.rank, ": timing a replay"));
      // The first replay warms up and is not counted, as lamport-run's.
      bool checkedReplay = checkLast && r + 1 == inFlight.size();
      if (replays++)
        (checkedReplay ? checkedSamples : plainSamples)
            .push_back(1000.0 * ms / options.batch);
    }
    uint64_t newest = inFlight.back();
    inFlight.clear();
    if (checkLast)
      for (int j = 0; j < options.batch; ++j)
        check(newest + j, j);
  }

  nlohmann::json report() const {
    auto listed = [](const std::map<std::string, std::vector<uint64_t>> &all) {
      nlohmann::json hashes = nlohmann::json::object();
      for (auto &[name, values] : all) {
        nlohmann::json list = nlohmann::json::array();
        for (uint64_t h : values)
          list.push_back(hex64(h));
        hashes[name] = list;
      }
      return hashes;
    };
    LatencyStats stats = summarizeSamples(samples);
    return {
        {"output_hashes", listed(outputHashes)},
        {"norm_output_hashes", listed(normHashes)},
        {"step_us_median", stats.median},
        // The plain graph's replays where there were any: the kernels
        // alone, as lamport-run --graph --bench times them.
        {"graph_step_us_median",
         summarizeSamples(plainSamples.empty() ? checkedSamples : plainSamples)
             .median},
        {"checked_graph_step_us_median",
         summarizeSamples(checkedSamples).median},
        {"step_us_p99", stats.p99},
        {"norm_error_vs_bound_max", worstNorm}};
  }

private:
  std::size_t index(int arg, int j) const { return arg * options.batch + j; }

  /// Allocates and fills every batch position's buffers, and the device
  /// copies of the inputs a step restores; waits until they have landed.
  void allocateBuffers() {
    buffers.assign(m.arguments.size() * options.batch, 0);
    pristine.assign(buffers.size(), {});
    pristineDevice.assign(buffers.size(), 0);
    for (const ArgumentSpec &arg : m.arguments) {
      if (arg.kind != ArgumentKind::Buffer)
        continue;
      const ArgumentPlan &p = plan.arguments[arg.index];
      for (int j = 0; j < options.batch; ++j) {
        CUdeviceptr &pointer = buffers[index(arg.index, j)];
        LAMPORT_CU(
            cuMemAlloc(&pointer, bytes[arg.index]),
            concat("rank ", options.rank, ": argument '", arg.name, "'"));
        if (!p.input && !(!p.written && arg.io != BufferIO::Out))
          continue;
        pristine[index(arg.index, j)] = inputBytes(
            p.spec, options.seed, uint32_t(j), options.rank, bytes[arg.index]);
        const std::vector<uint8_t> &host = pristine[index(arg.index, j)];
        LAMPORT_CU(cuMemcpyHtoD(pointer, host.data(), host.size()),
                   concat("rank ", options.rank, ": input '", arg.name, "'"));
        if (!p.restore)
          continue;
        CUdeviceptr &copy = pristineDevice[index(arg.index, j)];
        LAMPORT_CU(
            cuMemAlloc(&copy, host.size()),
            concat("rank ", options.rank, ": pristine '", arg.name, "'"));
        LAMPORT_CU(
            cuMemcpyHtoD(copy, host.data(), host.size()),
            concat("rank ", options.rank, ": pristine '", arg.name, "'"));
      }
    }
    LAMPORT_CU(cuCtxSynchronize(),
               concat("rank ", options.rank, ": uploading its inputs"));
  }

  /// Poisons what step \p j writes whole and restores what it updates, on
  /// the rank's stream ahead of the step's kernels.
  void prepare(int j) {
    for (const ArgumentSpec &arg : m.arguments) {
      if (arg.kind != ArgumentKind::Buffer)
        continue;
      const ArgumentPlan &p = plan.arguments[arg.index];
      CUdeviceptr pointer = buffers[index(arg.index, j)];
      if (p.poison)
        LAMPORT_CU(
            cuMemsetD16Async(pointer, kPoison, bytes[arg.index] / 2, stream),
            concat("rank ", options.rank, ": poisoning '", arg.name, "'"));
      if (p.restore)
        LAMPORT_CU(
            cuMemcpyDtoDAsync(pointer, pristineDevice[index(arg.index, j)],
                              bytes[arg.index], stream),
            concat("rank ", options.rank, ": restoring '", arg.name, "'"));
    }
  }

  /// Captures the batch's steps, with their poison and restores when
  /// \p checked, into \p graph; returns its executable graph.
  CUgraphExec captureBatch(bool checked, CUgraph &graph) {
    LAMPORT_CU(cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_RELAXED),
               concat("rank ", options.rank, ": capturing a batch"));
    for (int j = 0; j < options.batch; ++j) {
      if (checked)
        prepare(j);
      rank.step(stream, tokens[j], views(j));
    }
    LAMPORT_CU(cuStreamEndCapture(stream, &graph),
               concat("rank ", options.rank, ": capturing a batch"));
    CUgraphExec exec = nullptr;
    LAMPORT_CU(cuGraphInstantiateWithFlags(&exec, graph, 0),
               concat("rank ", options.rank, ": instantiating its graph"));
    return exec;
  }

  std::vector<BufferView> views(int j) const {
    std::vector<BufferView> list(m.arguments.size());
    for (const ArgumentSpec &arg : m.arguments)
      if (arg.kind == ArgumentKind::Buffer) {
        list[arg.index].pointer = buffers[index(arg.index, j)];
        list[arg.index].dtype = arg.dtype;
        list[arg.index].shape = arg.shapeFor(tokens[j]);
        if (arg.shape[0] == -1)
          list[arg.index].shape[0] = capacity; // The allocation's rows.
      }
    return list;
  }

  void check(uint64_t s, int j) {
    for (const ArgumentSpec &arg : m.arguments) {
      const ArgumentPlan &p = plan.arguments[arg.index];
      if (arg.kind != ArgumentKind::Buffer || p.check == OutputCheck::None)
        continue;
      std::vector<uint8_t> got(bytes[arg.index]);
      LAMPORT_CU(
          cuMemcpyDtoH(got.data(), buffers[index(arg.index, j)], got.size()),
          concat("downloading '", arg.name, "'"));
      std::string who =
          concat("rank ", options.rank, ", step ", s, " (m = ", tokens[j],
                 "), output '", arg.name, "'");
      if (s < uint64_t(options.batch)) {
        auto &list = outputHashes[arg.name];
        list.resize(options.batch);
        list[j] = fnv1a(got.data(), std::min(got.size(), arg.bytes(tokens[j])));
        if (p.check == OutputCheck::Norm) {
          auto &norms = normHashes[arg.name];
          norms.resize(options.batch);
          norms[j] = list[j];
        }
      }
      if (p.check == OutputCheck::Exact)
        checkExact(who, arg, got, *expected[j].exact[arg.index][options.rank]);
      else
        checkNorm(who, arg, got, *expected[j].norm[arg.index]);
    }
  }

  void checkExact(const std::string &who, const ArgumentSpec &arg,
                  const std::vector<uint8_t> &got,
                  const std::vector<uint8_t> &want) {
    std::size_t first = 0;
    std::size_t mismatches =
        countMismatches(dtypeBytes(arg.dtype), got, want, &first);
    if (mismatches)
      throw Error(concat(who, ": element ", first,
                         " differs from the host simulation (", mismatches,
                         " element(s) differ)"));
  }

  void checkNorm(const std::string &who, const ArgumentSpec &arg,
                 const std::vector<uint8_t> &got, const NormExpectation &norm) {
    BoundCheck found = checkWithinBound(arg.dtype, got, norm);
    if (found.violations) {
      std::size_t at = found.worstAt;
      throw Error(concat(who, ": element ", at, " is ",
                         elementValue(arg.dtype, got.data(), at),
                         ", the FP64 reference ", norm.reference[at], " +- ",
                         norm.bound[at], " (", found.violations,
                         " element(s) outside the bound)"));
    }
    if (found.outside)
      throw Error(concat(who, ": element ", found.firstOutside,
                         " past the rows the step writes changed (",
                         found.outside, " element(s))"));
    worstNorm = std::max(worstNorm, found.worst);
  }

  const RankOptions &options;
  RankRuntime &rank;
  const Manifest &m;
  ProgramPlan plan;
  int capacity = 0;
  std::vector<std::size_t> bytes;
  std::vector<int> tokens;
  std::vector<StepExpectation> expected;
  std::vector<CUdeviceptr> buffers;           ///< [arg * batch + j]
  std::vector<std::vector<uint8_t>> pristine; ///< Inputs, as uploaded.
  CUstream stream = nullptr;
  std::vector<CUdeviceptr> pristineDevice; ///< Restored inputs (graphs).
  CUgraph checkedGraph = nullptr, plainGraph = nullptr;
  CUgraphExec checkedExec = nullptr, plainExec = nullptr;
  /// A start and an end event per replay in flight.
  std::vector<CUevent> replayEvents;
  /// The first step of each replay enqueued and not yet waited for.
  std::vector<uint64_t> inFlight;
  uint64_t replays = 0;
  std::vector<double> samples;
  /// Per-step times of the plain and the checked graph's replays.
  std::vector<double> plainSamples, checkedSamples;
  /// Per output, per batch position (first batch): the FNV-1a hash of
  /// what the step writes, as lamport-run's --json output_hashes.
  std::map<std::string, std::vector<uint64_t>> outputHashes;
  /// The same for the dual norms' outputs: every rank's must be rank 0's.
  std::map<std::string, std::vector<uint64_t>> normHashes;
  double worstNorm = 0;
};

/// The timeout records a trap left, as the report lists them: what a
/// caller needs to bound how long a rank took to fail (their timeout_ns is
/// what the polls were compiled with).
nlohmann::json timeoutsJson(const std::vector<TimeoutRecord> &records) {
  nlohmann::json list = nlohmann::json::array();
  for (const TimeoutRecord &r : records)
    list.push_back({{"rank", r.rank},
                    {"mailbox_id", r.mailboxId},
                    {"stage", r.stage},
                    {"slot", r.slot},
                    {"row", r.row},
                    {"column", r.column},
                    {"block", r.block},
                    {"elapsed_ns", r.elapsedNs},
                    {"timeout_ns", r.timeoutNs}});
  return list;
}

void writeReport(const std::string &path, const nlohmann::json &report) {
  if (path.empty())
    return;
  std::ofstream out(path);
  out << report.dump(2) << "\n";
}

} // namespace

int runRank(const RankOptions &options) {
  if (options.absent)
    ::_exit(8); // Never reaches the rendezvous: no report.
  nlohmann::json report = {{"rank", options.rank}, {"steps_run", 0}};
  int code = 0;
  uint64_t done = 0;
  try {
    RankConfig config;
    config.rank = options.rank;
    config.tp = options.tp;
    config.device = options.device;
    config.rendezvous = options.rendezvous;
    config.rendezvousSeconds = options.rendezvousSeconds;
    config.pdl = options.pdl;
    config.transport = options.transport;
    report["transport"] = rankTransportName(options.transport);
    RankRuntime rank(options.bundle, config);
    // How the mailbox copies were shared (fabric or posix-fd handles).
    if (options.transport == RankTransport::Mailbox)
      report["copy_handles"] = copyHandleName(rank.mailboxes().handleType());
    RankSteps steps(options, rank);
    uint64_t eager = options.graph ? uint64_t(options.batch) : options.steps;
    for (; done < std::min(eager, options.steps); ++done) {
      if (options.dieAfterSteps >= 0 && done == uint64_t(options.dieAfterSteps))
        ::_exit(9); // A rank process that dies mid-run: no report.
      steps.run(done);
    }
    if (options.graph && done < options.steps) {
      steps.capture();
      // Unchecked replays go back to back, up to kReplaysInFlight before
      // the host waits, as a serving process replays its graphs: each rank
      // process waking on its own would otherwise put the skew between the
      // processes' wake-ups into every replay. A checked replay is waited
      // for and its outputs read before the next is enqueued.
      constexpr std::size_t kReplaysInFlight = 32;
      for (uint64_t replay = 0; done < options.steps; ++replay) {
        if (options.dieAfterSteps >= 0 &&
            done >= uint64_t(options.dieAfterSteps))
          ::_exit(9);
        bool checked = replay % options.checkEvery == 0;
        steps.enqueueReplay(done, checked);
        done += options.batch;
        if (checked || steps.replaysInFlight() == kReplaysInFlight ||
            done >= options.steps)
          steps.finishReplays(checked);
      }
      report["steps_checked_every_replays"] = options.checkEvery;
    }
    report.update(steps.report());
    // No rank's store closes while another still needs it.
    rank.store().barrier("lamport-launch/done", options.rendezvousSeconds);
    report["status"] = "pass";
  } catch (const NoDeviceError &error) {
    report["status"] = "no-device";
    report["error"] = error.what();
    code = 3;
  } catch (const KernelFailure &error) {
    report["status"] = "fail";
    report["error"] = error.what();
    report["timeouts"] = timeoutsJson(error.records);
    code = 1;
  } catch (const RendezvousTimeout &error) {
    report["status"] = "fail";
    report["error"] = error.what();
    report["missing_ranks"] = error.missing;
    code = 1;
  } catch (const std::exception &error) {
    report["status"] = "fail";
    report["error"] = error.what();
    code = done ? 1 : 2;
  }
  report["steps_run"] = done;
  if (code)
    std::cerr << "lamport-launch: rank " << options.rank << ": "
              << report["error"].get<std::string>() << "\n";
  writeReport(options.report, report);
  return code;
}

} // namespace launch
} // namespace lamport
