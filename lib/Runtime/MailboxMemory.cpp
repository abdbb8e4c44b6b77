//===- MailboxMemory.cpp - Device memory behind a mailbox copy ------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#include "lamport/Runtime/MailboxMemory.h"
#include "lamport/Runtime/CheckedMath.h"
#include "lamport/Runtime/Driver.h"

#include <cstdint>
#include <cstring>

namespace lamport {
namespace runtime {

std::string mailboxWho(const MailboxSpec &spec, int rank) {
  return concat("mailbox '", spec.name, "' (id ", spec.id, "), rank ", rank);
}

const char *copyHandleName(CopyHandle handle) {
  switch (handle) {
  case CopyHandle::PosixFd:
    return "posix-fd";
  case CopyHandle::Fabric:
    return "fabric";
  case CopyHandle::None:
    break;
  }
  return "none";
}

std::string fabricHandleHex(const CUmemFabricHandle &fabric,
                            std::size_t bytes) {
  static const char digits[] = "0123456789abcdef";
  std::string text;
  for (std::size_t i = 0; i < bytes && i < sizeof(fabric.data); ++i)
    text += {digits[fabric.data[i] >> 4], digits[fabric.data[i] & 15]};
  return text;
}

/// Pinned device memory on device \p ordinal, exportable as \p exportAs.
static CUmemAllocationProp allocationProp(int ordinal, CopyHandle exportAs) {
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = ordinal;
  if (exportAs == CopyHandle::PosixFd)
    prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  else if (exportAs == CopyHandle::Fabric)
    prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_FABRIC;
  return prop;
}

/// The granularity of an allocation on device \p ordinal exportable as
/// \p exportAs (a fabric allocation's may be coarser).
static std::size_t granularityOf(int ordinal, const std::string &who,
                                 CopyHandle exportAs = CopyHandle::None) {
  CUmemAllocationProp prop = allocationProp(ordinal, exportAs);
  std::size_t granularity = 0;
  LAMPORT_CU(cuMemGetAllocationGranularity(
                 &granularity, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED),
             concat(who, ": reading the VMM granularity"));
  return granularity ? granularity : 1;
}

std::size_t MappedAllocation::mappedBytes(int ordinal, std::size_t bytes,
                                          const std::string &who) {
  return checkedRoundUp(
      bytes, granularityOf(ordinal, who),
      concat(who, ": its copy rounded up to the VMM granularity"));
}

MappedAllocation &
MappedAllocation::operator=(MappedAllocation &&other) noexcept {
  if (this != &other) {
    reset();
    handle = other.handle;
    hasHandle = other.hasHandle;
    base = other.base;
    size = other.size;
    mapped = other.mapped;
    other.hasHandle = false;
    other.base = 0;
    other.mapped = false;
  }
  return *this;
}

MappedAllocation MappedAllocation::create(int ordinal, std::size_t bytes,
                                          CopyHandle exportAs,
                                          const std::string &who) {
  MappedAllocation allocation;
  std::size_t granularity = granularityOf(ordinal, who, exportAs);
  allocation.size = checkedRoundUp(
      bytes, granularity,
      concat(who, ": its copy rounded up to the VMM granularity"));
  CUmemAllocationProp prop = allocationProp(ordinal, exportAs);
  LAMPORT_CU(cuMemCreate(&allocation.handle, allocation.size, &prop, 0),
             concat(who, ": creating ", allocation.size, " bytes"));
  allocation.hasHandle = true;
  allocation.map(granularity, who);
  return allocation;
}

MappedAllocation MappedAllocation::import(int fd, std::size_t bytes,
                                          int ordinal, const std::string &who) {
  MappedAllocation allocation;
  allocation.size = bytes;
  LAMPORT_CU(cuMemImportFromShareableHandle(
                 &allocation.handle,
                 reinterpret_cast<void *>(static_cast<uintptr_t>(fd)),
                 CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR),
             concat(who, ": importing its copy from file descriptor ", fd));
  allocation.hasHandle = true;
  allocation.map(granularityOf(ordinal, who, CopyHandle::PosixFd), who);
  return allocation;
}

MappedAllocation MappedAllocation::importFabric(const CUmemFabricHandle &fabric,
                                                std::size_t bytes, int ordinal,
                                                const std::string &who) {
  MappedAllocation allocation;
  allocation.size = bytes;
  CUmemFabricHandle copy = fabric;
  CUresult result = api().cuMemImportFromShareableHandle(
      &allocation.handle, &copy, CU_MEM_HANDLE_TYPE_FABRIC);
  std::string what = concat(who, ": importing its copy from fabric handle ",
                            fabricHandleHex(fabric, 8), "...");
  if (result == CUDA_ERROR_NOT_PERMITTED)
    what += " (this process has no access to the exporter's IMEX channel)";
  check(result, "cuMemImportFromShareableHandle", what);
  allocation.hasHandle = true;
  allocation.map(granularityOf(ordinal, who, CopyHandle::Fabric), who);
  return allocation;
}

bool MappedAllocation::offersFabric(int ordinal) {
  const DriverApi &cu = api();
  CUdevice device = 0;
  int supported = 0;
  if (cu.cuDeviceGet(&device, ordinal) != CUDA_SUCCESS ||
      cu.cuDeviceGetAttribute(&supported,
                              CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED,
                              device) != CUDA_SUCCESS ||
      !supported)
    return false;
  // The attribute says what the device can do; the trial says whether this
  // system lets this process do it (an IMEX channel, a fabric manager).
  try {
    CUmemAllocationProp prop = allocationProp(ordinal, CopyHandle::Fabric);
    std::size_t bytes =
        granularityOf(ordinal, "fabric handle trial", CopyHandle::Fabric);
    CUmemGenericAllocationHandle trial = 0;
    if (cu.cuMemCreate(&trial, bytes, &prop, 0) != CUDA_SUCCESS)
      return false;
    CUmemFabricHandle fabric;
    CUresult exported = cu.cuMemExportToShareableHandle(
        &fabric, trial, CU_MEM_HANDLE_TYPE_FABRIC, 0);
    // Imported back, as a peer would: some systems export fabric handles
    // that no importer may open (no IMEX channel).
    CUmemGenericAllocationHandle imported = 0;
    CUresult reopened = exported == CUDA_SUCCESS
                            ? cu.cuMemImportFromShareableHandle(
                                  &imported, &fabric, CU_MEM_HANDLE_TYPE_FABRIC)
                            : exported;
    if (reopened == CUDA_SUCCESS)
      cu.cuMemRelease(imported);
    cu.cuMemRelease(trial);
    return reopened == CUDA_SUCCESS;
  } catch (const Error &) {
    return false;
  }
}

void MappedAllocation::map(std::size_t alignment, const std::string &who) {
  LAMPORT_CU(cuMemAddressReserve(&base, size, alignment, 0, 0),
             concat(who, ": reserving ", size, " bytes of address space"));
  LAMPORT_CU(cuMemMap(base, size, 0, handle, 0),
             concat(who, ": mapping its copy"));
  mapped = true;
}

void MappedAllocation::grantAccess(const std::vector<int> &ordinals,
                                   const std::string &who) const {
  std::vector<CUmemAccessDesc> access(ordinals.size());
  for (std::size_t i = 0; i < ordinals.size(); ++i) {
    access[i].location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    access[i].location.id = ordinals[i];
    access[i].flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  }
  LAMPORT_CU(cuMemSetAccess(base, size, access.data(), access.size()),
             concat(who, ": granting access to its copy"));
}

int MappedAllocation::exportFd(const std::string &who) const {
  int fd = -1;
  LAMPORT_CU(cuMemExportToShareableHandle(
                 &fd, handle, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
             concat(who, ": exporting its copy as a file descriptor"));
  return fd;
}

CUmemFabricHandle MappedAllocation::exportFabric(const std::string &who) const {
  CUmemFabricHandle fabric;
  LAMPORT_CU(cuMemExportToShareableHandle(&fabric, handle,
                                          CU_MEM_HANDLE_TYPE_FABRIC, 0),
             concat(who, ": exporting its copy as a fabric handle"));
  return fabric;
}

void MappedAllocation::reset() {
  const DriverApi &cu = api();
  if (mapped)
    cu.cuMemUnmap(base, size);
  if (base)
    cu.cuMemAddressFree(base, size);
  if (hasHandle)
    cu.cuMemRelease(handle);
  mapped = hasHandle = false;
  base = 0;
}

void armCopy(CUdeviceptr copy, std::size_t bytes, CUdeviceptr stage,
             const std::string &who) {
  // Every slot of every generation starts as the sentinel.
  LAMPORT_CU(cuMemsetD16(copy, kSentinel, bytes / 2),
             concat(who, ": filling its copy with the sentinel"));
  // [ACTIVE, NEXT, ARRIVALS, reserved] (docs/bundle.md).
  LAMPORT_CU(cuMemsetD32(stage, 0, kStageWords),
             concat(who, ": zeroing the stage words"));
}

TimeoutRecord *allocateTimeoutRecord(const std::string &who) {
  void *host = nullptr;
  LAMPORT_CU(
      cuMemHostAlloc(&host, sizeof(TimeoutRecord),
                     CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE),
      concat(who, ": allocating its timeout record"));
  std::memset(host, 0, sizeof(TimeoutRecord));
  return static_cast<TimeoutRecord *>(host);
}

void freeTimeoutRecord(TimeoutRecord *record) {
  if (record)
    api().cuMemFreeHost(record);
}

std::vector<uint8_t> describeCopy(const MailboxSpec &spec, int rank,
                                  const std::vector<CUdeviceptr> &copies,
                                  CUdeviceptr stage, TimeoutRecord *record) {
  CUdeviceptr diagnostics = 0;
  LAMPORT_CU(cuMemHostGetDevicePointer(&diagnostics, record, 0),
             concat(mailboxWho(spec, rank), ": mapping its timeout record"));
  DescriptorFields fields;
  fields.local = copies[rank];
  fields.multicast = 0;
  fields.stage = stage;
  fields.diagnostics = diagnostics;
  fields.rank = rank;
  fields.mailboxId = spec.id;
  fields.peers.assign(copies.begin(), copies.end());
  return packDescriptor(fields);
}

} // namespace runtime
} // namespace lamport
