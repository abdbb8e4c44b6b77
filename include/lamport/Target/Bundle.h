//===- Bundle.h - Write a bundle: PTX, cubin and manifest.json --*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// The bundle is what lamport-compile hands a runtime with no MLIR: one
// <kernel>.ptx and <kernel>.cubin per kernel and manifest.json, as
// docs/bundle.md specifies.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_TARGET_BUNDLE_H
#define LAMPORT_TARGET_BUNDLE_H

#include "lamport/Target/LaunchPlan.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include <string>

namespace mlir::lamport {

/// The manifest format this writer produces.
inline constexpr int kBundleVersion = 1;

/// What the bundle was compiled for, recorded in the manifest.
struct BundleTarget {
  /// `sm_90` or `sm_100a`.
  std::string chip;
  /// The transport of publishes that set none: `unicast` or `multicast`.
  std::string transport;
};

/// The chips lamport-compile targets.
bool isSupportedChip(StringRef chip);

/// What every front end says of a chip outside them: "unknown chip 'CHIP':
/// Lamport targets sm_90 and sm_100a".
std::string unsupportedChipMessage(StringRef chip);

/// The PTX of every kernel of `module` after lowering, by kernel name: the
/// assembly object of each gpu.binary (named after its kernel). Fails, with
/// a diagnostic on the binary, where one holds no PTX.
FailureOr<llvm::MapVector<StringRef, StringRef>>
getKernelAssembly(ModuleOp module);

/// manifest.json of `plan` for `target`.
llvm::json::Value buildManifest(const LaunchPlan &plan,
                                const BundleTarget &target);

/// ptxas: $CUDA_PATH/bin/ptxas, else ptxas on PATH, else
/// /usr/local/cuda/bin/ptxas.
llvm::Expected<std::string> findPtxas();

/// Assembles `ptxPath` into `cubinPath` for `chip` with `ptxas`; the error
/// carries ptxas's own message.
llvm::Error assemblePtx(StringRef ptxas, StringRef ptxPath, StringRef cubinPath,
                        StringRef chip);

/// Writes `directory` (created if needed): <kernel>.ptx and, with
/// `assembleCubins`, <kernel>.cubin through ptxas for every kernel of
/// `plan`, and manifest.json. Without, no ptxas is needed and a
/// <kernel>.cubin left in the directory is removed: the runtime then loads
/// the PTX (the driver JIT-compiles it), never an older cubin.
llvm::Error writeBundle(StringRef directory, const LaunchPlan &plan,
                        const llvm::StringMap<std::string> &assembly,
                        const BundleTarget &target, bool assembleCubins = true);

} // namespace mlir::lamport

#endif // LAMPORT_TARGET_BUNDLE_H
