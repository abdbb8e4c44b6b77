//===- KernelLoader.cpp - One bundle kernel, loaded and checked -----------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#include "lamport/Runtime/KernelLoader.h"
#include "lamport/Runtime/Descriptor.h"
#include "lamport/Runtime/Driver.h"
#include "lamport/Runtime/Error.h"
#include "lamport/Runtime/KernelRecord.h"

#include <algorithm>
#include <limits>
#include <memory>
#include <optional>
#include <utility>

namespace lamport {
namespace runtime {

namespace {

/// Loads the image chooseImage picks; a cubin the driver refuses falls back
/// to the PTX when there is one.
CUmodule loadImage(const Bundle &bundle, std::size_t k,
                   const DeviceProperties &device, const std::string &who,
                   std::string &image) {
  const KernelSpec &kernel = bundle.manifest.kernels[k];
  ImageKind kind =
      chooseImage(bundle.manifest.chip, device, !bundle.cubin[k].empty(),
                  !bundle.ptx[k].empty());
  CUmodule module = nullptr;
  std::string cubinFailure;
  if (kind == ImageKind::Cubin) {
    CUresult result = api().cuModuleLoadData(&module, bundle.cubin[k].data());
    if (result == CUDA_SUCCESS) {
      image = "cubin";
      return module;
    }
    if (bundle.ptx[k].empty())
      check(result, "cuModuleLoadData",
            concat(who, ": loading ", kernel.cubin));
    // A cubin the driver refuses (a newer ptxas, a damaged file): the PTX
    // still describes the same kernel.
    cubinFailure = concat(" after the driver refused ", kernel.cubin, ": ",
                          describeResult(result));
  }
  // The driver JIT-compiles the PTX; its log says why it refused.
  char log[8192] = {0};
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER,
                            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {log, reinterpret_cast<void *>(sizeof(log) - 1)};
  CUresult result = api().cuModuleLoadDataEx(&module, bundle.ptx[k].c_str(), 2,
                                             options, values);
  if (result != CUDA_SUCCESS)
    throw Error(concat(who, ": the driver could not JIT-compile ", kernel.ptx,
                       ": ", describeResult(result),
                       log[0] ? concat("\n", log) : std::string()));
  image = "PTX (driver JIT)" + cubinFailure;
  return module;
}

/// The checks of a loaded entry point against its manifest entry.
void checkFunction(CUfunction function, const KernelSpec &kernel,
                   const std::string &who) {
  if (api().cuFuncLoad)
    LAMPORT_CU(cuFuncLoad(function),
               concat(who, ": loading it before any launch"));
  int maxThreads = 0;
  LAMPORT_CU(cuFuncGetAttribute(&maxThreads,
                                CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
                                function),
             concat(who, ": reading its thread limit"));
  if (int(kernel.blockThreads()) > maxThreads)
    throw Error(concat(who, ": the manifest's block of ", kernel.blockThreads(),
                       " threads exceeds the kernel's limit of ", maxThreads,
                       " (registers)"));
  if (!api().cuFuncGetParamInfo)
    return;
  for (std::size_t p = 0; p <= kernel.params.size(); ++p) {
    std::size_t offset = 0, size = 0;
    CUresult info = api().cuFuncGetParamInfo(function, p, &offset, &size);
    if (p == kernel.params.size()) {
      if (info == CUDA_SUCCESS)
        throw Error(concat(who, ": the image takes more than the ",
                           kernel.params.size(),
                           " parameters the manifest lists"));
      return;
    }
    if (info != CUDA_SUCCESS)
      throw Error(concat(who, ": the manifest lists ", kernel.params.size(),
                         " parameters, the image has only ", p));
    if (size != kernel.params[p].size)
      throw Error(concat(who, ": parameter ", p, " is ", size,
                         " bytes in the image but ", kernel.params[p].size,
                         " in the manifest"));
  }
}

/// \p module's global \p symbol: its address and size, or none where the
/// image has no such global. Throws Error starting with \p who on another
/// driver error.
std::optional<std::pair<CUdeviceptr, std::size_t>>
findGlobal(CUmodule module, const std::string &symbol, const std::string &who) {
  CUdeviceptr address = 0;
  std::size_t bytes = 0;
  CUresult found =
      api().cuModuleGetGlobal(&address, &bytes, module, symbol.c_str());
  if (found == CUDA_ERROR_NOT_FOUND)
    return std::nullopt;
  check(found, "cuModuleGetGlobal", concat(who, ": finding ", symbol));
  return std::make_pair(address, bytes);
}

/// The most bytes an ABI record may take; a larger global is no record.
constexpr std::size_t kMaxRecordBytes = 65536;

/// Checks the ABI record of \p module against the one the manifest implies
/// for kernel \p k. Returns false where the image has no record (a bundle
/// written before records); throws Error at the first field that differs.
bool checkRecord(CUmodule module, const Bundle &bundle, std::size_t k,
                 const std::string &who) {
  const KernelSpec &kernel = bundle.manifest.kernels[k];
  std::string symbol = kernelRecordSymbol(kernel.name);
  auto global = findGlobal(module, symbol, who);
  if (!global)
    return false;
  auto [address, bytes] = *global;
  if (bytes == 0 || bytes > kMaxRecordBytes)
    throw Error(concat(who, ": its ABI record ", symbol, " is ", bytes,
                       " bytes, not a record"));
  std::string record(bytes, '\0');
  LAMPORT_CU(cuMemcpyDtoH(record.data(), address, bytes),
             concat(who, ": reading its ABI record ", symbol));
  std::string difference =
      diffKernelRecords(record, manifestKernelRecord(bundle.manifest, kernel));
  if (!difference.empty())
    throw Error(concat(who,
                       ": the manifest does not describe the kernel the "
                       "image holds: ",
                       difference));
  return true;
}

} // namespace

CUdeviceptr findPollTimeout(CUmodule module, const std::string &who) {
  auto global = findGlobal(module, kPollTimeoutSymbol, who);
  if (!global)
    return 0;
  if (global->second != sizeof(uint64_t))
    throw Error(concat(who, ": its ", kPollTimeoutSymbol, " is ",
                       global->second,
                       " bytes, not the 8 of the polls' timeout override"));
  return global->first;
}

void checkPollTimeout(uint64_t ns, const std::string &who) {
  if (ns > uint64_t(std::numeric_limits<int64_t>::max()))
    throw Error(concat(who, ": a poll timeout of ", ns, " ns is more than the ",
                       std::numeric_limits<int64_t>::max(),
                       " ns a compiled timeout_ns may be"));
}

LoadedKernel loadKernel(const Bundle &bundle, std::size_t k,
                        const DeviceProperties &device,
                        const std::string &who) {
  const KernelSpec &kernel = bundle.manifest.kernels[k];
  LoadedKernel loaded;
  loaded.module = loadImage(bundle, k, device, who, loaded.image);
  try {
    CUresult found = api().cuModuleGetFunction(&loaded.function, loaded.module,
                                               kernel.name.c_str());
    if (found != CUDA_SUCCESS)
      throw Error(concat(who, ": its image has no entry point named '",
                         kernel.name, "' (", describeResult(found),
                         "): the manifest and the image disagree"));
    loaded.recordChecked = checkRecord(loaded.module, bundle, k, who);
    loaded.pollTimeout = findPollTimeout(loaded.module, who);
    checkFunction(loaded.function, kernel, who);
    optIntoSharedMemory(loaded.function, kernel.sharedBytes, who);
  } catch (...) {
    api().cuModuleUnload(loaded.module);
    throw;
  }
  return loaded;
}

void checkPollTimeoutOverrides(const Bundle &bundle,
                               const std::vector<CUdeviceptr> &overrides,
                               const std::string &who) {
  const Manifest &m = bundle.manifest;
  // Refuse before writing any: kernels that disagree on it would trap
  // sooner or later than the caller asked.
  for (std::size_t k = 0; k < m.kernels.size(); ++k)
    if (!overrides[k] && m.kernels[k].attribute("timeout_ns"))
      throw Error(concat(
          who, ": kernel '", m.kernels[k].name, "' of bundle '",
          bundle.directory, "' polls but has no override of its timeout (",
          kPollTimeoutSymbol,
          "): it was compiled before the override; compile the bundle "
          "again"));
  // A bundle compiled before manifests recorded timeout_ns: none has it.
  if (std::none_of(overrides.begin(), overrides.end(),
                   [](CUdeviceptr address) { return address != 0; }))
    throw Error(concat(
        who, ": no kernel of bundle '", bundle.directory,
        "' has an override of its polls' timeout (", kPollTimeoutSymbol,
        "): none polls, or they were compiled before the override; compile "
        "the bundle again"));
}

void setPollTimeouts(const Bundle &bundle,
                     const std::vector<CUdeviceptr> &overrides, uint64_t ns,
                     CUstream stream, const std::string &who) {
  checkPollTimeout(ns, who);
  checkPollTimeoutOverrides(bundle, overrides, who);
  // A copy from host memory cannot be captured: CUDA would end the
  // caller's capture with an error of its own.
  CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
  CUresult queried = api().cuStreamIsCapturing(stream, &capture);
  if (queried == CUDA_ERROR_STREAM_CAPTURE_IMPLICIT ||
      (queried == CUDA_SUCCESS && capture != CU_STREAM_CAPTURE_STATUS_NONE))
    throw Error(
        concat(who, ": the poll timeout cannot be set while ",
               stream ? "its stream" : "a stream of the process",
               " is capturing a CUDA graph; set it before or after the capture "
               "(replays of the graph see the latest value)"));
  check(queried, "cuStreamIsCapturing",
        concat(who, ": asking whether the stream is capturing"));
  for (std::size_t k = 0; k < overrides.size(); ++k)
    if (overrides[k])
      LAMPORT_CU(cuMemcpyHtoDAsync(overrides[k], &ns, sizeof(ns), stream),
                 concat(who, ": setting the poll timeout of kernel '",
                        bundle.manifest.kernels[k].name, "' to ", ns, " ns"));
}

namespace {
/// The calling thread in the relaxed capture mode while it lives: its calls
/// then never invalidate a capture of the process's other streams.
class RelaxedCaptureMode {
public:
  explicit RelaxedCaptureMode(const std::string &who) {
    LAMPORT_CU(cuThreadExchangeStreamCaptureMode(&previous),
               concat(who, ": entering the relaxed capture mode"));
  }
  ~RelaxedCaptureMode() { api().cuThreadExchangeStreamCaptureMode(&previous); }
  RelaxedCaptureMode(const RelaxedCaptureMode &) = delete;
  RelaxedCaptureMode &operator=(const RelaxedCaptureMode &) = delete;

private:
  CUstreamCaptureMode previous = CU_STREAM_CAPTURE_MODE_RELAXED;
};
} // namespace

void writePollTimeoutsNow(const std::vector<CUdeviceptr> &overrides,
                          uint64_t ns, const std::string &who) {
  RelaxedCaptureMode relaxed(who);
  CUstream stream = nullptr;
  LAMPORT_CU(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING),
             concat(who, ": creating a stream for the poll timeout's write"));
  std::unique_ptr<CUstream_st, void (*)(CUstream)> owned(
      stream, [](CUstream s) { api().cuStreamDestroy(s); });
  std::string what = concat(who, ": setting the poll timeout to ", ns, " ns");
  for (CUdeviceptr address : overrides)
    if (address)
      LAMPORT_CU(cuMemcpyHtoDAsync(address, &ns, sizeof(ns), stream), what);
  LAMPORT_CU(cuStreamSynchronize(stream), what);
}

void optIntoSharedMemory(CUfunction function, std::size_t bytes,
                         const std::string &who) {
  if (bytes == 0)
    return;
  LAMPORT_CU(cuFuncSetAttribute(function,
                                CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                int(bytes)),
             concat(who, ": opting into ", bytes, " bytes of shared memory"));
}

} // namespace runtime
} // namespace lamport
