//===- SourceLimits.h - What lamport's tools refuse to parse ----*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// MLIR's parser recurses once per nesting level of attributes, types and
// regions and has no depth limit: 10,000 nested `[` or 5,000 nested regions
// overflow the stack of lamport-opt, lamport-compile or a Python
// interpreter. Every entry point that parses text (the tools, the C API)
// scans it first and refuses brackets nested deeper than a limit far above
// any real program and far below what the stack holds. The affine
// expression parser also recurses once per operator of a chain (`d0 + d0 +
// ...`, `- - d0`), so the scan bounds those chains as well.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_TARGET_SOURCELIMITS_H
#define LAMPORT_TARGET_SOURCELIMITS_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace mlir::lamport {

/// The deepest nesting of brackets ((, [, {, <) the tools parse. Real
/// programs nest under 20; at 256 levels the parser and the passes use
/// well under a megabyte of stack.
inline constexpr unsigned kMaxNestingDepth = 256;

/// The longest chain of arithmetic operators (`+ - * floordiv ceildiv mod`)
/// between two separators (`,`, `=`, `{`, `}`) the tools parse. Affine
/// expressions in real programs chain a handful; MLIR's affine parser
/// overflows an 8 MiB stack at about 100,000.
inline constexpr unsigned kMaxOperatorChain = 4096;

/// Where a text nests brackets deeper than the limit, or chains more
/// operators than kMaxOperatorChain.
struct ExcessNesting {
  unsigned line = 0, column = 0; ///< 1-based, of the first bracket past it.
  /// What to tell the user: the limit and why it exists.
  std::string message;
};

/// Scans \p text (string literals and `//` comments skipped; `->` and `>=`
/// are not brackets) for nesting deeper than \p limit and for operator
/// chains longer than kMaxOperatorChain. MLIR bytecode is not scanned.
/// Linear in the text and allocation-free.
std::optional<ExcessNesting>
findExcessNesting(StringRef text, unsigned limit = kMaxNestingDepth);

/// findExcessNesting's error for \p text, the buffer named \p name, as
/// "NAME:LINE:COL: error: MESSAGE"; nullopt where the text is not too deep.
/// Unlike a diagnostic it does not quote the source line, which for such
/// input can be megabytes of brackets.
std::optional<std::string> checkNesting(StringRef text, StringRef name);

} // namespace mlir::lamport

#endif // LAMPORT_TARGET_SOURCELIMITS_H
