//===- CheckKernel.h - lamport-run's word-compare kernel --------*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// The device side of lamport-run's checks: a hand-written PTX kernel
// (lib/Check/CheckKernel.ptx) that compares an output with its expected
// bytes word by word on the rank's stream, so steps after the first batch
// (graph replays included) are checked without a download. It is loaded
// into a Session's contexts beside the bundle's kernels, by the harness
// that checks, never by the runtime itself.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_CHECK_CHECKKERNEL_H
#define LAMPORT_CHECK_CHECKKERNEL_H

#include "lamport/Runtime/Session.h"

#include <cuda.h>

#include <cstdint>
#include <string>
#include <vector>

namespace lamport {
namespace check {

/// Device-side result of the word-compare kernel.
struct CheckResult {
  uint32_t mismatches;
  uint32_t tag;
  uint64_t word;
  uint32_t got;
  uint32_t expected;
};
static_assert(sizeof(CheckResult) == 24, "the check kernel writes 24 bytes");

/// A hand-written PTX kernel of the harness (the word compare, the fault
/// delay) loaded into every device a session runs a rank on.
class HarnessKernel {
public:
  /// JIT-compiles \p ptx once per device and finds \p entry in it. Throws
  /// Error naming the device and \p what ("the check kernel").
  HarnessKernel(runtime::Session &session, const char *ptx, const char *entry,
                const std::string &what);
  ~HarnessKernel();
  HarnessKernel(const HarnessKernel &) = delete;
  HarnessKernel &operator=(const HarnessKernel &) = delete;

  /// The function rank \p rank launches, made current on its device where
  /// the transport needs it.
  CUfunction prepare(int rank) const;
  runtime::Session &session;

private:
  /// The kernel on one device.
  struct Loaded {
    int ordinal = -1;
    CUmodule module = nullptr;
    CUfunction function = nullptr;
  };

  std::vector<Loaded> devices;
  std::vector<CUfunction> byRank; ///< The function each rank launches.
};

/// The word-compare kernel loaded on every device of a session.
class CheckKernel {
public:
  /// JIT-compiles the kernel once per device \p session runs a rank on.
  /// Throws Error naming the device.
  explicit CheckKernel(runtime::Session &session);

  /// Counts the 32-bit words of \p out that differ from \p expected into
  /// \p result on rank \p rank's stream, recording the first with \p tag.
  /// Throws KernelFailure when the launch fails.
  void launch(int rank, CUdeviceptr out, CUdeviceptr expected, uint64_t words,
              CUdeviceptr result, uint32_t tag);

private:
  HarnessKernel kernel;
};

} // namespace check
} // namespace lamport

#endif // LAMPORT_CHECK_CHECKKERNEL_H
