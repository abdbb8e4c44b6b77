//===- Harness.cpp - Decode steps, checked and timed ----------------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#include "lamport/Check/Harness.h"
#include "lamport/Check/Statistics.h"
#include "lamport/Runtime/Driver.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iomanip>
#include <map>

namespace lamport {
namespace check {

using namespace runtime;

namespace {

std::string hex16(uint16_t bits) {
  std::ostringstream os;
  os << "0x" << std::hex << std::setw(4) << std::setfill('0') << bits;
  return os.str();
}

std::string hex32(uint32_t bits) {
  std::ostringstream os;
  os << "0x" << std::hex << std::setw(8) << std::setfill('0') << bits;
  return os.str();
}

/// The first parameter of \p kind of \p kernel, or null.
const ParamSpec *firstParam(const KernelSpec &kernel, ParamKind kind) {
  for (const ParamSpec &param : kernel.params)
    if (param.kind == kind)
      return &param;
  return nullptr;
}

double gib(double bytes) { return bytes / double(1ull << 30); }

/// Element \p i of a buffer of \p dtype as a double (BF16, F32, I32).
double elementValue(DType dtype, const uint8_t *bytes, std::size_t i) {
  if (dtype == DType::BF16) {
    uint16_t v;
    std::memcpy(&v, bytes + 2 * i, 2);
    return bf16ToFloat(v);
  }
  if (dtype == DType::F32) {
    float v;
    std::memcpy(&v, bytes + 4 * i, 4);
    return v;
  }
  int32_t v;
  std::memcpy(&v, bytes + 4 * i, 4);
  return v;
}

} // namespace

bool hasReference(const std::string &op) { return hasSimulation(op); }

void summarizeLatency(RunReport &report) {
  if (report.stepMicros.empty())
    return;
  LatencyStats stats = summarizeSamples(report.stepMicros);
  report.medianMicros = stats.median;
  report.p99Micros = stats.p99;
  report.minMicros = stats.min;
  report.meanMicros = stats.mean;
}

Harness::Harness(const Bundle &bundle, const RunOptions &options)
    : bundle(bundle), options(options) {
  auto setupStart = std::chrono::steady_clock::now();
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
  // Roles, shapes and what each argument is; with --check every launch
  // must be one the simulation knows.
  plan = std::make_unique<ProgramPlan>(m, options.tp, options.check);
  if (options.check)
    for (std::size_t a = 0; a < m.arguments.size(); ++a) {
      const ArgumentPlan &p = plan->arguments[a];
      if (p.check != OutputCheck::None)
        outputs.push_back({int(a), p.check});
      if (p.poison)
        poisoned.push_back(int(a));
      if (p.restore)
        restored.push_back(int(a));
    }
  if (outputs.size() > 64)
    throw Error(concat("the program has ", outputs.size(),
                       " checked outputs; lamport-run tags at most 64"));

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

  int maxTokens = m.maxTokens();
  allocBytes.assign(m.arguments.size(), 0);
  double total = 0;
  for (const ArgumentSpec &arg : m.arguments)
    if (arg.kind == ArgumentKind::Buffer) {
      std::size_t bytes = (arg.bytes(maxTokens) + 15) / 16 * 16;
      allocBytes[arg.index] = bytes;
      total += double(bytes) * batch * options.tp;
    }
  for (const Output &output : outputs) // expected bytes
    total += double(allocBytes[output.arg]) * batch * options.tp;
  for (int arg : restored) // pristine copies
    total += double(allocBytes[arg]) * batch * options.tp;
  if (gib(total) > 48.0)
    throw Error(concat("the buffers of ", batch, " steps need ", gib(total),
                       " GiB; lower --batch"));

  // The host simulation needs no GPU: its errors come before the device's.
  auto seconds = [](std::chrono::steady_clock::time_point since) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         since)
        .count();
  };
  if (options.check) {
    auto start = std::chrono::steady_clock::now();
    simulate();
    simulationSeconds = seconds(start);
  }

