//===- DeviceCheckTest.cpp - Can this device run this bundle? -------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#include "lamport/Runtime/DeviceCheck.h"
#include "lamport/Runtime/Error.h"

#include <gtest/gtest.h>

using namespace lamport::runtime;

namespace {

DeviceProperties h200() {
  DeviceProperties p;
  p.ordinal = 0;
  p.name = "NVIDIA H200";
  p.ccMajor = 9;
  p.ccMinor = 0;
  p.maxThreadsPerBlock = 1024;
  p.maxSharedPerBlockOptin = 227 * 1024;
  p.clusterLaunch = true;
  p.multiprocessors = 132;
  return p;
}

std::string errorOf(const std::string &chip, const DeviceProperties &device,
                    bool cubin = true, bool ptx = true) {
  try {
    chooseImage(chip, device, cubin, ptx);
  } catch (const Error &e) {
    return e.what();
  }
  return "";
}

TEST(Chip, Parses) {
  Chip c = parseChip("sm_100a");
  EXPECT_EQ(c.major, 10);
  EXPECT_EQ(c.minor, 0);
  EXPECT_EQ(c.suffix, 'a');
  c = parseChip("sm_90");
  EXPECT_EQ(c.major, 9);
  EXPECT_EQ(c.suffix, 0);
  EXPECT_THROW(parseChip("gfx942"), Error);
  EXPECT_THROW(parseChip("sm_9"), Error);
  EXPECT_THROW(parseChip("sm_9x"), Error);
}

TEST(Chip, ChoosesTheImage) {
  DeviceProperties device = h200();
  EXPECT_EQ(chooseImage("sm_90", device, true, true), ImageKind::Cubin);
  EXPECT_EQ(chooseImage("sm_90a", device, true, true), ImageKind::Cubin);
  // No cubin: the PTX through the driver's JIT.
  EXPECT_EQ(chooseImage("sm_90", device, false, true), ImageKind::Ptx);
  // sm_80 machine code does not run on sm_90, its PTX does.
  EXPECT_EQ(chooseImage("sm_80", device, true, true), ImageKind::Ptx);
  EXPECT_EQ(errorOf("sm_100a", device),
            "the bundle is built for sm_100a, which device 0 (NVIDIA H200, "
            "sm_90) cannot run; recompile it with lamport-compile --chip "
            "sm_90");
  EXPECT_NE(errorOf("sm_80", device, true, false), "");
  device.ccMajor = 10;
  EXPECT_NE(errorOf("sm_90a", device), ""); // 'a' code runs on its chip only
  EXPECT_EQ(chooseImage("sm_90", device, true, true), ImageKind::Ptx);
}

TEST(Fit, SharedMemoryClustersAndBlocks) {
  Manifest m;
  KernelSpec k;
  k.name = "poll_rows_0";
  k.block = {256, 1, 1};
  k.cluster = {2, 1, 1};
  k.sharedBytes = 64 * 1024;
  m.kernels.push_back(k);
  EXPECT_NO_THROW(checkKernelsFit(m, h200()));
  DeviceProperties small = h200();
  small.maxSharedPerBlockOptin = 48 * 1024;
  try {
    checkKernelsFit(m, small);
    FAIL() << "fits";
  } catch (const Error &e) {
    EXPECT_EQ(std::string(e.what()),
              "kernel 'poll_rows_0' on device 0 (NVIDIA H200, sm_90): 65536 "
              "bytes of shared memory exceed the device's 49152 per block");
  }
  DeviceProperties noClusters = h200();
  noClusters.clusterLaunch = false;
  EXPECT_THROW(checkKernelsFit(m, noClusters), Error);
  m.kernels[0].cluster = {16, 1, 1};
  EXPECT_THROW(checkKernelsFit(m, h200()), Error);
  m.kernels[0].cluster = {1, 1, 1};
  DeviceProperties narrow = h200();
  narrow.maxThreadsPerBlock = 128;
  EXPECT_THROW(checkKernelsFit(m, narrow), Error);
}

std::string fitError(const Manifest &m, const DeviceProperties &device) {
  try {
    checkKernelsFit(m, device);
  } catch (const Error &e) {
    return e.what();
  }
  return "";
}

TEST(Fit, GridAndBlockDimensions) {
  Manifest m;
  KernelSpec k;
  k.name = "all_reduce_0";
  k.grid = {2147483647, 65535, 65535};
  k.block = {1, 1, 64};
  m.kernels.push_back(k);
  EXPECT_EQ(fitError(m, h200()), "");
  // A device with smaller limits than CUDA's: each dimension is checked.
  DeviceProperties small = h200();
  small.maxGridDim = {65535, 65535, 65535};
  EXPECT_EQ(fitError(m, small),
            "kernel 'all_reduce_0' on device 0 (NVIDIA H200, sm_90): grid x "
            "of 2147483647 exceeds the device's 65535");
  small = h200();
  small.maxBlockDim = {1024, 1024, 32};
  EXPECT_EQ(fitError(m, small),
            "kernel 'all_reduce_0' on device 0 (NVIDIA H200, sm_90): block z "
            "of 64 exceeds the device's 32");
}

} // namespace
