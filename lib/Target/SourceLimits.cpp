//===- SourceLimits.cpp - What lamport's tools refuse to parse ------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#include "lamport/Target/SourceLimits.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"

using namespace mlir;
using namespace mlir::lamport;

std::optional<ExcessNesting> mlir::lamport::findExcessNesting(StringRef text,
                                                              unsigned limit) {
  // MLIR bytecode starts with "ML\xEFR"; its bytes are no brackets.
  if (text.starts_with("ML\xEFR"))
    return std::nullopt;
  unsigned depth = 0, line = 1;
  size_t lineStart = 0;
  for (size_t i = 0, e = text.size(); i < e; ++i) {
    char c = text[i];
    switch (c) {
    case '\n':
      ++line;
      lineStart = i + 1;
      break;
    case '"':
      // A string literal, escapes included, up to its closing quote or the
      // end of the line (where the lexer stops too).
      for (++i; i < e && text[i] != '"' && text[i] != '\n'; ++i)
        if (text[i] == '\\')
          ++i;
      if (i < e && text[i] == '\n')
        --i;
      break;
    case '/':
      if (i + 1 < e && text[i + 1] == '/')
        while (i + 1 < e && text[i + 1] != '\n')
          ++i;
      break;
    case '(':
    case '[':
    case '{':
    case '<':
      if (++depth > limit)
        return ExcessNesting{
            line, unsigned(i - lineStart + 1),
            "brackets nest deeper than " + std::to_string(limit) +
                " levels here: lamport's tools refuse deeper input, since "
                "MLIR's parser recurses once per level and would overflow "
                "the stack"};
      break;
    case '>':
      // `->` and `>=` close nothing.
      if ((i > 0 && text[i - 1] == '-') || (i + 1 < e && text[i + 1] == '='))
        break;
      [[fallthrough]];
    case ')':
    case ']':
    case '}':
      if (depth)
        --depth;
      break;
    default:
      break;
    }
  }
  return std::nullopt;
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
