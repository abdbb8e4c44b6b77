//===- Passes.h - Lamport conversion passes ---------------------*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// Every conversion pass of the project, for tools that register them all.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_CONVERSION_PASSES_H
#define LAMPORT_CONVERSION_PASSES_H

#include "lamport/Conversion/LamportHostToLLVM/LamportHostToLLVM.h"
#include "lamport/Conversion/LamportToNVVM/LamportToNVVM.h"

namespace mlir::lamport {

#define GEN_PASS_REGISTRATION
#include "lamport/Conversion/Passes.h.inc"

} // namespace mlir::lamport

#endif // LAMPORT_CONVERSION_PASSES_H
