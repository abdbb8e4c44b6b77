//===- lamport-run.cpp - Run, check and time a Lamport bundle -------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// lamport-run BUNDLE --tp N --transport loopback|peer --tokens M|all ...
//
// Brings a bundle's TP group up (Session), runs its decode step (Harness),
// checks every rank's outputs against the host simulation of the program,
// prints a short table and exits non-zero with one clear message on any
// failure: a bad
// option or bundle (2), no GPU (3), a wrong result or a GPU failure (1).
// A trap poisons the CUDA context, so after one the tool reports and exits
// at once (std::_Exit) instead of tearing the context down.
//
//===----------------------------------------------------------------------===//

#include "lamport/Check/Harness.h"
#include "lamport/Check/Options.h"
#include "lamport/Check/Simulator.h"
#include "lamport/Runtime/Error.h"
#include "lamport/Runtime/Manifest.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>

using namespace lamport::runtime;
using namespace lamport::check;

namespace {

constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;
constexpr int kExitNoDevice = 3;

[[noreturn]] void exitNow(int code) {
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  std::_Exit(code);
}

void writeJson(const RunOptions &options, const Bundle &bundle,
               const RunReport &report, const std::string &status,
               const std::string &error) {
  if (options.jsonPath.empty())
    return;
  nlohmann::json j;
  j["bundle"] = options.bundle;
  j["program"] = bundle.manifest.program;
  j["tp"] = options.tp;
  j["transport"] = transportName(options.transport);
  j["tokens"] =
      options.tokens ? nlohmann::json(options.tokens) : nlohmann::json("all");
  j["mode"] = report.mode;
  j["batch"] = report.batch;
  j["device"] = report.device;
  j["image"] = report.image;
  j["steps"] = report.steps;
  j["status"] = status;
  if (!error.empty())
    j["error"] = error;
  j["checked"] = report.checked;
  j["steps_checked"] = report.stepsChecked;
  j["steps_host_checked"] = report.stepsHostChecked;
  if (report.graphEqualsEager)
    j["graph_equals_eager"] = *report.graphEqualsEager;
  j["latency_us"] = {{"median", report.medianMicros},
                     {"p99", report.p99Micros},
                     {"min", report.minMicros},
                     {"mean", report.meanMicros},
                     {"samples", report.stepMicros.size()}};
  j["mailbox_bytes_per_step"] = report.mailboxBytesPerStep;
  nlohmann::json byKernel = nlohmann::json::object();
  for (const auto &[kernel, bytes] : report.mailboxBytesByKernel)
    byKernel[kernel] = bytes;
  j["mailbox_bytes_per_step_by_kernel"] = byKernel;
  j["seed"] = options.seed;
  if (options.fault)
    j["fault"] = faultText(options.fault);
  j["setup_seconds"] = report.setupSeconds;
  j["setup_seconds_simulation"] = report.simulationSeconds;
  j["setup_seconds_inputs"] = report.inputSeconds;
  if (report.checked) {
    j["steps_per_check"] = report.stepsPerCheck;
    // Hex strings: a 64-bit integer does not survive every JSON reader.
    nlohmann::json hashes = nlohmann::json::object();
    for (const auto &[name, perJ] : report.outputHashes) {
      nlohmann::json list = nlohmann::json::array();
      for (uint64_t hash : perJ) {
        char text[24];
        std::snprintf(text, sizeof(text), "%016llx",
                      static_cast<unsigned long long>(hash));
        list.push_back(text);
      }
      hashes[name] = list;
    }
    j["output_hashes"] = hashes;
    if (report.normErrorVsBoundMax) {
      j["norm_error_vs_bound_max"] = *report.normErrorVsBoundMax;
      nlohmann::json perOutput = nlohmann::json::object();
      for (const auto &[name, worst] : report.normErrorVsBound)
        perOutput[name] = worst;
      j["norm_error_vs_bound"] = perOutput;
    }
  }
  std::ofstream out(options.jsonPath);
  out << j.dump(2) << "\n";
  if (!out)
    std::cerr << "lamport-run: warning: could not write " << options.jsonPath
              << "\n";
}

/// --timeout-check: every trap must be one the fault causes (the skipped
/// or late rank's slot; for wrong-stage, each side waiting in its own
/// stage), after the poll's timeout and no more than 1% + 1 ms after it
/// (device time), and reach the host within the timeout plus a margin.
int judgeTimeout(const RunOptions &options, const KernelFailure &failure,
                 double seconds) {
  if (failure.watchdog || failure.records.empty()) {
    std::cerr << "lamport-run: timeout check FAILED: no poll trapped with a "
                 "timeout record\n";
    return kExitFailure;
  }
  for (const TimeoutRecord &record : failure.records) {
    std::string unexpected = unexpectedTrap(options.fault, record);
    if (!unexpected.empty()) {
      std::cerr << "lamport-run: timeout check FAILED: " << unexpected << "\n";
      return kExitFailure;
    }
    if (record.elapsedNs < record.timeoutNs) {
      std::cerr << "lamport-run: timeout check FAILED: rank " << record.rank
                << " trapped after " << record.elapsedNs
                << " ns, before its timeout of " << record.timeoutNs << " ns\n";
      return kExitFailure;
    }
    // The poll reads %globaltimer on every spin: it must trap as soon as
    // its deadline passes, not much later.
    uint64_t late = record.timeoutNs / 100 + 1000000;
    if (record.elapsedNs > record.timeoutNs + late) {
      std::cerr << "lamport-run: timeout check FAILED: rank " << record.rank
                << " trapped after " << record.elapsedNs << " ns, more than "
                << late << " ns past its timeout of " << record.timeoutNs
                << " ns\n";
      return kExitFailure;
    }
  }
  double timeout = double(failure.records.front().timeoutNs) / 1e9;
  // The host learns of a trap from the driver, which handles each faulted
  // context in turn: measured on H200s, about 0.4 s after the trap with one
  // GPU, 0.7-1.2 s with two and 1.2-2.4 s with four (docs/runtime.md).
  int gpus = options.transport == TransportKind::Peer ? options.tp : 1;
  double margin = 1.0 + 0.25 * timeout + 0.5 * (gpus - 1);
  if (seconds > timeout + margin) {
    std::cerr << "lamport-run: timeout check FAILED: the failure reached the "
                 "host after "
              << seconds << " s, more than the timeout " << timeout
              << " s plus a margin of " << margin << " s\n";
    return kExitFailure;
  }
  std::cout << "timeout check: PASS (" << failure.records.size()
            << " rank(s) trapped on " << expectedTrap(options.fault)
            << "; reported " << seconds << " s after the batch started, "
            << "timeout " << timeout << " s)\n";
  return 0;
}

/// Why a run that completed contradicts its fault ("" when it does not):
/// only a publish late by less than the polls' timeout lets a group
/// complete.
std::string missedFault(const RunOptions &options, const Harness &harness) {
  const Fault &fault = options.fault;
  uint64_t timeout = harness.declaredTimeoutNs();
  switch (fault.kind) {
  case FaultKind::SkipPublish:
    return concat("rank ", fault.rank,
                  " skipped its publish, yet no poll timed out");
  case FaultKind::WrongStage:
    return concat("rank ", fault.rank,
                  " ran one stage ahead of its peers, yet no poll timed out");
  case FaultKind::Corrupt:
    return concat("--fault ", faultText(fault),
                  ": the check passed, so it missed the corrupted value");
  case FaultKind::LatePublish:
    if (timeout && fault.ns > timeout)
      return concat("rank ", fault.rank, " published ", fault.ns,
                    " ns late, more than the polls' timeout of ", timeout,
                    " ns, yet no poll timed out");
    break;
  case FaultKind::None:
    break;
  }
  return "";
}

/// The table of a run that passed: steps, latency, mailbox bytes, the
/// check, the dual norms' worst error, the setup and the fault.
void printReport(const RunOptions &options, const Bundle &bundle,
                 const RunReport &report) {
  std::printf("lamport-run: %s, tp %d, %s on %s, %s\n",
              bundle.manifest.program.empty() ? options.bundle.c_str()
                                              : bundle.manifest.program.c_str(),
              options.tp, transportName(options.transport),
              report.device.c_str(), report.image.c_str());
  std::printf("  %-10s %-6s %-6s %-6s %12s %12s %12s  %s\n", "steps", "tokens",
              "mode", "batch", "median/step", "p99/step", "mailbox/step",
              "check");
  std::string tokensText =
      options.tokens ? std::to_string(options.tokens) : std::string("all");
  std::string check = "not checked";
  if (report.checked) {
    check = concat("PASS (", report.stepsChecked, " steps compared, ",
                   report.stepsHostChecked, " on the host");
    if (report.graphEqualsEager)
      check +=
          *report.graphEqualsEager ? "; graph == eager" : "; graph != eager";
    check += ")";
  }
  char median[32], p99[32];
  std::snprintf(median, sizeof(median), "%.2f us", report.medianMicros);
  std::snprintf(p99, sizeof(p99), "%.2f us", report.p99Micros);
  std::printf("  %-10llu %-6s %-6s %-6d %12s %12s %12s  %s\n",
              static_cast<unsigned long long>(report.steps), tokensText.c_str(),
              report.mode.c_str(), report.batch, median, p99,
              formatBytes(report.mailboxBytesPerStep).c_str(), check.c_str());
  if (report.normErrorVsBoundMax) {
    std::string worst;
    for (const auto &[name, ratio] : report.normErrorVsBound) {
      char text[64];
      std::snprintf(text, sizeof(text), "%s%s %.3g", worst.empty() ? "" : ", ",
                    name.c_str(), ratio);
      worst += text;
    }
    std::printf("  dual norm: worst |error| / bound %.3g (%s); later steps "
                "equal the first run's bytes\n",
                *report.normErrorVsBoundMax, worst.c_str());
  }
  std::printf(
      "  setup: %.2f s on the host (simulation %.2f s, inputs %.2f s)\n",
      report.setupSeconds, report.simulationSeconds, report.inputSeconds);
  if (options.fault)
    std::printf("  fault %s: the group completed every step%s\n",
                faultText(options.fault).c_str(),
                report.checked ? " and the check passed" : "");
}

} // namespace