  SessionConfig config;
  config.tp = options.tp;
  config.transport = options.transport;
  config.firstDevice = options.device;
  config.allowMulticast = options.allowMulticast;
  config.pdl = !options.noPdl;
  config.maxTokens = options.tokens; // 0 for "all": up to the capacity
  session = std::make_unique<Session>(bundle, config);
  if (options.check)
    checkKernel = std::make_unique<CheckKernel>(*session);
  try {
    auto start = std::chrono::steady_clock::now();
    allocateBuffers();
    inputSeconds = seconds(start);
    if (options.check)
      uploadExpected();
  } catch (const KernelFailure &) {
    throw;
  } catch (const Error &e) {
    throw Error(concat(e.what(), " (this run's buffers need ", gib(total),
                       " GiB in all for ", batch, " batch positions of ",
                       options.tp, " ranks; lower --batch)"));
  }
  prepareParams();
  for (int j = 0; j < batch; ++j) {
    startEvents.push_back(session->createEvent(true));
    endEvents.push_back(session->createEvent(true));
  }
  setupSeconds = seconds(setupStart);
}

Harness::~Harness() = default;

void Harness::simulate() {
  const Manifest &m = bundle.manifest;
  SimulationConfig config;
  config.tp = options.tp;
  config.seed = options.seed;
  config.allocationBytes = allocBytes;
  expected.resize(batch);
  for (int j = 0; j < batch; ++j)
    expected[j] = simulateStep(m, *plan, config, uint32_t(j), tokens[j]);
  golden.assign(outputs.size() * batch, {});
  hashesByOutput.assign(outputs.size(), std::vector<uint64_t>(batch, 0));
  normWorst.assign(outputs.size(), 0.0);
}

void Harness::allocateBuffers() {
  const Manifest &m = bundle.manifest;
  buffers.assign(m.arguments.size() * batch * options.tp, 0);
  pristine.assign(buffers.size(), 0);
  std::vector<uint8_t> host;
  for (const ArgumentSpec &arg : m.arguments) {
    if (arg.kind != ArgumentKind::Buffer)
      continue;
    const ArgumentPlan &p = plan->arguments[arg.index];
    bool keepPristine =
        options.check && std::find(restored.begin(), restored.end(),
                                   arg.index) != restored.end();
    std::size_t bytes = allocBytes[arg.index];
    for (int j = 0; j < batch; ++j)
      for (int r = 0; r < options.tp; ++r) {
        std::string what =
            concat("argument '", arg.name, "' of step position ", j);
        CUdeviceptr pointer = session->allocate(r, bytes, what);
        buffers[bufferIndex(arg.index, j, r)] = pointer;
        if (!p.input)
          continue;
        // Replicated inputs are the same on every rank: generated once.
        if (r == 0 || !p.spec.replicated()) {
          host.resize(bytes);
          generateInputBytes(p.spec, options.seed, uint32_t(j), r, host.data(),
                             bytes);
        }
        session->upload(r, pointer, host.data(), bytes, what);
        if (keepPristine) {
          std::string copy = concat("the pristine copy of ", what);
          CUdeviceptr saved = session->allocate(r, bytes, copy);
          session->upload(r, saved, host.data(), bytes, copy);
          pristine[bufferIndex(arg.index, j, r)] = saved;
        }
      }
  }
  checkResults.resize(options.tp);
  for (int r = 0; r < options.tp; ++r) {
    checkResults[r] = session->allocate(r, sizeof(CheckResult), "check result");
    CheckResult zero{};
    session->upload(r, checkResults[r], &zero, sizeof(zero), "check result");
  }
}

void Harness::uploadExpected() {
  const Manifest &m = bundle.manifest;
  expectedDevice.assign(buffers.size(), 0);
  goldenDevice.assign(buffers.size(), 0);
  bool sharedDevice = options.transport == TransportKind::Loopback;
  for (const Output &output : outputs) {
    int arg = output.arg;
    for (int j = 0; j < batch; ++j) {
      std::string what =
          concat("expected '", m.arguments[arg].name, "' of step position ", j);
      if (output.check == OutputCheck::Norm) {
        // Filled with rank 0's bytes once the first batch passed; until
        // then expectedDevice stays 0 and no device check runs.
        for (int r = 0; r < options.tp; ++r)
          goldenDevice[bufferIndex(arg, j, r)] =
              sharedDevice && r > 0
                  ? goldenDevice[bufferIndex(arg, j, 0)]
                  : session->allocate(r, allocBytes[arg], what);
        continue;
      }
      // One copy per distinct expectation and device.
      std::vector<std::pair<const void *, CUdeviceptr>> uploaded;
      for (int r = 0; r < options.tp; ++r) {
        const std::vector<uint8_t> &bytes = *expected[j].exact[arg][r];
        const void *key = &bytes;
        auto it = std::find_if(uploaded.begin(), uploaded.end(),
                               [&](const auto &u) { return u.first == key; });
        if (sharedDevice && it != uploaded.end()) {
          expectedDevice[bufferIndex(arg, j, r)] = it->second;
          continue;
        }
        CUdeviceptr pointer = session->allocate(r, bytes.size(), what);
        session->upload(r, pointer, bytes.data(), bytes.size(), what);
        expectedDevice[bufferIndex(arg, j, r)] = pointer;
        uploaded.emplace_back(key, pointer);
      }
    }
  }
}

