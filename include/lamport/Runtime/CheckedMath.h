//===- CheckedMath.h - Sizes computed without wrapping ----------*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// Every byte and element count the runtime, the check library and the C API
// compute from a manifest's shapes, a command-line value or a caller's
// argument goes through these helpers. A size_t product that wraps passes
// every later size check (a wrapped count is small) and sends a copy out of
// bounds; here it is an Error that names what overflowed instead.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_RUNTIME_CHECKEDMATH_H
#define LAMPORT_RUNTIME_CHECKEDMATH_H

#include "lamport/Runtime/Error.h"

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>

namespace lamport {
namespace runtime {

/// \p a * \p b, or nullopt where the product does not fit a size_t.
inline std::optional<std::size_t> multiplyExact(std::size_t a, std::size_t b) {
  std::size_t product;
  if (__builtin_mul_overflow(a, b, &product))
    return std::nullopt;
  return product;
}

/// \p a + \p b, or nullopt where the sum does not fit a size_t.
inline std::optional<std::size_t> addExact(std::size_t a, std::size_t b) {
  std::size_t sum;
  if (__builtin_add_overflow(a, b, &sum))
    return std::nullopt;
  return sum;
}

static_assert(sizeof(std::size_t) == 8, "sizes are 64-bit");

/// What every overflow message says a count exceeds.
inline constexpr const char *kSizeLimitText = "more than 2^64 - 1";

/// The product of \p factors; throws Error "<what>: <f0> x <f1> x ... is
/// more than 2^64 - 1" where it does not fit a size_t.
inline std::size_t checkedProduct(std::initializer_list<std::size_t> factors,
                                  const std::string &what) {
  std::size_t product = 1;
  bool overflow = false;
  for (std::size_t factor : factors) {
    std::optional<std::size_t> next = multiplyExact(product, factor);
    overflow |= !next;
    product = next.value_or(0);
  }
  if (!overflow)
    return product;
  std::string text;
  for (std::size_t factor : factors)
    text += concat(text.empty() ? "" : " x ", factor);
  throw Error(concat(what, ": ", text, " is ", kSizeLimitText));
}

/// \p a + \p b; throws Error naming \p what where the sum does not fit.
inline std::size_t checkedSum(std::size_t a, std::size_t b,
                              const std::string &what) {
  if (std::optional<std::size_t> sum = addExact(a, b))
    return *sum;
  throw Error(concat(what, ": ", a, " + ", b, " is ", kSizeLimitText));
}

/// \p value rounded up to a multiple of \p multiple (> 0); throws Error
/// naming \p what where the result does not fit.
inline std::size_t checkedRoundUp(std::size_t value, std::size_t multiple,
                                  const std::string &what) {
  std::size_t padded = checkedSum(value, multiple - 1, what);
  return padded / multiple * multiple;
}

/// Whether \p bytes starting at the address \p begin stay inside the 64-bit
/// address space (a device pointer plus a length the caller passed).
inline bool rangeFits(uint64_t begin, uint64_t bytes) {
  uint64_t end;
  return !__builtin_add_overflow(begin, bytes, &end);
}

} // namespace runtime
} // namespace lamport

#endif // LAMPORT_RUNTIME_CHECKEDMATH_H
