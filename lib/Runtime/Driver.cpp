//===- Driver.cpp - The CUDA driver API, loaded at run time ---------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#include "lamport/Runtime/Driver.h"
#include "lamport/Runtime/Error.h"

#include <dlfcn.h>

#include <cstdlib>

#include <mutex>

namespace lamport {
namespace runtime {

namespace {

/// The symbol a name of cuda.h stands for once its macros are expanded
/// (cuMemAlloc -> "cuMemAlloc_v2"): the very symbol a program linked against
/// libcuda would bind, with the signature cuda.h declares for it.
#define LAMPORT_SYMBOL(name) LAMPORT_SYMBOL_TEXT(name)
#define LAMPORT_SYMBOL_TEXT(name) #name

DriverApi loadDriver() {
  void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *why = dlerror();
    throw NoDeviceError(concat("no CUDA driver: cannot load libcuda.so.1 (",
                               why ? why : "not found",
                               "); the Lamport runtime needs an NVIDIA GPU"));
  }
  DriverApi driver;
  auto resolve = [&](const char *symbol, void **slot, bool required) {
    *slot = dlsym(library, symbol);
    if (!*slot && required)
      throw NoDeviceError(concat("the CUDA driver is too old: libcuda.so.1 "
                                 "has no ",
                                 symbol,
                                 " (this runtime was built against "
                                 "CUDA ",
                                 CUDA_VERSION / 1000, ".",
                                 CUDA_VERSION % 1000 / 10, ")"));
  };
#define LAMPORT_RESOLVE_DRIVER_FUNCTION(name)                                  \
  resolve(LAMPORT_SYMBOL(name), reinterpret_cast<void **>(&driver.name), true);
  LAMPORT_DRIVER_FUNCTIONS(LAMPORT_RESOLVE_DRIVER_FUNCTION)
#undef LAMPORT_RESOLVE_DRIVER_FUNCTION
  resolve(LAMPORT_SYMBOL(cuFuncGetParamInfo),
          reinterpret_cast<void **>(&driver.cuFuncGetParamInfo), false);
  resolve(LAMPORT_SYMBOL(cuFuncLoad),
          reinterpret_cast<void **>(&driver.cuFuncLoad), false);
  resolve(LAMPORT_SYMBOL(cuOccupancyMaxActiveClusters),
          reinterpret_cast<void **>(&driver.cuOccupancyMaxActiveClusters),
          false);

  // Lazy loading (the default since CUDA 12.2) loads a kernel at its first
  // launch and may synchronise the context to do it: a publisher loaded
  // while another rank's poller already spins for its data would then never
  // start (the CUDA guide's warning about kernels that rely on running
  // concurrently). Load eagerly unless the user chose otherwise; the
  // session also loads every function explicitly where cuFuncLoad exists.
  setenv("CUDA_MODULE_LOADING", "EAGER", /*overwrite=*/0);

  CUresult init = driver.cuInit(0);
  if (init == CUDA_ERROR_NO_DEVICE)
    throw NoDeviceError("no CUDA device: cuInit reports none (is a GPU "
                        "visible to this process?)");
  if (init != CUDA_SUCCESS) {
    const char *name = nullptr, *text = nullptr;
    if (driver.cuGetErrorName(init, &name) != CUDA_SUCCESS)
      name = nullptr;
    if (driver.cuGetErrorString(init, &text) != CUDA_SUCCESS)
      text = nullptr;
    std::string why =
        name ? concat(name, " (", text ? text : "no description", ")")
             : concat("CUresult ", int(init),
                      init == CUDA_ERROR_STUB_LIBRARY
                          ? " (CUDA_ERROR_STUB_LIBRARY: libcuda.so.1 is the "
                            "toolkit's stub, not a driver)"
                          : "");
    throw NoDeviceError(concat("no usable CUDA device: cuInit failed: ", why));
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
