//===- HarnessTiming.cpp - Running the steps and timing them --------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// How a run proceeds and what it reports: the host-checked first batch
// (and its graph replay), then eager steps or graph replays timed with
// CUDA events around them, device checks read every batch or every
// --steps-per-check steps, the mailbox bytes per step and the latency
// summary.
//
//===----------------------------------------------------------------------===//

#include "lamport/Check/Harness.h"
#include "lamport/Check/Statistics.h"

#include <algorithm>

namespace lamport {
namespace check {

using namespace runtime;

namespace {

/// The first parameter of \p kind of \p kernel, or null.
const ParamSpec *firstParam(const KernelSpec &kernel, ParamKind kind) {
  for (const ParamSpec &param : kernel.params)
    if (param.kind == kind)
      return &param;
  return nullptr;
}

} // namespace

void summarizeLatency(RunReport &report) {
  if (report.stepMicros.empty())
    return;
  LatencyStats stats = summarizeSamples(report.stepMicros);
  report.medianMicros = stats.median;
  report.p99Micros = stats.p99;
  report.minMicros = stats.min;
  report.meanMicros = stats.mean;
}

RunReport Harness::run() {
  try {
    return runSteps();
  } catch (const KernelFailure &) {
    throw;
  } catch (const Error &e) {
    // Any call of a failed context returns its error, so a trap can surface
    // in a call that only enqueues (a join's event record): one more call
    // that fails goes through Session::fail, which names the timeout
    // records. A context that still works leaves the error as it was.
    if (replayEnd)
      session->record(replayEnd, concat("after this error: ", e.what()));
    throw;
  }
}

RunReport Harness::runSteps() {
  RunReport report;
  report.device = session->device(0).describe();
  if (options.transport == TransportKind::Peer && options.tp > 1)
    report.device +=
        concat(" .. device ", session->device(options.tp - 1).ordinal);
  report.image = session->imageDescription();
  report.mode = !options.graph      ? "eager"
                : options.pipelined ? "pipelined"
                                    : "graph";
  report.batch = batch;
  report.checked = options.check;
  replayStart = session->createEvent(true);
  replayEnd = session->createEvent(true);
  chunkStart.clear();
  chunkEnd.clear();
  // --steps-per-check: graph replays between reads of the device checks'
  // results (one batch by default); each replay is still timed.
  uint64_t perRead = 1;
  if (options.graph && options.stepsPerCheck > uint64_t(batch))
    perRead = (options.stepsPerCheck + batch - 1) / batch;

  // Steps run and counted; also the next step's index.
  RunReport verifyTiming;
  uint64_t done = options.check ? runHostChecked(report, verifyTiming) : 0;

  bool checks = options.check && !options.bench;
  uint64_t remaining = options.steps > done ? options.steps - done : 0;
  if (remaining && options.graph)
    runGraphs(report, done, remaining, checks, perRead);
  else if (remaining)
    runEagerSteps(report, done, remaining, checks);
  report.steps += report.stepsHostChecked;
  if (report.stepMicros.empty())
    report.stepMicros = verifyTiming.stepMicros;

  countMailboxBytes(report);
  if (options.check)
    reportChecks(report, checks, perRead);
  report.setupSeconds = setupSeconds;
  report.simulationSeconds = simulationSeconds;
  report.inputSeconds = inputSeconds;
  summarizeLatency(report);
  return report;
}

uint64_t Harness::runHostChecked(RunReport &report, RunReport &timing) {
  // Eager steps checked on the host, element by element (and on the
  // device, which checks the checker).
  uint64_t count = options.graph ? uint64_t(batch)
                                 : std::min<uint64_t>(batch, options.steps);
  std::vector<uint64_t> hashes;
  runEager(0, count, true, &timing);
  hostVerify(0, count, &hashes, false, nullptr);
  readChecks(0, count);
  uint64_t done = count;
  report.stepsChecked = report.stepsHostChecked = count;
  if (!options.graph)
    return done;
  // The same batch positions replayed from a graph must give the very
  // bytes the eager steps gave.
  checkedGraph = captureBatch(true);
  timing.stepMicros.push_back(replayOnce(checkedGraph, done));
  bool equal = true;
  hostVerify(done, batch, &hashes, true, &equal);
  readChecks(done, batch);
  report.graphEqualsEager = equal;
  if (!equal)
    throw Error("graph replay gave other bytes than the eager steps");
  done += batch;
  report.stepsChecked += batch;
  report.stepsHostChecked += batch;
  return done;
}

void Harness::runGraphs(RunReport &report, uint64_t &done, uint64_t remaining,
                        bool checks, uint64_t perRead) {
  CUgraphExec graph = checks ? checkedGraph : nullptr;
  if (!graph)
    graph = checks ? (checkedGraph = captureBatch(true))
                   : (plainGraph = captureBatch(false));
  if (options.bench) {
    replayOnce(graph, done); // warm-up, not counted
    done += batch;
    if (checks)
      readChecks(done - batch, batch);
  }
  uint64_t replays = (remaining + batch - 1) / batch;
  uint64_t chunk = checks ? perRead : 1;
  for (uint64_t t = 0; t < replays; t += chunk) {
    uint64_t n = std::min(chunk, replays - t);
    replayChunk(graph, done, n, report.stepMicros);
    if (checks) {
      readChecks(done, n * batch);
      report.stepsChecked += n * batch;
    }
    done += n * batch;
    report.steps += n * batch;
  }
}

void Harness::runEagerSteps(RunReport &report, uint64_t &done,
                            uint64_t remaining, bool checks) {
  if (options.bench) {
    uint64_t warm = std::min<uint64_t>(batch, remaining);
    runEager(done, warm, checks, nullptr); // warm-up, not counted
    done += warm;
  }
  while (remaining) {
    uint64_t count = std::min<uint64_t>(batch, remaining);
    runEager(done, count, checks, &report);
    if (checks) {
      readChecks(done, count);
      report.stepsChecked += count;
    }
    done += count;
    remaining -= count;
    report.steps += count;
  }
}

CUgraphExec Harness::captureBatch(bool checks) {
  return session->capture(
      [&] {
        // --pipelined: one fork and one join around the batch, so each
        // rank runs its steps back to back.
        bool pipelined = options.pipelined;
        if (pipelined)
          session->fork();
        for (int j = 0; j < batch; ++j)
          enqueueStep(j, checks, !pipelined);
        if (pipelined)
          session->join();
      },
      concat(batch, checks ? " checked" : "", " steps"));
}

double Harness::replayOnce(CUgraphExec graph, uint64_t first) {
  lastBatchStart = std::chrono::steady_clock::now();
  session->record(replayStart, "before a replay");
  session->replay(graph, concat("steps ", first, "..", first + batch - 1));
  session->record(replayEnd, "after a replay");
  session->wait(
      replayEnd, waitSeconds(batch),
      concat("graph replay of steps ", first, "..", first + batch - 1));
  return 1000.0 * session->elapsedMs(replayStart, replayEnd) / batch;
}

void Harness::replayChunk(CUgraphExec graph, uint64_t first, uint64_t n,
                          std::vector<double> &samples) {
  while (chunkStart.size() < n) {
    chunkStart.push_back(session->createEvent(true));
    chunkEnd.push_back(session->createEvent(true));
  }
  uint64_t last = first + n * batch - 1;
  lastBatchStart = std::chrono::steady_clock::now();
  for (uint64_t c = 0; c < n; ++c) {
    session->record(chunkStart[c], "before a replay");
    session->replay(graph, concat("steps ", first + c * batch, "..",
                                  first + (c + 1) * batch - 1));
    session->record(chunkEnd[c], "after a replay");
  }
  session->wait(chunkEnd[n - 1], waitSeconds(batch * n),
                concat("graph replays of steps ", first, "..", last));
  for (uint64_t c = 0; c < n; ++c)
    samples.push_back(1000.0 * session->elapsedMs(chunkStart[c], chunkEnd[c]) /
                      batch);
}

void Harness::countMailboxBytes(RunReport &report) const {
  const Manifest &m = bundle.manifest;
  for (std::size_t i = 0; i < m.launches.size(); ++i) {
    // The mean M of the steps this launch runs in, over all steps: an op's
    // alternatives share its bytes by the steps each runs.
    double meanTokens = 0;
    for (int t : tokens)
      meanTokens += m.launchRuns(i, t) ? t : 0;
    meanTokens /= tokens.size();
    const KernelSpec &kernel = m.kernels[m.launches[i]];
    const ParamSpec *mailboxParam = firstParam(kernel, ParamKind::Mailbox);
    if (!kernel.publishes() || !mailboxParam)
      continue;
    const MailboxSpec &mailbox =
        m.mailboxes[m.arguments[mailboxParam->argument].mailbox];
    int publishers = options.tp - (options.skipPublishRank >= 0 ? 1 : 0);
    double bytes =
        double(publishers) * mailbox.tp * meanTokens * mailbox.width * 2;
    report.mailboxBytesPerStep += bytes;
    report.mailboxBytesByKernel.emplace_back(kernel.name, bytes);
  }
}

void Harness::reportChecks(RunReport &report, bool checks,
                           uint64_t perRead) const {
  const Manifest &m = bundle.manifest;
  report.stepsPerCheck =
      checks ? (options.graph ? perRead : 1) * uint64_t(batch) : 0;
  for (std::size_t o = 0; o < outputs.size(); ++o) {
    const std::string &name = m.arguments[outputs[o].arg].name;
    report.outputHashes.emplace_back(name, hashesByOutput[o]);
    if (outputs[o].check == OutputCheck::Norm) {
      report.normErrorVsBound.emplace_back(name, normWorst[o]);
      report.normErrorVsBoundMax =
          std::max(report.normErrorVsBoundMax.value_or(0.0), normWorst[o]);
    }
  }
}

} // namespace check
} // namespace lamport
