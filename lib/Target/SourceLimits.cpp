//===- SourceLimits.cpp - What lamport's tools refuse to parse ------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#include "lamport/Target/SourceLimits.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"

using namespace mlir;
using namespace mlir::lamport;

namespace {
/// One pass over a source text, tracking bracket depth and the length of
/// the current operator chain.
class SourceScanner {
public:
  SourceScanner(StringRef text, unsigned limit) : text(text), limit(limit) {}

  std::optional<ExcessNesting> run() {
    for (i = 0; i < text.size(); ++i)
      if (std::optional<ExcessNesting> excess = step())
        return excess;
    return std::nullopt;
  }

private:
  /// Looks at text[i] (and may consume what follows it).
  std::optional<ExcessNesting> step() {
    char c = text[i];
    switch (c) {
    case '\n':
      ++line;
      lineStart = i + 1;
      return std::nullopt;
    case '"':
      skipString();
      return std::nullopt;
    case '/':
      if (peek(1) == '/')
        while (i + 1 < text.size() && text[i + 1] != '\n')
          ++i;
      return std::nullopt;
    case '{':
      // A region or dictionary starts a new chain.
      chain = 0;
      [[fallthrough]];
    case '(':
    case '[':
    case '<':
      if (++depth > limit)
        return excess("brackets nest deeper than " + std::to_string(limit) +
                      " levels here: lamport's tools refuse deeper input, "
                      "since MLIR's parser recurses once per level and would "
                      "overflow the stack");
      return std::nullopt;
    case '>':
      // `->` and `>=` close nothing.
      if (peekBack(1) == '-' || peek(1) == '=')
        return std::nullopt;
      [[fallthrough]];
    case ')':
    case ']':
      if (depth)
        --depth;
      return std::nullopt;
    case '}':
      chain = 0;
      if (depth)
        --depth;
      return std::nullopt;
    case ',':
    case '=':
      chain = 0;
      return std::nullopt;
    case '*':
      return countOperator();
    case '-':
      return peek(1) == '>' ? std::nullopt : countOperator();
    case '+':
      // The `+` of a float's exponent (`1.0e+5`) joins no chain.
      if ((peekBack(1) == 'e' || peekBack(1) == 'E') &&
          llvm::isDigit(peekBack(2)) && llvm::isDigit(peek(1)))
        return std::nullopt;
      return countOperator();
    default:
      if (llvm::isAlpha(c) || c == '_')
        return scanWord();
      return std::nullopt;
    }
  }

  /// An identifier: the keyword operators of affine expressions count.
  std::optional<ExcessNesting> scanWord() {
    size_t start = i;
    while (i + 1 < text.size() &&
           (llvm::isAlnum(text[i + 1]) || text[i + 1] == '_' ||
            text[i + 1] == '.' || text[i + 1] == '$'))
      ++i;
    StringRef word = text.slice(start, i + 1);
    if (word == "floordiv" || word == "ceildiv" || word == "mod")
      return countOperator();
    return std::nullopt;
  }

  std::optional<ExcessNesting> countOperator() {
    if (++chain <= kMaxOperatorChain)
      return std::nullopt;
    return excess("an expression chains more than " +
                  std::to_string(kMaxOperatorChain) +
                  " operators here: lamport's tools refuse longer chains, "
                  "since MLIR's affine expression parser recurses once per "
                  "operator and would overflow the stack");
  }

  /// A string literal, escapes included, up to its closing quote or the end
  /// of the line (where the lexer stops too).
  void skipString() {
    size_t e = text.size();
    for (++i; i < e && text[i] != '"' && text[i] != '\n'; ++i)
      if (text[i] == '\\')
        ++i;
    if (i < e && text[i] == '\n')
      --i;
  }

  char peek(size_t ahead) const {
    return i + ahead < text.size() ? text[i + ahead] : '\0';
  }
  char peekBack(size_t behind) const {
    return i >= behind ? text[i - behind] : '\0';
  }

  std::optional<ExcessNesting> excess(std::string message) const {
    return ExcessNesting{line, unsigned(i - lineStart + 1), std::move(message)};
  }

  StringRef text;
  unsigned limit;
  size_t i = 0, lineStart = 0;
  unsigned depth = 0, line = 1, chain = 0;
};
} // namespace

std::optional<ExcessNesting> mlir::lamport::findExcessNesting(StringRef text,
                                                              unsigned limit) {
  // MLIR bytecode starts with "ML\xEFR"; its bytes are no brackets.
  if (text.starts_with("ML\xEFR"))
    return std::nullopt;
  return SourceScanner(text, limit).run();
}

std::optional<std::string> mlir::lamport::checkNesting(StringRef text,
                                                       StringRef name) {
  std::optional<ExcessNesting> excess = findExcessNesting(text);
  if (!excess)
    return std::nullopt;
  return (name + ":" + Twine(excess->line) + ":" + Twine(excess->column) +
          ": error: " + excess->message)
      .str();
}
