//===- FakeVmm.cpp - The fake libcuda's virtual memory (cuMem*) -----------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// cuMem* over POSIX shared memory: an allocation is a memfd, a reservation an
// anonymous mapping, and cuMemMap maps the memfd over the reservation. An
// allocation made exportable (CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
// exports as a duplicate of its memfd, which a process that imports it maps
// in turn: rank processes then really share a mailbox copy, so a value one
// rank's fake kernel publishes is what another rank's fake kernel polls.
//
// With FAKE_CUDA_FABRIC=1 the device offers fabric handles too: an
// allocation that requests them (CU_MEM_HANDLE_TYPE_FABRIC) exports 64 bytes
// naming its memfd by the exporter's pid and descriptor number, which an
// importing process opens as /proc/PID/fd/N while the exporter holds the
// allocation. A handle without the fake's magic, or naming a descriptor that
// is gone, is refused with CUDA_ERROR_INVALID_VALUE.
//
//===----------------------------------------------------------------------===//

#include "FakeVmm.h"

#include <cuda.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

bool fakecuda::fakeFabric() {
  const char *fabric = std::getenv("FAKE_CUDA_FABRIC");
  return fabric && std::strcmp(fabric, "1") == 0;
}

namespace {

struct FakeAllocation {
  int fd = -1;
  size_t bytes = 0;
  /// The CU_MEM_HANDLE_TYPE_* bits it may be exported as.
  unsigned exportable = 0;
};

/// What a fake fabric handle holds, within its 64 bytes.
struct FakeFabric {
  char magic[16];
  int32_t pid;
  int32_t fd;
  uint64_t bytes;
};
static_assert(sizeof(FakeFabric) <= sizeof(CUmemFabricHandle),
              "a fake fabric handle fits a CUmemFabricHandle");
constexpr char kFabricMagic[16] = "lamport-fabric1";

FakeAllocation *allocationOf(CUmemGenericAllocationHandle handle) {
  return reinterpret_cast<FakeAllocation *>(uintptr_t(handle));
}

} // namespace

