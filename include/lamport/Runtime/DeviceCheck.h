//===- DeviceCheck.h - Can this device run this bundle? ---------*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// The checks of a bundle against a device that need only the device's
// properties, not the device: which image (cubin or PTX) it can load, and
// whether each kernel's block, cluster and shared memory fit. Kept free of
// CUDA so the rules are unit-tested without a GPU.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_RUNTIME_DEVICECHECK_H
#define LAMPORT_RUNTIME_DEVICECHECK_H

#include "lamport/Runtime/Manifest.h"

#include <array>
#include <string>

namespace lamport {
namespace runtime {

/// What the runtime needs to know about a device to accept a bundle.
struct DeviceProperties {
  int ordinal = 0;
  std::string name;
  int ccMajor = 0;
  int ccMinor = 0;
  int maxThreadsPerBlock = 1024;
  /// Largest grid and block in each dimension (x, y, z).
  std::array<int, 3> maxGridDim{2147483647, 65535, 65535};
  std::array<int, 3> maxBlockDim{1024, 1024, 64};
  /// Largest dynamic shared memory a kernel may opt into, in bytes.
  int maxSharedPerBlockOptin = 48 * 1024;
  bool clusterLaunch = false;
  int multiprocessors = 0;

  /// "device 0 (NVIDIA H200, sm_90)".
  std::string describe() const;
};

/// A chip name as the compiler writes it: sm_<major><minor>[a|f].
struct Chip {
  int major = 0;
  int minor = 0;
  char suffix = 0; ///< 0, 'a' (this chip only) or 'f' (this family).
};

/// Parses "sm_90", "sm_90a", "sm_100a". Throws Error on anything else.
Chip parseChip(const std::string &chip);

/// Which image of a kernel to load.
enum class ImageKind { Cubin, Ptx };

/// The image a device can run for code built for \p chip: the cubin when its
/// machine code runs there, else the PTX through the driver's JIT. Throws
/// Error naming the chip and the device when neither can run.
ImageKind chooseImage(const std::string &chip, const DeviceProperties &device,
                      bool haveCubin, bool havePtx);

/// Checks every kernel's grid, block, cluster and shared memory against
/// \p device. Throws Error naming the kernel and the limit.
void checkKernelsFit(const Manifest &manifest, const DeviceProperties &device);

} // namespace runtime
} // namespace lamport

#endif // LAMPORT_RUNTIME_DEVICECHECK_H
