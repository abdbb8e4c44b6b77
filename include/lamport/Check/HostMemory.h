//===- HostMemory.h - How much host memory a run may use --------*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// lamport-run's host simulation keeps host copies of every buffer it checks;
// a bundle with large buffers would grow it until the kernel's OOM killer
// ends the process. The harness compares what it needs with what the host
// can still give before it allocates any of it.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_CHECK_HOSTMEMORY_H
#define LAMPORT_CHECK_HOSTMEMORY_H

#include <cstdint>
#include <optional>
#include <string>

namespace lamport {
namespace check {

/// Host memory this process can still allocate, in bytes, and where the
/// figure comes from (for messages).
struct HostMemory {
  uint64_t bytes = 0;
  std::string source; ///< "MemAvailable", "the cgroup's memory.max"...
};

/// The host's MemAvailable (/proc/meminfo), lowered to what the cgroup's
/// memory.max leaves where it is smaller; sysconf's available pages where
/// /proc has no figure; nullopt where nothing is known.
std::optional<HostMemory> availableHostMemory();

/// MemAvailable of a /proc/meminfo text, in bytes.
std::optional<uint64_t> parseMemAvailable(const std::string &meminfo);

/// What a cgroup v2 leaves, in bytes: memory.max minus memory.current, from
/// the two files' text; nullopt where memory.max is "max" or unreadable.
std::optional<uint64_t> cgroupHeadroom(const std::string &max,
                                       const std::string &current);

} // namespace check
} // namespace lamport

#endif // LAMPORT_CHECK_HOSTMEMORY_H
