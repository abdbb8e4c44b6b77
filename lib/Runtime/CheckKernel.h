//===- CheckKernel.h - The word-compare kernel, as PTX ----------*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_LIB_RUNTIME_CHECKKERNEL_H
#define LAMPORT_LIB_RUNTIME_CHECKKERNEL_H

namespace lamport {
namespace runtime {

/// The entry point's name and its PTX text (CheckKernel.ptx, embedded by
/// CheckKernel.cpp.in).
extern const char *const kCheckKernelName;
extern const char *const kCheckKernelPtx;

} // namespace runtime
} // namespace lamport

#endif // LAMPORT_LIB_RUNTIME_CHECKKERNEL_H
