//===- CheckKernelPtx.h - The word-compare kernel, as PTX -------*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_LIB_CHECK_CHECKKERNELPTX_H
#define LAMPORT_LIB_CHECK_CHECKKERNELPTX_H

namespace lamport {
namespace check {

/// The entry point's name and its PTX text (CheckKernel.ptx, embedded by
/// CheckKernelPtx.cpp.in).
extern const char *const kCheckKernelName;
extern const char *const kCheckKernelPtx;

} // namespace check
} // namespace lamport

#endif // LAMPORT_LIB_CHECK_CHECKKERNELPTX_H
