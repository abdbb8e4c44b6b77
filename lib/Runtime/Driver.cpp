//===- Driver.cpp - The CUDA driver API, loaded at run time ---------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#include "lamport/Runtime/Driver.h"
#include "lamport/Runtime/Error.h"

#include <dlfcn.h>

#include <mutex>

namespace lamport {
namespace runtime {

namespace {

using GetProcAddress = CUresult(CUDAAPI *)(const char *, void **, int,
                                           cuuint64_t,
                                           CUdriverProcAddressQueryResult *);

DriverApi loadDriver() {
  void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *why = dlerror();
    throw NoDeviceError(concat("no CUDA driver: cannot load libcuda.so.1 (",
                               why ? why : "not found",
                               "); lamport-run needs an NVIDIA GPU"));
  }
  auto getProcAddress =
      reinterpret_cast<GetProcAddress>(dlsym(library, "cuGetProcAddress_v2"));
  if (!getProcAddress)
    throw NoDeviceError("the CUDA driver is too old: libcuda.so.1 has no "
                        "cuGetProcAddress_v2 (CUDA 12.0 or later needed)");
  DriverApi driver;
  auto resolve = [&](const char *name, void **slot, bool required) {
    CUdriverProcAddressQueryResult status;
    CUresult result = getProcAddress(name, slot, CUDA_VERSION,
                                     CU_GET_PROC_ADDRESS_DEFAULT, &status);
    if ((result != CUDA_SUCCESS || status != CU_GET_PROC_ADDRESS_SUCCESS ||
         !*slot) &&
        required)
      throw NoDeviceError(concat("the CUDA driver lacks ", name,
                                 " at CUDA version ", CUDA_VERSION, " (status ",
                                 int(status), "); update the NVIDIA driver"));
    if (result != CUDA_SUCCESS)
      *slot = nullptr;
  };
#define LAMPORT_RESOLVE_DRIVER_FUNCTION(name)                                  \
  resolve(#name, reinterpret_cast<void **>(&driver.name), true);
  LAMPORT_DRIVER_FUNCTIONS(LAMPORT_RESOLVE_DRIVER_FUNCTION)
#undef LAMPORT_RESOLVE_DRIVER_FUNCTION
  resolve("cuFuncGetParamInfo",
          reinterpret_cast<void **>(&driver.cuFuncGetParamInfo), false);

  CUresult init = driver.cuInit(0);
  if (init == CUDA_ERROR_NO_DEVICE)
    throw NoDeviceError("no CUDA device: cuInit reports none (is a GPU "
                        "visible to this process?)");
  if (init != CUDA_SUCCESS) {
    const char *name = nullptr, *text = nullptr;
    driver.cuGetErrorName(init, &name);
    driver.cuGetErrorString(init, &text);
    throw NoDeviceError(
        concat("no usable CUDA device: cuInit failed: ", name ? name : "?",
               " (", text ? text : "?", ")"));
  }
  int count = 0;
  if (driver.cuDeviceGetCount(&count) != CUDA_SUCCESS || count == 0)
    throw NoDeviceError("no CUDA device: the driver reports none");
  return driver;
}

} // namespace

const DriverApi &api() {
  // Loaded once; a failure is remembered and rethrown on every call.
  static std::once_flag once;
  static DriverApi driver;
  static std::string failure;
  std::call_once(once, [] {
    try {
      driver = loadDriver();
    } catch (const NoDeviceError &e) {
      failure = e.what();
    }
  });
  if (!failure.empty())
    throw NoDeviceError(failure);
  return driver;
}

std::string describeResult(CUresult result) {
  const char *name = nullptr, *text = nullptr;
  const DriverApi &driver = api();
  if (driver.cuGetErrorName(result, &name) != CUDA_SUCCESS)
    name = nullptr;
  if (driver.cuGetErrorString(result, &text) != CUDA_SUCCESS)
    text = nullptr;
  if (!name)
    return concat("CUresult ", int(result), " (unknown to this driver)");
  return concat(name, " (", text ? text : "no description", ")");
}

void check(CUresult result, const char *call, const std::string &context) {
  if (result == CUDA_SUCCESS)
    return;
  throw Error(concat(context, ": ", call, " failed: ", describeResult(result)));
}

} // namespace runtime
} // namespace lamport
