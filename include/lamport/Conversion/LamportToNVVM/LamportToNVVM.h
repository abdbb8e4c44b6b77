//===- LamportToNVVM.h - Lamport primitives to NVVM/LLVM --------*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// The lowering of the kernel-level lamport primitives inside gpu.func kernels
// to the LLVM and NVVM dialects (plus scf loops for the polls).
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_CONVERSION_LAMPORTTONVVM_LAMPORTTONVVM_H
#define LAMPORT_CONVERSION_LAMPORTTONVVM_LAMPORTTONVVM_H

#include "lamport/Dialect/Lamport/IR/Lamport.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
class LLVMTypeConverter;
class RewritePatternSet;

namespace lamport {

#define GEN_PASS_DECL_CONVERTLAMPORTTONVVMPASS
#include "lamport/Conversion/Passes.h.inc"

/// What the lowering decides for ops that leave it open.
struct LamportToNVVMOptions {
  /// Transport of a publish with neither a `transport` attribute nor `to`.
  Transport transport = Transport::unicast;
  /// Timeout of a poll without `timeout_ns`.
  int64_t timeoutNs = LamportDialect::kDefaultTimeoutNs;
};

/// The by-value kernel descriptor of `type` (docs/bundle.md):
/// `!llvm.struct<(ptr<1>, ptr<1>, ptr<1>, ptr<1>, i32, i32,
/// array<tp x ptr<1>>)>`.
LLVM::LLVMStructType getMailboxDescriptorType(MailboxType type);

/// Teaches `converter` that a mailbox becomes its descriptor struct.
void populateLamportToNVVMTypeConversions(LLVMTypeConverter &converter);

/// Patterns that lower every kernel-level primitive and rewrite the mailbox
/// arguments of gpu.func ops into descriptors (other arguments keep their
/// types for convert-gpu-to-nvvm).
void populateLamportToNVVMConversionPatterns(
    LLVMTypeConverter &converter, RewritePatternSet &patterns,
    const LamportToNVVMOptions &options);

} // namespace lamport
} // namespace mlir

#endif // LAMPORT_CONVERSION_LAMPORTTONVVM_LAMPORTTONVVM_H
