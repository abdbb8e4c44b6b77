//===- Inputs.cpp - The inputs of a decode step, by role ------------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#include "lamport/Check/Inputs.h"
#include "lamport/Check/Reference.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <thread>
#include <vector>

namespace lamport {
namespace check {

using namespace runtime;

namespace {

/// BF16 of -2, -1, 1, 2: the nonzero values of x.
constexpr uint16_t kSmall[4] = {0xC000, 0xBF80, 0x3F80, 0x4000};
constexpr float kSmallValue[4] = {-2.0f, -1.0f, 1.0f, 2.0f};

uint16_t weightFromByte(unsigned byte) {
  int v = int((byte & 0x7F) % 5) - 2;
  if (v == 0)
    return (byte & 0x80) ? 0x8000 : 0x0000; // -0.0 for half the zeros
  return kSmall[v < 0 ? v + 2 : v + 1];
}

/// weightFromByte for every byte: one load per element instead of a
/// division and branches.
const uint16_t *weightTable() {
  static const auto table = [] {
    std::array<uint16_t, 256> t{};
    for (unsigned b = 0; b < 256; ++b)
      t[b] = weightFromByte(b);
    return t;
  }();
  return table.data();
}

float uniform24(uint64_t h) {
  return float((h >> 40) & 0xFFFFFF) / 16777216.0f;
}

uint32_t streamBits(uint64_t h) {
  if ((h & 63) == 0)
    return (h & 64) ? 0x80000000u : 0u; // +-0.0
  uint32_t sign = uint32_t(h >> 63) << 31;
  int exponent = int((h >> 8) % 14) - 12; // 2^-12 .. 2^1: |v| < 4
  uint32_t mantissa = uint32_t(h >> 20) & 0x7FFFFF;
  return sign | (uint32_t(127 + exponent) << 23) | mantissa;
}

uint32_t floatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  return bits;
}

} // namespace

const char *inputKindName(InputKind kind) {
  switch (kind) {
  case InputKind::Bits:
    return "bits";
  case InputKind::Integers:
    return "integers";
  case InputKind::GemmX:
    return "gemm-x";
  case InputKind::GemmWeight:
    return "gemm-weight";
  case InputKind::Stream:
    return "stream";
  case InputKind::Gate:
    return "gate";
  case InputKind::NormWeight:
    return "norm-weight";
  case InputKind::Reduced:
    return "reduced";
  }
  return "?";
}

DType inputDType(InputKind kind) {
  return kind == InputKind::Stream || kind == InputKind::Gate ? DType::F32
                                                              : DType::BF16;
}

bool InputSpec::replicated() const {
  return kind == InputKind::Stream || kind == InputKind::Gate ||
         kind == InputKind::NormWeight || kind == InputKind::Reduced;
}

uint64_t inputKey(const InputSpec &spec, uint64_t seed, uint32_t set,
                  int rank) {
  uint64_t rankBits = spec.replicated() ? 0xFFFFFFFFull : uint32_t(rank);
  uint64_t where = splitmix64((uint64_t(set) << 32) ^ rankBits);
  return splitmix64(
      seed ^ splitmix64(fnv1a(spec.role.data(), spec.role.size()) ^ where));
}

uint16_t gemmWeightBits(uint64_t key, uint64_t index) {
  uint64_t word = splitmix64(key + (index >> 3));
  return weightTable()[(word >> (8 * (index & 7))) & 0xFF];
}

GemmXRow gemmXRow(uint64_t key, uint64_t row, int64_t k) {
  uint64_t h = splitmix64(key ^ splitmix64(row));
  int64_t quarter = k / 4;
  GemmXRow result;
  int64_t offset = quarter > 0 ? int64_t(h % uint64_t(quarter)) : 0;
  for (int q = 0; q < 4; ++q) {
    result.column[q] = offset + q * quarter;
    result.value[q] = kSmallValue[(h >> (40 + 2 * q)) & 3];
  }
  return result;
}

void parallelFor(std::size_t count, std::size_t grain,
                 const std::function<void(std::size_t, std::size_t)> &body) {
  std::size_t threads = std::max(1u, std::thread::hardware_concurrency());
  threads = std::min<std::size_t>(threads, 32);
  threads = std::min<std::size_t>(threads, (count + grain - 1) / grain);
  if (threads <= 1) {
    body(0, count);
    return;
  }
  std::vector<std::thread> pool;
  std::size_t chunk = (count + threads - 1) / threads;
  for (std::size_t t = 0; t < threads; ++t) {
    std::size_t begin = t * chunk, end = std::min(count, begin + chunk);
    if (begin < end)
      pool.emplace_back(body, begin, end);
  }
  for (std::thread &thread : pool)
    thread.join();
}

void generateInput(const InputSpec &spec, uint64_t seed, uint32_t set, int rank,
                   void *out, std::size_t elements) {
  uint64_t key = inputKey(spec, seed, set, rank);
  auto *bf16 = static_cast<uint16_t *>(out);
  auto *f32 = static_cast<uint32_t *>(out);
  switch (spec.kind) {
  case InputKind::Bits:
  case InputKind::Integers: {
    PatternKind pattern = spec.kind == InputKind::Bits ? PatternKind::Bits
                                                       : PatternKind::Integers;
    parallelFor(elements, 1 << 18, [&](std::size_t begin, std::size_t end) {
      for (std::size_t i = begin; i < end; ++i)
        bf16[i] = patternValue(pattern, seed, set, rank, i);
    });
    return;
  }
  case InputKind::GemmWeight: {
    // Eight elements per hash: a [8192, 1024] shard is 1M hashes.
    const uint16_t *table = weightTable();
    parallelFor((elements + 7) / 8, 1 << 16,
                [&](std::size_t begin, std::size_t end) {
                  for (std::size_t g = begin; g < end; ++g) {
                    uint64_t word = splitmix64(key + g);
                    std::size_t n = std::min<std::size_t>(8, elements - g * 8);
                    uint16_t *to = bf16 + g * 8;
                    if (n == 8) {
                      for (int b = 0; b < 8; ++b)
                        to[b] = table[(word >> (8 * b)) & 0xFF];
                      continue;
                    }
                    for (std::size_t b = 0; b < n; ++b)
                      to[b] = table[(word >> (8 * b)) & 0xFF];
                  }
                });
    return;
  }
  case InputKind::GemmX: {
    int64_t k = spec.rowLength > 0 ? spec.rowLength : 1;
    std::memset(out, 0, elements * 2);
    for (std::size_t row = 0; row * k < elements; ++row) {
      GemmXRow nz = gemmXRow(key, row, k);
      for (int q = 0; q < 4; ++q) {
        std::size_t at = row * k + nz.column[q];
        if (nz.column[q] < k && at < elements)
          bf16[at] = floatToBf16(nz.value[q]);
      }
    }
    return;
  }
  case InputKind::Stream:
    parallelFor(elements, 1 << 18, [&](std::size_t begin, std::size_t end) {
      for (std::size_t i = begin; i < end; ++i)
        f32[i] = streamBits(splitmix64(key + i));
    });
    return;
  case InputKind::Gate:
    for (std::size_t i = 0; i < elements; ++i)
      f32[i] = floatBits(0.25f + 1.25f * uniform24(splitmix64(key + i)));
    return;
  case InputKind::NormWeight:
    for (std::size_t i = 0; i < elements; ++i)
      bf16[i] = floatToBf16(0.5f + uniform24(splitmix64(key + i)));
    return;
  case InputKind::Reduced:
    for (std::size_t i = 0; i < elements; ++i) {
      uint64_t h = splitmix64(key + i);
      bf16[i] = (h & 15) == 0 ? uint16_t(0x8000)
                              : floatToBf16(float(int((h >> 8) % 129) - 64));
    }
    return;
  }
}

std::size_t inputElements(const InputSpec &spec, std::size_t bytes) {
  if (spec.kind == InputKind::Bits || spec.kind == InputKind::Integers)
    return bytes / 2;
  return bytes / dtypeBytes(inputDType(spec.kind));
}

void generateInputBytes(const InputSpec &spec, uint64_t seed, uint32_t set,
                        int rank, void *out, std::size_t bytes) {
  std::size_t elements = inputElements(spec, bytes);
  std::size_t used =
      spec.kind == InputKind::Bits || spec.kind == InputKind::Integers
          ? elements * 2
          : elements * dtypeBytes(inputDType(spec.kind));
  std::memset(static_cast<uint8_t *>(out) + used, 0, bytes - used);
  generateInput(spec, seed, set, rank, out, elements);
}

std::vector<uint8_t> inputBytes(const InputSpec &spec, uint64_t seed,
                                uint32_t set, int rank, std::size_t bytes) {
  std::vector<uint8_t> data(bytes);
  generateInputBytes(spec, seed, set, rank, data.data(), bytes);
  return data;
}

} // namespace check
} // namespace lamport