extern "C" {

CUresult cuMemCreate(CUmemGenericAllocationHandle *h, size_t bytes,
                     const CUmemAllocationProp *prop, unsigned long long) {
  int fd = ::memfd_create("lamport-fake-cumem", MFD_CLOEXEC);
  if (fd < 0)
    return CUDA_ERROR_OUT_OF_MEMORY;
  if (::ftruncate(fd, off_t(bytes)) != 0) {
    ::close(fd);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  unsigned requested = prop ? unsigned(prop->requestedHandleTypes) : 0;
  if ((requested & CU_MEM_HANDLE_TYPE_FABRIC) && !fakecuda::fakeFabric()) {
    ::close(fd);
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  *h = CUmemGenericAllocationHandle(
      uintptr_t(new FakeAllocation{fd, bytes, requested}));
  return CUDA_SUCCESS;
}

CUresult cuMemRelease(CUmemGenericAllocationHandle h) {
  FakeAllocation *allocation = allocationOf(h);
  if (!allocation)
    return CUDA_ERROR_INVALID_VALUE;
  ::close(allocation->fd);
  delete allocation;
  return CUDA_SUCCESS;
}

CUresult cuMemAddressReserve(CUdeviceptr *p, size_t bytes, size_t, CUdeviceptr,
                             unsigned long long) {
  void *range = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (range == MAP_FAILED)
    return CUDA_ERROR_OUT_OF_MEMORY;
  *p = CUdeviceptr(uintptr_t(range));
  return CUDA_SUCCESS;
}

CUresult cuMemAddressFree(CUdeviceptr p, size_t bytes) {
  return ::munmap(reinterpret_cast<void *>(uintptr_t(p)), bytes) == 0
             ? CUDA_SUCCESS
             : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuMemMap(CUdeviceptr p, size_t bytes, size_t offset,
                  CUmemGenericAllocationHandle h, unsigned long long) {
  FakeAllocation *allocation = allocationOf(h);
  if (!allocation || offset + bytes > allocation->bytes)
    return CUDA_ERROR_INVALID_VALUE;
  void *mapped = ::mmap(reinterpret_cast<void *>(uintptr_t(p)), bytes,
                        PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
                        allocation->fd, off_t(offset));
  return mapped == MAP_FAILED ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}

CUresult cuMemUnmap(CUdeviceptr p, size_t bytes) {
  // Back to a reservation: private, and no longer the allocation's memory.
  void *range = ::mmap(reinterpret_cast<void *>(uintptr_t(p)), bytes, PROT_NONE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
  return range == MAP_FAILED ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}

CUresult cuMemSetAccess(CUdeviceptr, size_t, const CUmemAccessDesc *, size_t) {
  return CUDA_SUCCESS;
}

CUresult cuMemGetAllocationGranularity(size_t *g, const CUmemAllocationProp *,
                                       CUmemAllocationGranularity_flags) {
  *g = 2 << 20;
  return CUDA_SUCCESS;
}

CUresult cuMemExportToShareableHandle(void *shareable,
                                      CUmemGenericAllocationHandle h,
                                      CUmemAllocationHandleType type,
                                      unsigned long long) {
  FakeAllocation *allocation = allocationOf(h);
  if (!allocation || !(allocation->exportable & unsigned(type)))
    return CUDA_ERROR_INVALID_VALUE;
  if (type == CU_MEM_HANDLE_TYPE_FABRIC) {
    FakeFabric fabric{};
    std::memcpy(fabric.magic, kFabricMagic, sizeof(kFabricMagic));
    fabric.pid = int32_t(::getpid());
    fabric.fd = allocation->fd;
    fabric.bytes = allocation->bytes;
    CUmemFabricHandle handle{};
    std::memcpy(handle.data, &fabric, sizeof(fabric));
    *static_cast<CUmemFabricHandle *>(shareable) = handle;
    return CUDA_SUCCESS;
  }
  if (type != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
    return CUDA_ERROR_INVALID_VALUE;
  int fd = ::fcntl(allocation->fd, F_DUPFD_CLOEXEC, 0);
  if (fd < 0)
    return CUDA_ERROR_OUT_OF_MEMORY;
  *static_cast<int *>(shareable) = fd;
  return CUDA_SUCCESS;
}

/// Opens the memfd a fake fabric handle names, as a new allocation.
static CUresult importFabric(CUmemGenericAllocationHandle *h,
                             const CUmemFabricHandle *handle) {
  if (!fakecuda::fakeFabric())
    return CUDA_ERROR_NOT_SUPPORTED;
  FakeFabric fabric;
  std::memcpy(&fabric, handle->data, sizeof(fabric));
  if (std::memcmp(fabric.magic, kFabricMagic, sizeof(kFabricMagic)) != 0)
    return CUDA_ERROR_INVALID_VALUE;
  char path[64];
  std::snprintf(path, sizeof(path), "/proc/%d/fd/%d", int(fabric.pid),
                int(fabric.fd));
  int own = ::open(path, O_RDWR | O_CLOEXEC);
  struct stat info;
  if (own < 0)
    return CUDA_ERROR_INVALID_VALUE;
  if (::fstat(own, &info) != 0 || uint64_t(info.st_size) != fabric.bytes) {
    ::close(own);
    return CUDA_ERROR_INVALID_VALUE;
  }
  *h = CUmemGenericAllocationHandle(uintptr_t(new FakeAllocation{
      own, size_t(info.st_size), unsigned(CU_MEM_HANDLE_TYPE_FABRIC)}));
  return CUDA_SUCCESS;
}

CUresult cuMemImportFromShareableHandle(CUmemGenericAllocationHandle *h,
                                        void *osHandle,
                                        CUmemAllocationHandleType type) {
  if (type == CU_MEM_HANDLE_TYPE_FABRIC)
    return importFabric(h, static_cast<const CUmemFabricHandle *>(osHandle));
  int fd = int(uintptr_t(osHandle));
  struct stat info;
  if (type != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR ||
      ::fstat(fd, &info) != 0)
    return CUDA_ERROR_INVALID_VALUE;
  int own = ::fcntl(fd, F_DUPFD_CLOEXEC, 0);
  if (own < 0)
    return CUDA_ERROR_OUT_OF_MEMORY;
  *h = CUmemGenericAllocationHandle(uintptr_t(
      new FakeAllocation{own, size_t(info.st_size),
                         unsigned(CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)}));
  return CUDA_SUCCESS;
}

} // extern "C"
