//===- Harness.cpp - Decode steps, checked and timed ----------------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// Setting a run up (the request checked against the bundle, the plan of
// what is checked, the batch, the buffers, the simulation, the session and
// every input on the device) and enqueueing its steps.
//
//===----------------------------------------------------------------------===//

#include "lamport/Check/Harness.h"
#include "lamport/Check/HostMemory.h"
#include "lamport/Runtime/CheckedMath.h"

#include <algorithm>
#include <cstdlib>

namespace lamport {
namespace check {

using namespace runtime;

namespace {

double gib(double bytes) { return bytes / double(1ull << 30); }

} // namespace

bool hasReference(const std::string &op) { return hasSimulation(op); }

Harness::Harness(const Bundle &bundle, const RunOptions &options)
    : bundle(bundle), options(options) {
  auto setupStart = std::chrono::steady_clock::now();
  checkRequest();
  planChecks();
  chooseBatch();
  checkFault();
  double total = sizeBuffers();
  // The host's copies first: the simulation runs before the session
  // allocates anything on a device.
  checkHostMemory();
  if (gib(total) > 48.0)
    throw Error(concat("the buffers of ", batch, " steps need ", gib(total),
                       " GiB on the devices; lower --batch"));

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
  if (options.pollTimeoutNs)
    session->setPollTimeout(uint64_t(options.pollTimeoutNs));
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
  injectFault();
  prepareParams();
  for (int j = 0; j < batch; ++j) {
    startEvents.push_back(session->createEvent(true));
    endEvents.push_back(session->createEvent(true));
  }
  setupSeconds = seconds(setupStart);
}

Harness::~Harness() = default;

void Harness::checkRequest() {
  const Manifest &m = bundle.manifest;
  if (const MailboxSpec *other = m.mailboxNotOfTp(options.tp))
    throw Error(concat("--tp ", options.tp, " does not match mailbox '",
                       other->name, "' of the bundle (tp = ", other->tp, ")"));
  for (const MailboxSpec &mailbox : m.mailboxes) {
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
  // The polls wait what --poll-timeout-ns sets in place of their own.
  if (options.pollTimeoutNs)
    timeoutNs = uint64_t(options.pollTimeoutNs);
  watchdog = options.watchdogSeconds > 0
                 ? options.watchdogSeconds
                 : (timeoutNs ? 2.0 * double(timeoutNs) / 1e9 + 10.0 : 30.0);
}

void Harness::planChecks() {
  const Manifest &m = bundle.manifest;
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
}

void Harness::chooseBatch() {
  const Manifest &m = bundle.manifest;
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
}

double Harness::sizeBuffers() {
  const Manifest &m = bundle.manifest;
  int maxTokens = m.maxTokens();
  allocBytes.assign(m.arguments.size(), 0);
  double total = 0;
  for (const ArgumentSpec &arg : m.arguments)
    if (arg.kind == ArgumentKind::Buffer) {
      std::size_t bytes =
          checkedRoundUp(arg.bytes(maxTokens), 16,
                         concat("argument '", arg.name, "' rounded up to 16"));
      allocBytes[arg.index] = bytes;
      total += double(bytes) * batch * options.tp;
    }
  for (const Output &output : outputs) // expected bytes
    total += double(allocBytes[output.arg]) * batch * options.tp;
  for (int arg : restored) // pristine copies
    total += double(allocBytes[arg]) * batch * options.tp;
  return total;
}

double Harness::hostBytesNeeded() const {
  const Manifest &m = bundle.manifest;
  double tp = options.tp, largestInput = 0, everyBuffer = 0;
  for (const ArgumentSpec &arg : m.arguments)
    if (arg.kind == ArgumentKind::Buffer) {
      everyBuffer += double(allocBytes[arg.index]);
      if (plan->arguments[arg.index].input)
        largestInput = std::max(largestInput, double(allocBytes[arg.index]));
    }
  // Without --check: one host buffer that each input is generated into.
  if (!options.check)
    return largestInput;
  // The step being simulated: every buffer's value on every rank, and every
  // mailbox slot's rows.
  double step = everyBuffer * tp;
  for (const MailboxSpec &mailbox : m.mailboxes)
    step += tp * mailbox.capacity * double(mailbox.width) * 2;
  // Kept per batch position: an exact output's bytes per rank; a dual
  // norm's base bytes, its FP64 reference and bound per element (16 bytes)
  // and, once checked, rank 0's bytes. Checking a step downloads an output
  // of every rank at a time.
  double kept = 0, downloads = 0;
  for (const Output &output : outputs) {
    double bytes = double(allocBytes[output.arg]);
    double elements = bytes / double(dtypeBytes(m.arguments[output.arg].dtype));
    kept += output.check == OutputCheck::Exact ? bytes * tp
                                               : 2 * bytes + 16 * elements;
    downloads = std::max(downloads, bytes * tp);
  }
  return largestInput + step + kept * batch + downloads;
}

void Harness::checkHostMemory() const {
  double need = hostBytesNeeded();
  std::string limit;
  double have = 0;
  if (options.maxHostMemoryGiB > 0) {
    have = double(options.maxHostMemoryGiB) * double(1ull << 30);
    limit =
        concat("--max-host-memory allows ", options.maxHostMemoryGiB, " GiB");
  } else if (std::optional<HostMemory> host = availableHostMemory()) {
    have = double(host->bytes);
    limit = concat("the host has ", formatBytes(have), " available (",
                   host->source, ")");
  } else {
    return; // Nothing known to compare with.
  }
  if (need <= have)
    return;
  throw Error(
      concat("this run needs about ", formatBytes(need), " of host memory (",
             options.check
                 ? concat("the host simulation and the expected bytes of ",
                          batch, " batch positions of ", options.tp, " ranks")
                 : std::string("the inputs' host copy"),
             "), but ", limit,
             options.check ? "; lower --batch or run without --check" : ""));
}

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

//===----------------------------------------------------------------------===//
// Steps
//===----------------------------------------------------------------------===//

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
  // first launch that polls a mailbox without publishing into it (the
  // consumer, after the unfused boundary's plain GEMM and publish_rows)
  // waits for every rank's publishes.
  // A launch whose `tokens` range leaves out this step's M does not run: of
  // an op's alternatives, only the one for this M does.
  bool barrierPending = options.publishBarrier;
  for (std::size_t i = 0; i < m.launches.size(); ++i) {
    if (!m.launchRuns(i, tokens[j]))
      continue;
    int k = m.launches[i];
    if (barrierPending &&
        m.kernels[k].mailboxUse == KernelSpec::MailboxUse::Poll) {
      for (int r = 0; r < options.tp; ++r)
        session->markPublished(r);
      for (int r = 0; r < options.tp; ++r)
        session->awaitPublishes(r);
      barrierPending = false;
    }
    for (int r = 0; r < options.tp; ++r) {
      if (r == options.skipPublishRank && m.kernels[k].publishes())
        continue;
      if (faultKernel && r == options.fault.rank && m.kernels[k].publishes())
        faultKernel->delay(r, options.fault.ns);
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
  session->wait(endEvents[last % batch], waitSeconds(count),
                concat("steps ", first, "..", last));
  if (timing)
    for (uint64_t s = first; s <= last; ++s)
      timing->stepMicros.push_back(
          1000.0 *
          session->elapsedMs(startEvents[s % batch], endEvents[s % batch]));
}

} // namespace check
} // namespace lamport
