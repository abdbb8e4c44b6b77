//===- TacticTable.h - A chip's table of tuned tactics ----------*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// The tactic table of one chip (data/tactics/<chip>.json, format in
// docs/tactics.md and docs/tactics.schema.json): tactics measured best for
// an N, K, range of M, publishing or not and transport, and the points
// lamport-tune timed, with every candidate's time over the best.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_LIB_DIALECT_LAMPORT_TRANSFORMS_TACTICTABLE_H
#define LAMPORT_LIB_DIALECT_LAMPORT_TRANSFORMS_TACTICTABLE_H

#include "TacticModel.h"

#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir::lamport {

/// One entry: the tactic for M in [firstM, lastM] of one shape.
struct TacticTableEntry {
  int64_t n = 0, k = 0, firstM = 1, lastM = 16;
  bool publishes = false;
  /// The transport it was measured with; none where any will do (a GEMM
  /// that does not publish).
  std::optional<Transport> transport;
  /// The tactic, token tiles left empty.
  TacticAttr tactic;
  /// Where the entry comes from (a sweep, a tuner run).
  std::string source;
  /// Its place in the file, for explanations.
  size_t index = 0;
};

/// A candidate lamport-tune timed at a point.
struct MeasuredCandidate {
  /// The tactic, token tiles left empty.
  TacticAttr tactic;
  /// Its time over the point's fastest candidate's (at least 1).
  double overBest = 1;
};

/// A point lamport-tune timed: every passing candidate's time over the
/// best, the cost model's prior for shapes without an entry.
struct MeasuredPoint {
  int64_t n = 0, k = 0, m = 1;
  bool publishes = false;
  std::optional<Transport> transport;
  /// The run that timed it.
  std::string source;
  std::vector<MeasuredCandidate> candidates;
};

/// A chip's table.
struct TacticTable {
  std::string path, chip;
  std::vector<TacticTableEntry> entries;
  std::vector<MeasuredPoint> measured;

  /// The entry for `m` tokens of `problem`, or null.
  const TacticTableEntry *lookup(const GemmProblem &problem, int64_t m) const;

  /// The timed points of the `count` shapes nearest `problem`'s (distance:
  /// the hypotenuse of the logarithms of the N and K ratios), nearest
  /// first: of each shape the point serving `m` (the least M at or above
  /// it, else the greatest), of those publishing as `problem` does where
  /// the shape has both; never `problem`'s own N and K.
  SmallVector<const MeasuredPoint *>
  nearestMeasured(const GemmProblem &problem, int64_t m, size_t count) const;
};

/// Reads the table at `path`, or an error naming the file and the record:
/// a field of the wrong type or that the format does not have, a value out
/// of range, entries that overlap. Its chip may be another than the one
/// compiled for (sm_100a compiled with sm_90's table).
llvm::Expected<TacticTable> readTacticTable(MLIRContext *ctx, StringRef path);

/// Where the table of `chip` is (share/lamport/tactics/ beside the lib/ or
/// bin/ of the library that holds the pass, else beside the running
/// program's bin/, else under the install prefix, else the source tree's
/// data/tactics/), or an empty string where there is none: sm_90a reads
/// sm_90's, sm_100a and sm_100f sm_100's.
std::string findTacticTable(StringRef chip);

} // namespace mlir::lamport

#endif // LAMPORT_LIB_DIALECT_LAMPORT_TRANSFORMS_TACTICTABLE_H
