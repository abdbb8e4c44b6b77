//===- FaultKernel.h - The delay kernel of a late publish -------*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// The device side of lamport-run's late-publish fault (Faults.h): a
// hand-written PTX kernel (lib/Check/FaultKernel.ptx) of one thread that
// sleeps until %globaltimer has advanced by a given number of nanoseconds,
// launched on the late rank's stream before its publishing kernel. Loaded
// by the harness only when the fault is asked for.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_CHECK_FAULTKERNEL_H
#define LAMPORT_CHECK_FAULTKERNEL_H

#include "lamport/Check/CheckKernel.h"

namespace lamport {
namespace check {

/// The delay kernel loaded on every device of a session.
class FaultKernel {
public:
  /// JIT-compiles the kernel once per device. Throws Error naming the
  /// device.
  explicit FaultKernel(runtime::Session &session);

  /// Holds rank \p rank's stream for \p ns nanoseconds of %globaltimer: the
  /// launches enqueued after it on that stream start that much later.
  /// Throws KernelFailure when the launch fails.
  void delay(int rank, uint64_t ns);

private:
  HarnessKernel kernel;
};

} // namespace check
} // namespace lamport

#endif // LAMPORT_CHECK_FAULTKERNEL_H