int main(int argc, char **argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  RunOptions options;
  try {
    options = parseRunOptions(args);
  } catch (const UsageError &e) {
    if (*e.what())
      std::cerr << "lamport-run: error: " << e.what() << "\n";
    std::cerr << (*e.what() ? usage() : help()) << "\n";
    return *e.what() ? kExitUsage : 0;
  }

  Bundle bundle;
  std::unique_ptr<Harness> harness;
  if (options.plan) {
    try {
      Manifest manifest = loadBundle(options.bundle).manifest;
      std::cout << describePlan(manifest) << describeChecks(manifest);
      return 0;
    } catch (const Error &e) {
      std::cerr << "lamport-run: error: " << e.what() << "\n";
      return kExitUsage;
    }
  }
  try {
    bundle = loadBundle(options.bundle);
    harness = std::make_unique<Harness>(bundle, options);
  } catch (const NoDeviceError &e) {
    std::cerr << "lamport-run: error: no usable GPU: " << e.what() << "\n";
    return kExitNoDevice;
  } catch (const KernelFailure &e) {
    std::cerr << "lamport-run: error: " << e.what() << "\n";
    exitNow(kExitFailure);
  } catch (const Error &e) {
    std::cerr << "lamport-run: error: " << e.what() << "\n";
    return kExitUsage;
  } catch (const std::exception &e) {
    std::cerr << "lamport-run: error: setting up: " << e.what() << "\n";
    exitNow(kExitFailure);
  }

  if (options.fault)
    std::cerr << "lamport-run: fault " << faultText(options.fault) << ": "
              << harness->faultDescription() << "\n";

  RunReport report;
  try {
    report = harness->run();
  } catch (const KernelFailure &e) {
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                      harness->batchStart())
            .count();
    std::cerr << "lamport-run: error: " << e.what() << "\n";
    writeJson(options, bundle, report, "trap", e.what());
    if (options.timeoutCheck)
      exitNow(judgeTimeout(options, e, seconds));
    exitNow(kExitFailure);
  } catch (const Error &e) {
    std::cerr << "lamport-run: error: " << e.what() << "\n";
    writeJson(options, bundle, report, "fail", e.what());
    exitNow(kExitFailure);
  } catch (const std::exception &e) {
    std::cerr << "lamport-run: error: running: " << e.what() << "\n";
    writeJson(options, bundle, report, "fail", e.what());
    exitNow(kExitFailure);
  }
  if (std::string missed = missedFault(options, *harness); !missed.empty()) {
    std::cerr << "lamport-run: error: " << missed << "\n";
    writeJson(options, bundle, report, "fail", missed);
    exitNow(kExitFailure);
  }
  if (options.timeoutCheck) {
    std::cerr << "lamport-run: timeout check FAILED: every step completed, "
                 "so no poll timed out (--fault "
              << faultText(options.fault) << ")\n";
    writeJson(options, bundle, report, "fail", "no timeout");
    exitNow(kExitFailure);
  }

  printReport(options, bundle, report);
  writeJson(options, bundle, report, "pass", "");
  exitNow(0);
}
