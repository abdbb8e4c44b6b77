//===- FakeVmm.h - What the fake cuMem* offers ------------------*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_TEST_RUNTIME_FAKEDRIVER_FAKEVMM_H
#define LAMPORT_TEST_RUNTIME_FAKEDRIVER_FAKEVMM_H

namespace fakecuda {

/// Whether the fake offers fabric handles (FAKE_CUDA_FABRIC=1): the device
/// attribute says so, and cuMem allocations may request and export them.
bool fakeFabric();

} // namespace fakecuda

#endif // LAMPORT_TEST_RUNTIME_FAKEDRIVER_FAKEVMM_H
