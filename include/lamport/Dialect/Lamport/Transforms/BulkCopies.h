//===- BulkCopies.h - How the GEMM's bulk stages are filled -----*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// The choice lamport-generate-kernels' `bulk-copies` option makes for every
// lamport.gemm_publish kernel of the bulk pipeline (docs/design/gemm.md,
// "Tensor copies"), shared by the pass options and the kernel generators.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_DIALECT_LAMPORT_TRANSFORMS_BULKCOPIES_H
#define LAMPORT_DIALECT_LAMPORT_TRANSFORMS_BULKCOPIES_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/ErrorHandling.h"

#include <optional>

namespace mlir::lamport {

/// How the GEMM's bulk pipeline fills a stage that is not one contiguous
/// run of the weight. `automatic` is the default: tensor copies are faster
/// where a CTA streams short rows and slower where its whole share fits the
/// ring (docs/design/gemm.md, "Tensor copies").
enum class BulkCopies {
  /// Tensor copies where the CTA streams rows under 2 KiB through its ring,
  /// else a copy a row.
  automatic,
  /// One bulk copy a row: no tensor map parameter.
  rows,
  /// Tensor copies at every such stage.
  tensor,
};

/// The name of `copies` on the command line: `auto`, `rows` or `tensor`.
inline llvm::StringRef stringifyBulkCopies(BulkCopies copies) {
  switch (copies) {
  case BulkCopies::automatic:
    return "auto";
  case BulkCopies::rows:
    return "rows";
  case BulkCopies::tensor:
    return "tensor";
  }
  llvm_unreachable("unknown BulkCopies");
}

/// The BulkCopies named `name` on the command line, if any.
inline std::optional<BulkCopies> symbolizeBulkCopies(llvm::StringRef name) {
  for (BulkCopies copies :
       {BulkCopies::automatic, BulkCopies::rows, BulkCopies::tensor})
    if (name == stringifyBulkCopies(copies))
      return copies;
  return std::nullopt;
}

} // namespace mlir::lamport

#endif // LAMPORT_DIALECT_LAMPORT_TRANSFORMS_BULKCOPIES_H
