//===- Faults.cpp - The faults lamport-run injects ------------------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#include "lamport/Check/Faults.h"
#include "lamport/Check/Options.h"
#include "lamport/Runtime/Error.h"

#include <vector>

namespace lamport {
namespace check {

using namespace runtime;

namespace {

constexpr uint16_t kHundred = 0x42C8;    // BF16 100.0
constexpr uint16_t kHundredOne = 0x42CA; // BF16 101.0

/// The longest delay a late-publish may ask for: a minute, far past any
/// poll's timeout, and still within the host watchdog's reach.
constexpr int64_t kMaxDelayNs = 60'000'000'000;

struct FieldSpec {
  const char *key;
  const char *meaning;
};

/// The fields each kind takes, in the order faultText writes them.
std::vector<FieldSpec> fieldsOf(FaultKind kind) {
  FieldSpec rank{"rank", "the rank that misbehaves"};
  switch (kind) {
  case FaultKind::LatePublish:
    return {rank, {"ns", "the delay before each of its publishes, in ns"}};
  case FaultKind::Corrupt:
    return {rank,
            {"row", "the row of its published input to alter"},
            {"col", "the column of its published input to alter"}};
  case FaultKind::SkipPublish:
  case FaultKind::WrongStage:
    return {rank};
  case FaultKind::None:
    break;
  }
  return {};
}

/// A well-formed `--fault` of \p kind, for messages.
const char *exampleOf(FaultKind kind) {
  switch (kind) {
  case FaultKind::LatePublish:
    return "late-publish:rank=3:ns=200000";
  case FaultKind::Corrupt:
    return "corrupt:rank=2:row=0:col=17";
  case FaultKind::WrongStage:
    return "wrong-stage:rank=1";
  case FaultKind::SkipPublish:
  case FaultKind::None:
    break;
  }
  return "skip-publish:rank=1";
}

} // namespace

uint16_t corruptedBits(uint16_t original) {
  return original == kHundred ? kHundredOne : kHundred;
}

const char *faultName(FaultKind kind) {
  switch (kind) {
  case FaultKind::SkipPublish:
    return "skip-publish";
  case FaultKind::LatePublish:
    return "late-publish";
  case FaultKind::WrongStage:
    return "wrong-stage";
  case FaultKind::Corrupt:
    return "corrupt";
  case FaultKind::None:
    break;
  }
  return "none";
}

Fault parseFault(const std::string &text) {
  std::size_t colon = text.find(':');
  std::string name = text.substr(0, colon);
  Fault fault;
  for (FaultKind kind : {FaultKind::SkipPublish, FaultKind::LatePublish,
                         FaultKind::WrongStage, FaultKind::Corrupt})
    if (name == faultName(kind))
      fault.kind = kind;
  if (!fault)
    throw UsageError(concat("--fault: unknown fault '", name,
                            "' (expected skip-publish, late-publish, "
                            "wrong-stage or corrupt)"));
  std::vector<FieldSpec> fields = fieldsOf(fault.kind);
  std::vector<bool> seen(fields.size(), false);
  std::string who = concat("--fault ", name);
  while (colon != std::string::npos) {
    std::size_t next = text.find(':', colon + 1);
    std::string field =
        text.substr(colon + 1, next == std::string::npos ? std::string::npos
                                                         : next - colon - 1);
    colon = next;
    std::size_t equals = field.find('=');
    if (equals == std::string::npos)
      throw UsageError(concat(who, ": field '", field,
                              "' is not KEY=VALUE (e.g. --fault ",
                              exampleOf(fault.kind), ")"));
    std::string key = field.substr(0, equals), value = field.substr(equals + 1);
    std::size_t i = 0;
    while (i < fields.size() && key != fields[i].key)
      ++i;
    if (i == fields.size()) {
      std::string keys;
      for (const FieldSpec &f : fields)
        keys += concat(keys.empty() ? "" : ", ", f.key);
      throw UsageError(concat(who, ": unknown field '", key, "' (", name,
                              " takes ", keys, ")"));
    }
    if (seen[i])
      throw UsageError(concat(who, ": field '", key, "' given twice"));
    seen[i] = true;
    std::string option = concat(who, ": ", key);
    if (key == "rank")
      fault.rank = int(parseIntegerOption(option, value, 0, 63));
    else if (key == "ns")
      fault.ns = uint64_t(parseIntegerOption(option, value, 1, kMaxDelayNs));
    else if (key == "row")
      fault.row = int(parseIntegerOption(option, value, 0, 65535));
    else
      fault.column = int(parseIntegerOption(option, value, 0, INT32_MAX));
  }
  for (std::size_t i = 0; i < fields.size(); ++i)
    if (!seen[i])
      throw UsageError(concat(who, ": missing ", fields[i].key, "=N (",
                              fields[i].meaning, ")"));
  return fault;
}

std::string faultText(const Fault &fault) {
  std::string text = faultName(fault.kind);
  for (const FieldSpec &field : fieldsOf(fault.kind)) {
    std::string key = field.key;
    uint64_t value = key == "rank"  ? uint64_t(fault.rank)
                     : key == "ns"  ? fault.ns
                     : key == "row" ? uint64_t(fault.row)
                                    : uint64_t(fault.column);
    text += concat(":", key, "=", value);
  }
  return text;
}

std::string describeFault(const Fault &fault) {
  switch (fault.kind) {
  case FaultKind::SkipPublish:
    return concat("rank ", fault.rank, " skips its publishing launches");
  case FaultKind::LatePublish:
    return concat("rank ", fault.rank, " waits ", fault.ns,
                  " ns on its stream before each of its publishing launches");
  case FaultKind::WrongStage:
    return concat("rank ", fault.rank,
                  "'s stage words start at generation 1 (ACTIVE = NEXT = 1), "
                  "every other rank's at 0");
  case FaultKind::Corrupt:
    return concat("one BF16 of the input rank ", fault.rank,
                  " publishes, [row ", fault.row, ", column ", fault.column,
                  "], is set to 100.0 (101.0 where it was 100.0) after the "
                  "host simulation took its reference");
  case FaultKind::None:
    break;
  }
  return "no fault";
}

std::string expectedTrap(const Fault &fault) {
  if (fault.kind == FaultKind::WrongStage)
    return concat("slot ", fault.rank, " in stage 0 (rank ", fault.rank,
                  ": another slot in stage 1)");
  return concat("slot ", fault.rank);
}

std::string unexpectedTrap(const Fault &fault, const TimeoutRecord &record) {
  if (fault.kind != FaultKind::WrongStage) {
    if (record.slot == fault.rank)
      return "";
    return concat("rank ", record.rank, " waited for slot ", record.slot,
                  ", not the faulty rank ", fault.rank);
  }
  // The first step traps: the peers wait in stage 0 for R's rows, which
  // went to stage 1, and R waits in stage 1 for rows that went to stage 0.
  if (record.rank != fault.rank) {
    if (record.stage == 0 && record.slot == fault.rank)
      return "";
    return concat("rank ", record.rank, " waited in stage ", record.stage,
                  " for slot ", record.slot, ", not in stage 0 for slot ",
                  fault.rank, " (the rank one stage ahead)");
  }
  if (record.stage == 1 && record.slot != fault.rank)
    return "";
  return concat("rank ", record.rank, " (one stage ahead) waited in stage ",
                record.stage, " for slot ", record.slot,
                ", not in stage 1 for another rank's slot");
}

} // namespace check
} // namespace lamport
