//===- DeviceCheck.cpp - Can this device run this bundle? -----------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#include "lamport/Runtime/DeviceCheck.h"
#include "lamport/Runtime/Error.h"

#include <cctype>

namespace lamport {
namespace runtime {

std::string DeviceProperties::describe() const {
  return concat("device ", ordinal, " (", name, ", sm_", ccMajor, ccMinor, ")");
}

Chip parseChip(const std::string &chip) {
  auto bad = [&]() -> Error {
    return Error(concat("unknown chip '", chip,
                        "' (expected sm_<major><minor>, e.g. sm_90 or "
                        "sm_100a)"));
  };
  if (chip.size() < 5 || chip.compare(0, 3, "sm_") != 0)
    throw bad();
  std::string digits = chip.substr(3);
  Chip result;
  if (!digits.empty() && (digits.back() == 'a' || digits.back() == 'f')) {
    result.suffix = digits.back();
    digits.pop_back();
  }
  if (digits.size() < 2 || digits.size() > 3)
    throw bad();
  for (char c : digits)
    if (!std::isdigit(static_cast<unsigned char>(c)))
      throw bad();
  result.minor = digits.back() - '0';
  result.major = std::stoi(digits.substr(0, digits.size() - 1));
  return result;
}

ImageKind chooseImage(const std::string &chipName,
                      const DeviceProperties &device, bool haveCubin,
                      bool havePtx) {
  Chip chip = parseChip(chipName);
  int built = chip.major * 10 + chip.minor;
  int have = device.ccMajor * 10 + device.ccMinor;
  // Machine code runs within its major version on an equal or later minor;
  // arch-specific ('a') code on its own chip alone.
  bool cubinRuns = chip.suffix == 'a'
                       ? have == built
                       : device.ccMajor == chip.major && have >= built;
  // Plain PTX JIT-compiles for any later chip; 'a' and 'f' PTX use
  // instructions that exist only on that chip or family.
  bool ptxRuns = chip.suffix == 0 ? have >= built : cubinRuns;
  if (haveCubin && cubinRuns)
    return ImageKind::Cubin;
  if (havePtx && ptxRuns)
    return ImageKind::Ptx;
  throw Error(concat("the bundle is built for ", chipName, ", which ",
                     device.describe(), " cannot run",
                     (!haveCubin && !havePtx) ? " (no image at all)" : "",
                     "; recompile it with lamport-compile --chip sm_",
                     device.ccMajor, device.ccMinor));
}

void checkKernelsFit(const Manifest &manifest, const DeviceProperties &device) {
  for (const KernelSpec &kernel : manifest.kernels) {
    std::string who =
        concat("kernel '", kernel.name, "' on ", device.describe());
    // The manifest reader bounds each dimension by CUDA's limits; the
    // device may allow less.
    static const char *const axes[] = {"x", "y", "z"};
    for (int i = 0; i < 3; ++i) {
      if (int64_t(kernel.grid[i]) > device.maxGridDim[i])
        throw Error(concat(who, ": grid ", axes[i], " of ", kernel.grid[i],
                           " exceeds the device's ", device.maxGridDim[i]));
      if (int64_t(kernel.block[i]) > device.maxBlockDim[i])
        throw Error(concat(who, ": block ", axes[i], " of ", kernel.block[i],
                           " exceeds the device's ", device.maxBlockDim[i]));
    }
    if (int(kernel.blockThreads()) > device.maxThreadsPerBlock)
      throw Error(concat(who, ": block of ", kernel.blockThreads(),
                         " threads exceeds the device's ",
                         device.maxThreadsPerBlock));
    if (kernel.clusterSize() > 1) {
      if (!device.clusterLaunch)
        throw Error(concat(who, ": cluster ", kernel.cluster[0], "x",
                           kernel.cluster[1], "x", kernel.cluster[2],
                           " needs thread block clusters (sm_90 or later)"));
      if (kernel.clusterSize() > 8)
        throw Error(concat(who, ": cluster of ", kernel.clusterSize(),
                           " CTAs exceeds the portable limit of 8"));
    }
    if (int64_t(kernel.sharedBytes) > device.maxSharedPerBlockOptin)
      throw Error(concat(who, ": ", kernel.sharedBytes,
                         " bytes of shared memory exceed the device's ",
                         device.maxSharedPerBlockOptin, " per block"));
  }
}

} // namespace runtime
} // namespace lamport
