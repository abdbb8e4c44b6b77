//===- Descriptor.h - The mailbox descriptor and timeout record -*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// What the runtime shares with generated kernels (docs/bundle.md): the
// mailbox descriptor a kernel takes by value, the 48-byte timeout record a
// poll fills before it traps, and the global that overrides the polls'
// timeout.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_RUNTIME_DESCRIPTOR_H
#define LAMPORT_RUNTIME_DESCRIPTOR_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace lamport {
namespace runtime {

/// Byte offsets of the descriptor's fields.
namespace descriptor {
inline constexpr std::size_t kLocal = 0;
inline constexpr std::size_t kMulticast = 8;
inline constexpr std::size_t kStage = 16;
inline constexpr std::size_t kDiagnostics = 24;
inline constexpr std::size_t kRank = 32;
inline constexpr std::size_t kMailboxId = 36;
inline constexpr std::size_t kPeers = 40;
/// Bytes of the descriptor of a TP group of \p tp ranks.
inline constexpr std::size_t bytes(int tp) { return kPeers + 8 * tp; }
} // namespace descriptor

/// The i64 global of each image whose kernel polls: 0 while the polls keep
/// their compiled timeouts, else the ns every poll waits instead. The host
/// writes it (cuModuleGetGlobal); each launch reads it as it starts.
inline constexpr const char kPollTimeoutSymbol[] = "lamport_poll_timeout_ns";

/// BF16 -0.0: every slot starts as, and is re-armed to, this bit pattern.
inline constexpr uint16_t kSentinel = 0x8000;

/// Indices of the stage words, int32 [ACTIVE, NEXT, ARRIVALS, reserved]:
/// ARRIVALS counts the CTAs of a kernel that publishes and consumes
/// (all_reduce_dual_norm with `publishing`).
inline constexpr int kActiveStage = 0;
inline constexpr int kNextStage = 1;
inline constexpr int kArrivalsWord = 2;
/// The stage words of one rank's copy, all zero at the start.
inline constexpr int kStageWords = 4;
/// Generations a mailbox rotates through.
inline constexpr int kGenerations = 3;

/// The values of one rank's descriptor of one mailbox.
struct DescriptorFields {
  uint64_t local = 0;
  uint64_t multicast = 0;
  uint64_t stage = 0;
  uint64_t diagnostics = 0;
  int32_t rank = 0;
  int32_t mailboxId = 0;
  std::vector<uint64_t> peers; ///< tp entries, peers[rank] == local.
};

/// Packs \p fields into the little-endian bytes a kernel takes by value.
/// Throws Error when peers[rank] != local, the rank is outside the group, or
/// an address is not 16-byte aligned.
std::vector<uint8_t> packDescriptor(const DescriptorFields &fields);

/// Reads a packed descriptor back (tests and diagnostics).
DescriptorFields unpackDescriptor(const std::vector<uint8_t> &bytes);

/// Byte offset of element [stage, slot, row, col] in one rank's copy.
inline constexpr uint64_t mailboxByteOffset(int stage, int slot, int row,
                                            int col, int tp, int capacity,
                                            int width) {
  return 2 * (((uint64_t(stage) * tp + slot) * capacity + row) * width + col);
}

/// The record a timed-out poll leaves in host-mapped memory before it traps.
struct TimeoutRecord {
  uint32_t claimed;
  int32_t rank;
  int32_t mailboxId;
  int32_t stage;
  int32_t slot;
  int32_t row;
  int32_t column;
  uint32_t block;
  uint64_t elapsedNs;
  uint64_t timeoutNs;
};
static_assert(sizeof(TimeoutRecord) == 48, "the timeout record is 48 bytes");
static_assert(offsetof(TimeoutRecord, rank) == 4, "bundle.md: rank at 4");
static_assert(offsetof(TimeoutRecord, slot) == 16, "bundle.md: slot at 16");
static_assert(offsetof(TimeoutRecord, block) == 28, "bundle.md: block at 28");
static_assert(offsetof(TimeoutRecord, elapsedNs) == 32,
              "bundle.md: elapsed_ns at 32");
static_assert(offsetof(TimeoutRecord, timeoutNs) == 40,
              "bundle.md: timeout_ns at 40");

/// One sentence naming everything in \p record: rank, mailbox (name and id),
/// stage, slot (the rank whose data never came), row, column, block, elapsed
/// and timeout.
std::string describeTimeout(const TimeoutRecord &record,
                            const std::string &mailboxName);

} // namespace runtime
} // namespace lamport

#endif // LAMPORT_RUNTIME_DESCRIPTOR_H
