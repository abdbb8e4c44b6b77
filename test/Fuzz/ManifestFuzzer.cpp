//===- ManifestFuzzer.cpp - Fuzz the manifest reader and its users --------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// A libFuzzer target over manifest.json as lamport-run meets it before any
// GPU work: parseManifest, then what `--plan` prints (describePlan,
// describeChecks), then what `--check` does on the host (the program plan,
// the buffer sizes and the simulation of a step). An input is the text of
// a manifest.
//
// Every bad manifest must end in a runtime Error; any other exception
// (nlohmann's, std::out_of_range, std::bad_alloc...) escapes and ends the
// run as a crash, as it would end lamport-run.
//
//===----------------------------------------------------------------------===//

#include "lamport/Check/Simulator.h"
#include "lamport/Runtime/Error.h"
#include "lamport/Runtime/Manifest.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

using namespace lamport::runtime;
using namespace lamport::check;

namespace {

/// The most host memory the fuzzer lets one simulated step allocate (all
/// ranks' buffers): lamport-run's own guard is sized for a real machine,
/// not for libFuzzer's 2 GiB.
constexpr double kMaxSimulatedBytes = 1 << 20;

/// What `lamport-run BUNDLE --tp TP --tokens M --steps 1 --check` does on
/// the host before it opens a GPU (Harness: the request, the plan, the
/// buffer sizes, the simulation), for each M of `tokens`.
void simulate(const Manifest &m) {
  if (m.mailboxes.empty())
    return;
  int tp = m.mailboxes.front().tp;
  int capacity = m.mailboxes.front().capacity;
  for (const MailboxSpec &mailbox : m.mailboxes) {
    // lamport-run refuses a --tp that one of the mailboxes disagrees with.
    if (mailbox.tp != tp)
      return;
    capacity = std::min(capacity, mailbox.capacity);
  }
  ProgramPlan plan(m, tp, /*strict=*/true);
  SimulationConfig config;
  config.tp = tp;
  config.seed = 1;
  config.allocationBytes.assign(m.arguments.size(), 0);
  // Harness::sizeBuffers: the most tokens, rounded up to 16 bytes, in the
  // runtime's own size arithmetic (whatever it does with an overflow).
  double total = 0;
  for (const ArgumentSpec &arg : m.arguments)
    if (arg.kind == ArgumentKind::Buffer) {
      std::size_t bytes = (arg.bytes(m.maxTokens()) + 15) / 16 * 16;
      config.allocationBytes[arg.index] = bytes;
      total += double(bytes) * tp;
    }
  if (total > kMaxSimulatedBytes)
    return;
  simulateStep(m, plan, config, /*set=*/0, /*tokens=*/1);
  if (capacity > 1)
    simulateStep(m, plan, config, /*set=*/1, capacity);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  Manifest manifest;
  try {
    manifest = parseManifest(text, "fuzz.json");
  } catch (const Error &) {
    return 0;
  }
  // lamport-run --plan.
  std::string plan = describePlan(manifest) + describeChecks(manifest);
  (void)plan;
  // Sizes every reader of a valid manifest computes.
  for (const MailboxSpec &mailbox : manifest.mailboxes)
    (void)(mailbox.copyBytes() + mailbox.descriptorBytes());
  try {
    simulate(manifest);
  } catch (const Error &) {
  }
  return 0;
}
