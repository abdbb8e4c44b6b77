//===- Patterns.h - Lamport-to-NVVM patterns by op family -------*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// One populate function per op family, each defined in its own file.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_LIB_CONVERSION_LAMPORTTONVVM_PATTERNS_H
#define LAMPORT_LIB_CONVERSION_LAMPORTTONVVM_PATTERNS_H

#include "lamport/Conversion/LamportToNVVM/LamportToNVVM.h"

namespace mlir::lamport {

/// lamport.mailbox.publish (PublishToNVVM.cpp).
void populatePublishToNVVMPatterns(LLVMTypeConverter &converter,
                                   RewritePatternSet &patterns,
                                   const LamportToNVVMOptions &options);

/// lamport.mailbox.poll, poll_at, poll_owned and rearm: the reader side
/// (PollToNVVM.cpp).
void populatePollToNVVMPatterns(LLVMTypeConverter &converter,
                                RewritePatternSet &patterns,
                                const LamportToNVVMOptions &options);

/// Gives each kernel of `module` that polls the override of the polls'
/// timeout (lamport_poll_timeout_ns, an i64 global the host may write),
/// read once at its start, before the PDL wait, so that no poll waits for
/// it. Reports a symbol of that name that is something else (PollToNVVM.cpp).
LogicalResult prepareToPoll(gpu::GPUModuleOp module);

/// lamport.stage.* (StageToNVVM.cpp).
void populateStageToNVVMPatterns(LLVMTypeConverter &converter,
                                 RewritePatternSet &patterns);

/// lamport.cluster.*, lamport.pdl.wait and lamport.l2.*: the mechanisms
/// the generated kernels share (KernelToNVVM.cpp).
void populateKernelToNVVMPatterns(LLVMTypeConverter &converter,
                                  RewritePatternSet &patterns);

} // namespace mlir::lamport

#endif // LAMPORT_LIB_CONVERSION_LAMPORTTONVVM_PATTERNS_H
