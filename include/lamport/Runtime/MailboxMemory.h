//===- MailboxMemory.h - Device memory behind a mailbox copy ----*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// The pieces of one rank's mailbox copy that every way of bringing a TP
// group up shares (the in-process Session and the process-per-rank
// RankMailboxes): a cuMem VMM allocation mapped at a reserved address (made
// here, or imported from another process's exported handle: a POSIX file
// descriptor or a fabric handle), the sentinel
// fill and zeroed stage words, the host-mapped timeout record, and the
// descriptor a rank's kernels take.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_RUNTIME_MAILBOXMEMORY_H
#define LAMPORT_RUNTIME_MAILBOXMEMORY_H

#include "lamport/Runtime/Descriptor.h"
#include "lamport/Runtime/Manifest.h"

#include <cuda.h>

#include <cstddef>
#include <string>
#include <vector>

namespace lamport {
namespace runtime {

/// "mailbox 'name' (id 0), rank 1": where a mailbox's errors happen.
std::string mailboxWho(const MailboxSpec &spec, int rank);

/// How a mailbox copy is handed to another process: not at all (the
/// in-process Session), as a POSIX file descriptor (passed over a Unix
/// domain socket: one host), or as a fabric handle (64 bytes any process
/// of the fabric imports, across nodes too).
enum class CopyHandle { None, PosixFd, Fabric };

/// "none", "posix-fd" or "fabric".
const char *copyHandleName(CopyHandle handle);

/// The first \p bytes bytes of \p fabric as lowercase hex: all of it for
/// the store (which holds text), a prefix to tell handles apart in an error.
std::string fabricHandleHex(const CUmemFabricHandle &fabric,
                            std::size_t bytes = sizeof(CUmemFabricHandle));

/// A cuMem allocation mapped at an address of its own. Unmapped, its
/// address range freed and its handle released when destroyed (or moved
/// from); every step of its making undone when a later one fails.
class MappedAllocation {
public:
  MappedAllocation() = default;
  ~MappedAllocation() { reset(); }
  MappedAllocation(MappedAllocation &&other) noexcept {
    *this = std::move(other);
  }
  MappedAllocation &operator=(MappedAllocation &&other) noexcept;
  MappedAllocation(const MappedAllocation &) = delete;
  MappedAllocation &operator=(const MappedAllocation &) = delete;

  /// \p bytes (rounded up to the VMM granularity) on device \p ordinal,
  /// mapped, exportable as \p exportAs.
  static MappedAllocation create(int ordinal, std::size_t bytes,
                                 CopyHandle exportAs, const std::string &who);
  /// The allocation another process exported as \p fd (which stays the
  /// caller's), \p bytes long, mapped here for device \p ordinal.
  static MappedAllocation import(int fd, std::size_t bytes, int ordinal,
                                 const std::string &who);
  /// The allocation another process exported as \p fabric, \p bytes long,
  /// mapped here for device \p ordinal.
  static MappedAllocation importFabric(const CUmemFabricHandle &fabric,
                                       std::size_t bytes, int ordinal,
                                       const std::string &who);
  /// Whether device \p ordinal offers fabric handles: it reports
  /// CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED and a trial allocation
  /// requesting them is made and exported (then released). Never throws.
  static bool offersFabric(int ordinal);
  /// The bytes an allocation of \p bytes on device \p ordinal takes: rounded
  /// up to the granularity, as create() does.
  static std::size_t mappedBytes(int ordinal, std::size_t bytes,
                                 const std::string &who);

  /// Grants read/write access to the devices \p ordinals.
  void grantAccess(const std::vector<int> &ordinals,
                   const std::string &who) const;
  /// A new POSIX file descriptor for the allocation (the caller closes it).
  int exportFd(const std::string &who) const;
  /// The allocation's fabric handle (made with CopyHandle::Fabric).
  CUmemFabricHandle exportFabric(const std::string &who) const;

  CUdeviceptr address() const { return base; }
  std::size_t bytes() const { return size; }

  /// Unmaps and releases now (best effort: never throws).
  void reset();

private:
  CUmemGenericAllocationHandle handle = 0;
  bool hasHandle = false;
  CUdeviceptr base = 0;
  std::size_t size = 0;
  bool mapped = false;

  /// Reserves an address range and maps the handle there.
  void map(std::size_t alignment, const std::string &who);
};

/// Fills the \p bytes of the copy at \p copy with the sentinel and zeroes
/// the stage words at \p stage (in the current context, synchronously).
void armCopy(CUdeviceptr copy, std::size_t bytes, CUdeviceptr stage,
             const std::string &who);

/// A zeroed timeout record in host memory the device can write; freed with
/// freeTimeoutRecord.
TimeoutRecord *allocateTimeoutRecord(const std::string &who);
void freeTimeoutRecord(TimeoutRecord *record);

/// Rank \p rank's packed descriptor of mailbox \p spec: its copy is
/// copies[rank], every rank's copy as this process maps it in \p copies.
std::vector<uint8_t> describeCopy(const MailboxSpec &spec, int rank,
                                  const std::vector<CUdeviceptr> &copies,
                                  CUdeviceptr stage, TimeoutRecord *record);

} // namespace runtime
} // namespace lamport

#endif // LAMPORT_RUNTIME_MAILBOXMEMORY_H
