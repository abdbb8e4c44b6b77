//===- FaultKernelPtx.h - The delay kernel, as PTX --------------*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_LIB_CHECK_FAULTKERNELPTX_H
#define LAMPORT_LIB_CHECK_FAULTKERNELPTX_H

namespace lamport {
namespace check {

/// The delay kernel's entry point and its PTX text (FaultKernel.ptx,
/// embedded by FaultKernelPtx.cpp.in).
extern const char *const kFaultDelayName;
extern const char *const kFaultKernelPtx;

} // namespace check
} // namespace lamport

#endif // LAMPORT_LIB_CHECK_FAULTKERNELPTX_H
