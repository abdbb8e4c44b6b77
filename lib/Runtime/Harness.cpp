//===- Harness.cpp - Decode steps, checked and timed ----------------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#include "lamport/Runtime/Harness.h"
#include "lamport/Runtime/Driver.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iomanip>
#include <map>

namespace lamport {
namespace runtime {

namespace {

std::string hex16(uint16_t bits) {
  std::ostringstream os;
  os << "0x" << std::hex << std::setw(4) << std::setfill('0') << bits;
  return os.str();
}

std::string shapeText(const std::vector<int64_t> &shape) {
  std::string text = "[";
  for (std::size_t i = 0; i < shape.size(); ++i)
    text += concat(i ? ", " : "", shape[i]);
  return text + "]";
}

uint64_t fnv1a(const std::vector<uint16_t> &words) {
  uint64_t hash = 0xCBF29CE484222325ull;
  for (uint16_t word : words)
    for (int b = 0; b < 2; ++b) {
      hash ^= (word >> (8 * b)) & 0xFF;
      hash *= 0x100000001B3ull;
    }
  return hash;
}

/// The first parameter of \p kind of \p kernel, or null.
const ParamSpec *firstParam(const KernelSpec &kernel, ParamKind kind) {
  for (const ParamSpec &param : kernel.params)
    if (param.kind == kind)
      return &param;
  return nullptr;
}

} // namespace

bool hasReference(const std::string &op) {
  return op == "poll_rows" || op == "all_reduce";
}

void summarizeLatency(RunReport &report) {
  std::vector<double> sorted = report.stepMicros;
  if (sorted.empty())
    return;
  std::sort(sorted.begin(), sorted.end());
  auto at = [&](double q) {
    std::size_t i = std::size_t(std::ceil(q * sorted.size())) - 1;
    return sorted[std::min(i, sorted.size() - 1)];
  };
  report.medianMicros = at(0.5);
  report.p99Micros = at(0.99);
  report.minMicros = sorted.front();
  double sum = 0;
  for (double v : sorted)
    sum += v;
  report.meanMicros = sum / sorted.size();
}

/// A consumer kernel and what its host reference needs.
struct Harness::Consumer {
  int kernel = -1;
  std::string op;
  int mailbox = -1; ///< Index into the manifest's mailboxes.
  int rowsArg = -1; ///< What the mailbox's publisher publishes.
  int outArg = -1;
  SumOrder order = SumOrder::RankAscending;
};

Harness::Harness(const Bundle &bundle, const RunOptions &options)
    : bundle(bundle), options(options) {
  const Manifest &m = bundle.manifest;
  for (const MailboxSpec &mailbox : m.mailboxes) {
    if (mailbox.tp != options.tp)
      throw Error(concat("--tp ", options.tp, " does not match mailbox '",
                         mailbox.name, "' of the bundle (tp = ", mailbox.tp,
                         ")"));
    if (options.tokens > mailbox.capacity)
      throw Error(concat("--tokens ", options.tokens,
                         " exceeds the capacity of mailbox '", mailbox.name,
                         "' (", mailbox.capacity, ")"));
  }
  if (m.mailboxes.empty())
    throw Error(concat("bundle '", bundle.directory,
                       "' has no mailbox: nothing for lamport-run to run"));
  bool publishes = false;
  for (int k : m.launches)
    publishes |= m.kernels[k].publishes();
  if (options.skipPublishRank >= 0 && !publishes)
    throw Error("--skip-publish: no launch of this bundle publishes, so "
                "there is nothing to skip");
  for (const KernelSpec &kernel : m.kernels)
    if (std::optional<std::string> timeout = kernel.attribute("timeout_ns")) {
      char *end = nullptr;
      unsigned long long value = std::strtoull(timeout->c_str(), &end, 10);
      if (timeout->empty() || *end || value == 0)
        throw Error(concat("kernel '", kernel.name,
                           "': attribute timeout_ns "
                           "must be a positive integer, got '",
                           *timeout, "'"));
      timeoutNs = std::max<uint64_t>(timeoutNs, value);
    }
  watchdog = options.watchdogSeconds > 0
                 ? options.watchdogSeconds
                 : (timeoutNs ? 2.0 * double(timeoutNs) / 1e9 + 10.0 : 30.0);
  planReferences();

  batch = options.graph
              ? options.batch
              : int(std::min<uint64_t>(uint64_t(options.batch), options.steps));
  // A stale row is input set j - 3 (mod B) arriving at step position j: with
  // fewer than 4 positions it could be set j itself and go unnoticed.
  batch = std::max<int>(batch, int(std::min<uint64_t>(options.steps, 4)));
  int capacity = m.mailboxes.front().capacity;
  for (const MailboxSpec &mailbox : m.mailboxes)
    capacity = std::min(capacity, mailbox.capacity);
  for (int j = 0; j < batch; ++j)
    tokens.push_back(options.tokens ? options.tokens : 1 + j % capacity);

  SessionConfig config;
  config.tp = options.tp;
  config.transport = options.transport;
  config.firstDevice = options.device;
  config.allowMulticast = options.allowMulticast;
  config.pdl = !options.noPdl;
  session = std::make_unique<Session>(bundle, config);
  allocateBuffers();
  if (options.check)
    computeExpected();
  prepareParams();
  for (int j = 0; j < batch; ++j) {
    startEvents.push_back(session->createEvent(true));
    endEvents.push_back(session->createEvent(true));
  }
}

Harness::~Harness() = default;

void Harness::planReferences() {
  const Manifest &m = bundle.manifest;
  std::map<int, int> published; // mailbox argument -> rows argument
  patterns.assign(m.arguments.size(), PatternKind::Bits);
  for (int k : m.launches) {
    const KernelSpec &kernel = m.kernels[k];
    const ParamSpec *mailboxParam = firstParam(kernel, ParamKind::Mailbox);
    const ParamSpec *bufferParam = firstParam(kernel, ParamKind::Buffer);
    std::string who = concat("kernel '", kernel.name, "' (", kernel.op, ")");
    if (kernel.op == "publish_rows") {
      if (!mailboxParam || !bufferParam)
        throw Error(concat(who, ": needs a mailbox and a rows parameter"));
      published[mailboxParam->argument] = bufferParam->argument;
      continue;
    }
    if (kernel.op == "all_reduce" && bufferParam && mailboxParam) {
      auto source = published.find(mailboxParam->argument);
      if (source != published.end())
        patterns[source->second] = PatternKind::Integers;
    }
    if (kernel.publishes() || !options.check)
      continue;
    if (!hasReference(kernel.op))
      throw Error(concat(who, ": lamport-run has no host reference for op '",
                         kernel.op, "'; run it without --check"));
    if (!mailboxParam || !bufferParam)
      throw Error(concat(who, ": needs a mailbox and an output parameter"));
    auto consumer = std::make_unique<Consumer>();
    consumer->kernel = k;
    consumer->op = kernel.op;
    consumer->mailbox = m.arguments[mailboxParam->argument].mailbox;
    consumer->outArg = bufferParam->argument;
    auto source = published.find(mailboxParam->argument);
    if (source == published.end())
      throw Error(concat(who, ": no earlier launch publishes into mailbox '",
                         m.mailboxes[consumer->mailbox].name,
                         "', so its result has no reference"));
    consumer->rowsArg = source->second;
    if (kernel.op == "all_reduce") {
      consumer->order = parseSumOrder(
          kernel.attribute("sum_order").value_or("rank_ascending"));
      patterns[consumer->rowsArg] = PatternKind::Integers;
    }
    // The shapes the references assume.
    const MailboxSpec &mailbox = m.mailboxes[consumer->mailbox];
    const ArgumentSpec &rows = m.arguments[consumer->rowsArg];
    const ArgumentSpec &out = m.arguments[consumer->outArg];
    if (rows.dtype != DType::BF16 || rows.shape.size() != 2 ||
        (rows.shape[0] != -1 && rows.shape[0] != mailbox.capacity) ||
        rows.shape[1] != mailbox.width)
      throw Error(concat("argument '", rows.name, "' published into mailbox '",
                         mailbox.name, "' has shape ", shapeText(rows.shape),
                         " ", dtypeName(rows.dtype), ", expected [-1, ",
                         mailbox.width, "] (or [", mailbox.capacity, ", ",
                         mailbox.width, "]) bf16"));
    bool shapeOk = out.dtype == DType::BF16 && out.io != BufferIO::In;
    if (kernel.op == "poll_rows")
      shapeOk &= out.shape.size() == 3 && out.shape[0] == mailbox.tp &&
                 (out.shape[1] == -1 || out.shape[1] == mailbox.capacity) &&
                 out.shape[2] == mailbox.width;
    else
      shapeOk &= out.shape.size() == 2 &&
                 (out.shape[0] == -1 || out.shape[0] == mailbox.capacity) &&
                 out.shape[1] == mailbox.width;
    if (!shapeOk)
      throw Error(concat(who, ": output '", out.name, "' has shape ",
                         shapeText(out.shape), " ", dtypeName(out.dtype),
                         ", which ", kernel.op, " of mailbox '", mailbox.name,
                         "' cannot write"));
    if (std::find(outputs.begin(), outputs.end(), consumer->outArg) ==
        outputs.end())
      outputs.push_back(consumer->outArg);
    consumers.push_back(std::move(consumer));
  }
}

void Harness::allocateBuffers() {
  const Manifest &m = bundle.manifest;
  int maxTokens = m.maxTokens();
  allocElements.assign(m.arguments.size(), 0);
  double total = 0;
  for (const ArgumentSpec &arg : m.arguments)
    if (arg.kind == ArgumentKind::Buffer) {
      std::size_t bytes = (arg.bytes(maxTokens) + 15) / 16 * 16;
      allocElements[arg.index] = bytes / 2;
      total += double(bytes) * batch * options.tp * (options.check ? 2 : 1);
    }
  if (total > 48.0 * (1ull << 30))
    throw Error(concat("the buffers of ", batch, " steps need ",
                       total / (1ull << 30), " GiB; lower --batch"));
  buffers.assign(m.arguments.size() * batch * options.tp, 0);
  std::vector<uint16_t> host;
  for (const ArgumentSpec &arg : m.arguments) {
    if (arg.kind != ArgumentKind::Buffer)
      continue;
    for (int j = 0; j < batch; ++j)
      for (int r = 0; r < options.tp; ++r) {
        std::string what =
            concat("argument '", arg.name, "' of step position ", j);
        CUdeviceptr pointer =
            session->allocate(r, allocElements[arg.index] * 2, what);
        buffers[bufferIndex(arg.index, j, r)] = pointer;
        if (arg.io == BufferIO::Out)
          continue;
        host.resize(allocElements[arg.index]);
        for (std::size_t i = 0; i < host.size(); ++i)
          host[i] = patternValue(patterns[arg.index], options.seed, uint32_t(j),
                                 r, i);
        session->upload(r, pointer, host.data(), host.size() * 2, what);
      }
  }
  checkResults.resize(options.tp);
  for (int r = 0; r < options.tp; ++r) {
    checkResults[r] = session->allocate(r, sizeof(CheckResult), "check result");
    CheckResult zero{};
    session->upload(r, checkResults[r], &zero, sizeof(zero), "check result");
  }
}

void Harness::computeExpected() {
  const Manifest &m = bundle.manifest;
  expectedHost.assign(m.arguments.size() * batch, {});
  expectedDevice.assign(buffers.size(), 0);
  for (int arg : outputs)
    for (int j = 0; j < batch; ++j)
      expectedHost[std::size_t(arg) * batch + j].assign(allocElements[arg],
                                                        kPoison);
  for (const auto &consumer : consumers) {
    const MailboxSpec &mailbox = m.mailboxes[consumer->mailbox];
    const ArgumentSpec &out = m.arguments[consumer->outArg];
    for (int j = 0; j < batch; ++j) {
      int tokensJ = tokens[j];
      std::vector<std::vector<uint16_t>> rows(options.tp);
      for (int r = 0; r < options.tp; ++r) {
        rows[r].resize(std::size_t(tokensJ) * mailbox.width);
        for (std::size_t i = 0; i < rows[r].size(); ++i)
          rows[r][i] = patternValue(patterns[consumer->rowsArg], options.seed,
                                    uint32_t(j), r, i);
      }
      std::vector<uint16_t> &expected =
          expectedHost[std::size_t(consumer->outArg) * batch + j];
      if (consumer->op == "poll_rows") {
        OutputLayout layout;
        layout.rowsPerSlot = out.shape[1] == -1 ? tokensJ : int(out.shape[1]);
        layout.width = mailbox.width;
        referencePollRows(rows, tokensJ, mailbox.width, layout, expected);
      } else {
        referenceAllReduce(rows, tokensJ, mailbox.width, consumer->order,
                           expected);
      }
    }
  }
  bool sharedDevice = options.transport == TransportKind::Loopback;
  for (int arg : outputs)
    for (int j = 0; j < batch; ++j) {
      const std::vector<uint16_t> &expected =
          expectedHost[std::size_t(arg) * batch + j];
      for (int r = 0; r < options.tp; ++r) {
        if (sharedDevice && r > 0) {
          expectedDevice[bufferIndex(arg, j, r)] =
              expectedDevice[bufferIndex(arg, j, 0)];
          continue;
        }
        std::string what = concat("expected '", m.arguments[arg].name,
                                  "' of step position ", j);
        CUdeviceptr pointer = session->allocate(r, expected.size() * 2, what);
        session->upload(r, pointer, expected.data(), expected.size() * 2, what);
        expectedDevice[bufferIndex(arg, j, r)] = pointer;
      }
    }
}

void Harness::prepareParams() {
  const Manifest &m = bundle.manifest;
  std::size_t kernels = m.kernels.size();
  params.assign(std::size_t(batch) * options.tp * kernels, {});
  for (int j = 0; j < batch; ++j)
    for (int r = 0; r < options.tp; ++r)
      for (std::size_t k = 0; k < kernels; ++k) {
        std::vector<void *> &list =
            params[(std::size_t(j) * options.tp + r) * kernels + k];
        for (const ParamSpec &param : m.kernels[k].params) {
          switch (param.kind) {
          case ParamKind::Mailbox:
            list.push_back(
                session->descriptor(m.arguments[param.argument].mailbox, r));
            break;
          case ParamKind::Buffer:
            list.push_back(&buffers[bufferIndex(param.argument, j, r)]);
            break;
          case ParamKind::Tokens:
            list.push_back(&tokens[j]);
            break;
          }
        }
      }
}

void Harness::enqueueStep(int j, bool checks) {
  const Manifest &m = bundle.manifest;
  session->fork();
  if (checks)
    for (int arg : outputs)
      for (int r = 0; r < options.tp; ++r)
        session->fill16Async(
            r, buffers[bufferIndex(arg, j, r)], kPoison, allocElements[arg],
            concat("output '", m.arguments[arg].name, "' with poison"));
  std::size_t kernels = m.kernels.size();
  // All ranks' first launch, then all ranks' second: publishers reach the
  // GPU before the pollers that wait for them. With --publish-barrier, the
  // first launch that is not a publish waits for every rank's publishes.
  bool barrierPending = options.publishBarrier;
  for (int k : m.launches) {
    if (barrierPending && !m.kernels[k].publishes()) {
      for (int r = 0; r < options.tp; ++r)
        session->markPublished(r);
      for (int r = 0; r < options.tp; ++r)
        session->awaitPublishes(r);
      barrierPending = false;
    }
    for (int r = 0; r < options.tp; ++r) {
      if (r == options.skipPublishRank && m.kernels[k].publishes())
        continue;
      session->launch(
          r, k, params[(std::size_t(j) * options.tp + r) * kernels + k].data());
    }
  }
  if (checks)
    for (std::size_t i = 0; i < outputs.size(); ++i)
      for (int r = 0; r < options.tp; ++r) {
        std::size_t at = bufferIndex(outputs[i], j, r);
        session->launchCheck(r, buffers[at], expectedDevice[at],
                             allocElements[outputs[i]] / 2, checkResults[r],
                             uint32_t(j * 64 + int(i)));
      }
  session->join();
}

void Harness::runEager(uint64_t first, uint64_t count, bool checks,
                       RunReport *timing) {
  lastBatchStart = std::chrono::steady_clock::now();
  for (uint64_t s = first; s < first + count; ++s) {
    int j = int(s % batch);
    session->record(startEvents[j], concat("before step ", s));
    enqueueStep(j, checks);
    session->record(endEvents[j], concat("after step ", s));
  }
  uint64_t last = first + count - 1;
  session->wait(endEvents[last % batch], watchdog + 0.01 * count,
                concat("steps ", first, "..", last));
  if (timing)
    for (uint64_t s = first; s <= last; ++s)
      timing->stepMicros.push_back(
          1000.0 *
          session->elapsedMs(startEvents[s % batch], endEvents[s % batch]));
}

std::string Harness::describeElement(int arg, int j,
                                     std::size_t element) const {
  const ArgumentSpec &spec = bundle.manifest.arguments[arg];
  std::vector<int64_t> shape = spec.shapeFor(tokens[j]);
  std::size_t written = spec.elements(tokens[j]);
  if (element >= written)
    return concat("element ", element, " (past the ", shapeText(shape),
                  " the step writes, where the poison must stay)");
  std::vector<int64_t> index(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    index[d] = int64_t(element % shape[d]);
    element /= shape[d];
  }
  static const char *names3[] = {"slot", "row", "column"};
  static const char *names2[] = {"row", "column"};
  std::string text = "[";
  for (std::size_t d = 0; d < index.size(); ++d) {
    const char *name = index.size() == 3   ? names3[d]
                       : index.size() == 2 ? names2[d]
                                           : "index";
    text += concat(d ? ", " : "", name, " ", index[d]);
  }
  return text + "]";
}

void Harness::hostVerify(uint64_t first, uint64_t count,
                         std::vector<uint64_t> *hashes, bool compareHashes,
                         bool *equal) {
  const Manifest &m = bundle.manifest;
  std::vector<uint16_t> got;
  std::size_t h = 0;
  for (uint64_t s = first; s < first + count; ++s) {
    int j = int(s % batch);
    for (int arg : outputs)
      for (int r = 0; r < options.tp; ++r, ++h) {
        const std::vector<uint16_t> &expected =
            expectedHost[std::size_t(arg) * batch + j];
        got.resize(expected.size());
        session->download(r, got.data(), buffers[bufferIndex(arg, j, r)],
                          got.size() * 2,
                          concat("output '", m.arguments[arg].name, "'"));
        uint64_t hash = fnv1a(got);
        if (compareHashes) {
          if (h >= hashes->size() || (*hashes)[h] != hash)
            *equal = false;
        } else {
          hashes->push_back(hash);
        }
        std::size_t mismatches = 0, firstBad = 0;
        for (std::size_t i = 0; i < got.size(); ++i)
          if (got[i] != expected[i] && mismatches++ == 0)
            firstBad = i;
        if (mismatches)
          throw Error(concat("wrong result: step ", s, " (m = ", tokens[j],
                             "), rank ", r, ", output '", m.arguments[arg].name,
                             "' ", describeElement(arg, j, firstBad), " is ",
                             hex16(got[firstBad]), ", expected ",
                             hex16(expected[firstBad]), " (", mismatches,
                             " of ", got.size(), " elements differ)"));
      }
  }
}

void Harness::readChecks(uint64_t first, uint64_t count) {
  const Manifest &m = bundle.manifest;
  for (int r = 0; r < options.tp; ++r) {
    CheckResult result{};
    session->download(r, &result, checkResults[r], sizeof(result),
                      "the check result");
    if (!result.mismatches)
      continue;
    int j = int(result.tag / 64);
    int arg = outputs[result.tag % 64];
    // Name the first differing BF16 of the word.
    bool lowSame = (result.got & 0xFFFF) == (result.expected & 0xFFFF);
    std::size_t element = std::size_t(result.word) * 2 + (lowSame ? 1 : 0);
    uint16_t got = uint16_t(lowSame ? result.got >> 16 : result.got);
    uint16_t expected =
        uint16_t(lowSame ? result.expected >> 16 : result.expected);
    // The chunk holds at most one step of each batch position.
    uint64_t step = first + (uint64_t(j) + batch - first % batch) % batch;
    throw Error(concat(
        "wrong result (device check of steps ", first, "..", first + count - 1,
        "): ", result.mismatches, " word(s) differ; the first seen: step ",
        step, " (m = ", tokens[j], "), rank ", r, ", output '",
        m.arguments[arg].name, "' ", describeElement(arg, j, element), " is ",
        hex16(got), ", expected ", hex16(expected)));
  }
}

RunReport Harness::run() {
  const Manifest &m = bundle.manifest;
  RunReport report;
  report.device = session->device(0).describe();
  if (options.transport == TransportKind::Peer && options.tp > 1)
    report.device +=
        concat(" .. device ", session->device(options.tp - 1).ordinal);
  report.image = session->imageDescription();
  report.mode = options.graph ? "graph" : "eager";
  report.batch = batch;
  report.checked = options.check;
  CUevent replayStart = session->createEvent(true);
  CUevent replayEnd = session->createEvent(true);
  auto replayOnce = [&](CUgraphExec graph, uint64_t first) {
    lastBatchStart = std::chrono::steady_clock::now();
    session->record(replayStart, "before a replay");
    session->replay(graph, concat("steps ", first, "..", first + batch - 1));
    session->record(replayEnd, "after a replay");
    session->wait(
        replayEnd, watchdog + 0.01 * batch,
        concat("graph replay of steps ", first, "..", first + batch - 1));
    return 1000.0 * session->elapsedMs(replayStart, replayEnd) / batch;
  };
  auto captureBatch = [&](bool checks) {
    return session->capture(
        [&] {
          for (int j = 0; j < batch; ++j)
            enqueueStep(j, checks);
        },
        concat(batch, checks ? " checked" : "", " steps"));
  };

  uint64_t done = 0; // Steps run and counted; also the next step's index.
  RunReport verifyTiming;
  if (options.check) {
    // Eager steps checked on the host, element by element (and on the
    // device, which checks the checker).
    uint64_t count = options.graph ? uint64_t(batch)
                                   : std::min<uint64_t>(batch, options.steps);
    std::vector<uint64_t> hashes;
    runEager(0, count, true, &verifyTiming);
    hostVerify(0, count, &hashes, false, nullptr);
    readChecks(0, count);
    done = count;
    report.stepsChecked = report.stepsHostChecked = count;
    if (options.graph) {
      // The same batch positions replayed from a graph must give the very
      // bytes the eager steps gave.
      checkedGraph = captureBatch(true);
      verifyTiming.stepMicros.push_back(replayOnce(checkedGraph, done));
      bool equal = true;
      hostVerify(done, batch, &hashes, true, &equal);
      readChecks(done, batch);
      report.graphEqualsEager = equal;
      if (!equal)
        throw Error("graph replay gave other bytes than the eager steps");
      done += batch;
      report.stepsChecked += batch;
      report.stepsHostChecked += batch;
    }
  }

  bool checks = options.check && !options.bench;
  uint64_t remaining = options.steps > done ? options.steps - done : 0;
  if (remaining && options.graph) {
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
    for (uint64_t t = 0; t < replays; ++t) {
      report.stepMicros.push_back(replayOnce(graph, done));
      if (checks) {
        readChecks(done, batch);
        report.stepsChecked += batch;
      }
      done += batch;
      report.steps += batch;
    }
  } else if (remaining) {
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
  report.steps += report.stepsHostChecked;
  if (report.stepMicros.empty())
    report.stepMicros = verifyTiming.stepMicros;

  double meanTokens = 0;
  for (int t : tokens)
    meanTokens += t;
  meanTokens /= tokens.size();
  for (int k : m.launches) {
    const KernelSpec &kernel = m.kernels[k];
    const ParamSpec *mailboxParam = firstParam(kernel, ParamKind::Mailbox);
    if (!kernel.publishes() || !mailboxParam)
      continue;
    const MailboxSpec &mailbox =
        m.mailboxes[m.arguments[mailboxParam->argument].mailbox];
    int publishers = options.tp - (options.skipPublishRank >= 0 ? 1 : 0);
    report.mailboxBytesPerStep +=
        double(publishers) * mailbox.tp * meanTokens * mailbox.width * 2;
  }
  summarizeLatency(report);
  return report;
}

} // namespace runtime
} // namespace lamport