void Harness::prepareParams() {
  const Manifest &m = bundle.manifest;
  std::size_t kernels = m.kernels.size();
  params.assign(std::size_t(batch) * options.tp * kernels, {});
  for (int j = 0; j < batch; ++j)
    for (int r = 0; r < options.tp; ++r)
      for (std::size_t k = 0; k < kernels; ++k)
        params[(std::size_t(j) * options.tp + r) * kernels + k] =
            session->kernelParams(
                r, int(k),
                [&](int argument) {
                  return &buffers[bufferIndex(argument, j, r)];
                },
                &tokens[j]);
}

void Harness::enqueueStep(int j, bool checks, bool forkJoin) {
  const Manifest &m = bundle.manifest;
  if (forkJoin)
    session->fork();
  if (checks) {
    // In-place inputs (the stream) start every checked step from their
    // pristine copy, so a step's result does not depend on the one before.
    for (int arg : restored)
      for (int r = 0; r < options.tp; ++r)
        session->copyAsync(
            r, buffers[bufferIndex(arg, j, r)],
            pristine[bufferIndex(arg, j, r)], allocBytes[arg],
            concat("argument '", m.arguments[arg].name, "' from its copy"));
    for (int arg : poisoned)
      for (int r = 0; r < options.tp; ++r)
        session->fill16Async(
            r, buffers[bufferIndex(arg, j, r)], kPoison, allocBytes[arg] / 2,
            concat("output '", m.arguments[arg].name, "' with poison"));
  }
  std::size_t kernels = m.kernels.size();
  // All ranks' first launch, then all ranks' second: publishers reach the
  // GPU before the pollers that wait for them. With --publish-barrier, the
  // first launch that is not a publish waits for every rank's publishes.
  // A launch whose `tokens` range leaves out this step's M does not run: of
  // an op's alternatives, only the one for this M does.
  bool barrierPending = options.publishBarrier;
  for (std::size_t i = 0; i < m.launches.size(); ++i) {
    if (!m.launchRuns(i, tokens[j]))
      continue;
    int k = m.launches[i];
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
        std::size_t at = bufferIndex(outputs[i].arg, j, r);
        // A dual norm's output has expected bytes only after the first
        // batch, which the host checks.
        if (!expectedDevice[at])
          continue;
        checkKernel->launch(r, buffers[at], expectedDevice[at],
                            allocBytes[outputs[i].arg] / 4, checkResults[r],
                            uint32_t(j * 64 + int(i)));
      }
  if (forkJoin)
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
  if (element >= written) {
    bool poison =
        std::find(poisoned.begin(), poisoned.end(), arg) != poisoned.end();
    return concat("element ", element, " (past the ", shapeText(shape),
                  " the step writes, where the ", poison ? "poison" : "input",
                  " must stay)");
  }
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

std::string Harness::elementBits(int arg, const uint8_t *bytes,
                                 std::size_t element) const {
  if (dtypeBytes(bundle.manifest.arguments[arg].dtype) == 2) {
    uint16_t v;
    std::memcpy(&v, bytes + 2 * element, 2);
    return hex16(v);
  }
  uint32_t v;
  std::memcpy(&v, bytes + 4 * element, 4);
  return hex32(v);
}

void Harness::setGolden(std::size_t output, int j, std::vector<uint8_t> bytes) {
  const Manifest &m = bundle.manifest;
  int arg = outputs[output].arg;
  for (int r = 0; r < options.tp; ++r) {
    std::size_t at = bufferIndex(arg, j, r);
    if (r == 0 || goldenDevice[at] != goldenDevice[bufferIndex(arg, j, 0)])
      session->upload(r, goldenDevice[at], bytes.data(), bytes.size(),
                      concat("the first run's '", m.arguments[arg].name,
                             "' of step position ", j));
    expectedDevice[at] = goldenDevice[at];
  }
  golden[output * batch + j] = std::move(bytes);
  // The references are not needed any more: rank 0's bytes are.
  expected[j].norm[arg].reset();
}

void Harness::verifyNorm(uint64_t step, std::size_t output,
                         const std::vector<std::vector<uint8_t>> &got) {
  const Manifest &m = bundle.manifest;
  int arg = outputs[output].arg;
  int j = int(step % batch);
  const ArgumentSpec &spec = m.arguments[arg];
  const NormExpectation &norm = *expected[j].norm[arg];
  std::string where = concat("step ", step, " (m = ", tokens[j], "), ");
  // (ii) rank 0 within the bound of the FP64 reference; outside the rows
  // the step writes, the poison (out) or the input (stream) unchanged.
  const std::vector<uint8_t> &first = got[0];
  std::size_t width = dtypeBytes(spec.dtype);
  std::size_t written = std::size_t(norm.rows) * norm.rowLength;
  std::size_t outside = 0, firstOutside = 0, violations = 0, worstAt = 0;
  double worst = 0, worstViolation = -1;
  for (std::size_t i = 0; i < first.size() / width; ++i) {
    if (i >= written) {
      if (std::memcmp(&first[i * width], &(*norm.base)[i * width], width) &&
          outside++ == 0)
        firstOutside = i;
      continue;
    }
    double value = elementValue(spec.dtype, first.data(), i);
    double ratio = std::isfinite(value)
                       ? std::fabs(value - norm.reference[i]) / norm.bound[i]
                       : INFINITY;
    worst = std::max(worst, ratio);
    if (!withinTolerance(value, norm.reference[i], norm.bound[i])) {
      ++violations;
      if (ratio > worstViolation) {
        worstViolation = ratio;
        worstAt = i;
      }
    }
  }
  if (violations) {
    double value = elementValue(spec.dtype, first.data(), worstAt);
    throw Error(concat("wrong result: ", where, "rank 0, output '", spec.name,
                       "' ", describeElement(arg, j, worstAt), " is ", value,
                       " (", elementBits(arg, first.data(), worstAt),
                       "), the FP64 reference is ", norm.reference[worstAt],
                       " and the bound ", norm.bound[worstAt], " (error ",
                       worstViolation, " x the bound; ", violations, " of ",
                       written, " elements outside it)"));
  }
  if (outside)
    throw Error(
        concat("wrong result: ", where, "rank 0, output '", spec.name, "' ",
               describeElement(arg, j, firstOutside), " is ",
               elementBits(arg, first.data(), firstOutside), ", expected ",
               elementBits(arg, norm.base->data(), firstOutside), " (", outside,
               " of ", first.size() / width, " elements differ)"));
  normWorst[output] = std::max(normWorst[output], worst);
  // (i) every rank wrote rank 0's bytes.
  for (int r = 1; r < options.tp; ++r) {
    std::size_t differ = 0, firstBad = 0;
    for (std::size_t i = 0; i < first.size() / width; ++i)
      if (std::memcmp(&got[r][i * width], &first[i * width], width) &&
          differ++ == 0)
        firstBad = i;
    if (differ)
      throw Error(concat("wrong result: ", where, "rank ", r, ", output '",
                         spec.name, "' ", describeElement(arg, j, firstBad),
                         " is ", elementBits(arg, got[r].data(), firstBad),
                         " but rank 0 wrote ",
                         elementBits(arg, first.data(), firstBad),
                         ": every rank must write the same bytes (", differ,
                         " of ", first.size() / width, " elements differ)"));
  }
}

void Harness::hostVerify(uint64_t first, uint64_t count,
                         std::vector<uint64_t> *hashes, bool compareHashes,
                         bool *equal) {
  const Manifest &m = bundle.manifest;
  std::size_t h = 0;
  std::vector<std::vector<uint8_t>> got(options.tp);
  for (uint64_t s = first; s < first + count; ++s) {
    int j = int(s % batch);
    for (std::size_t o = 0; o < outputs.size(); ++o) {
      int arg = outputs[o].arg;
      const ArgumentSpec &spec = m.arguments[arg];
      std::size_t width = dtypeBytes(spec.dtype);
      for (int r = 0; r < options.tp; ++r, ++h) {
        got[r].resize(allocBytes[arg]);
        session->download(r, got[r].data(), buffers[bufferIndex(arg, j, r)],
                          got[r].size(), concat("output '", spec.name, "'"));
        uint64_t hash = fnv1a(got[r].data(), got[r].size());
        if (compareHashes) {
          if (h >= hashes->size() || (*hashes)[h] != hash)
            *equal = false;
        } else {
          hashes->push_back(hash);
        }
      }
      if (!compareHashes && s < uint64_t(batch))
        hashesByOutput[o][j] = fnv1a(
            got[0].data(), std::min(got[0].size(), spec.bytes(tokens[j])));
      bool exact = outputs[o].check == OutputCheck::Exact;
      std::vector<uint8_t> &known = golden[o * batch + j];
      if (!exact && known.empty()) {
        // The first run of this position: bound, then ranks, then golden.
        verifyNorm(s, o, got);
        setGolden(o, j, got[0]);
        continue;
      }
      for (int r = 0; r < options.tp; ++r) {
        const std::vector<uint8_t> &want =
            exact ? *expected[j].exact[arg][r] : known;
        std::size_t mismatches = 0, firstBad = 0;
        for (std::size_t i = 0; i < got[r].size() / width; ++i)
          if (std::memcmp(&got[r][i * width], &want[i * width], width) &&
              mismatches++ == 0)
            firstBad = i;
        if (mismatches)
          throw Error(concat(
              "wrong result: step ", s, " (m = ", tokens[j], "), rank ", r,
              ", output '", spec.name, "' ", describeElement(arg, j, firstBad),
              " is ", elementBits(arg, got[r].data(), firstBad), ", expected ",
              elementBits(arg, want.data(), firstBad),
              exact ? "" : " (rank 0's bytes of the first run)", " (",
              mismatches, " of ", got[r].size() / width, " elements differ)"));
      }
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
    int arg = outputs[result.tag % 64].arg;
    std::size_t element;
    std::string got, expectedText;
    if (dtypeBytes(m.arguments[arg].dtype) == 2) {
      // Name the first differing BF16 of the word.
      bool lowSame = (result.got & 0xFFFF) == (result.expected & 0xFFFF);
      element = std::size_t(result.word) * 2 + (lowSame ? 1 : 0);
      got = hex16(uint16_t(lowSame ? result.got >> 16 : result.got));
      expectedText =
          hex16(uint16_t(lowSame ? result.expected >> 16 : result.expected));
    } else {
      element = std::size_t(result.word);
      got = hex32(result.got);
      expectedText = hex32(result.expected);
    }
    // A chunk of one batch holds one step of each batch position.
    std::string step =
        count <= uint64_t(batch)
            ? concat("step ",
                     first + (uint64_t(j) + batch - first % batch) % batch)
            : concat("a step of batch position ", j);
    throw Error(concat(
        "wrong result (device check of steps ", first, "..", first + count - 1,
        "): ", result.mismatches, " word(s) differ; the first seen: ", step,
        " (m = ", tokens[j], "), rank ", r, ", output '", m.arguments[arg].name,
        "' ", describeElement(arg, j, element), " is ", got, ", expected ",
        expectedText));
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
  report.mode = !options.graph      ? "eager"
                : options.pipelined ? "pipelined"
                                    : "graph";
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
  // --steps-per-check: graph replays between reads of the device checks'
  // results (one batch by default); each replay is still timed.
  uint64_t perRead = 1;
  if (options.graph && options.stepsPerCheck > uint64_t(batch))
    perRead = (options.stepsPerCheck + batch - 1) / batch;
  std::vector<CUevent> chunkStart, chunkEnd;
  auto replayChunk = [&](CUgraphExec graph, uint64_t first, uint64_t n,
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
    session->wait(chunkEnd[n - 1], watchdog + 0.01 * double(batch * n),
                  concat("graph replays of steps ", first, "..", last));
    for (uint64_t c = 0; c < n; ++c)
      samples.push_back(1000.0 *
                        session->elapsedMs(chunkStart[c], chunkEnd[c]) / batch);
  };
  auto captureBatch = [&](bool checks) {
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
  if (options.check) {
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
  report.setupSeconds = setupSeconds;
  report.simulationSeconds = simulationSeconds;
  report.inputSeconds = inputSeconds;
  summarizeLatency(report);
  return report;
}

} // namespace check
} // namespace lamport
