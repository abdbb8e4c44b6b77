//===- HarnessChecks.cpp - Checking what the steps wrote ------------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// How the harness checks outputs: on the host, element by element, in the
// first batch (exact outputs bit for bit, a dual norm's within its bound
// and then every rank against rank 0, whose bytes become the golden); on
// the device afterwards, through the check kernel's results; and the
// messages that name step, rank, output and element.
//
//===----------------------------------------------------------------------===//

#include "lamport/Check/Harness.h"
#include "lamport/Check/OutputChecks.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iomanip>
#include <sstream>

namespace lamport {
namespace check {

using namespace runtime;

namespace {

std::string hex16(uint16_t bits) {
  std::ostringstream os;
  os << "0x" << std::hex << std::setw(4) << std::setfill('0') << bits;
  return os.str();
}

std::string hex32(uint32_t bits) {
  std::ostringstream os;
  os << "0x" << std::hex << std::setw(8) << std::setfill('0') << bits;
  return os.str();
}

} // namespace

std::string Harness::describeElement(int arg, int j,
                                     std::size_t element) const {
  const ArgumentSpec &spec = bundle.manifest.arguments[arg];
  std::vector<int64_t> shape = spec.shapeFor(tokens[j]);
  std::size_t written = spec.elements(tokens[j]);
  if (element >= written) {
    bool poison =
        std::find(poisoned.begin(), poisoned.end(), arg) != poisoned.end();
    return concat("element ", element, " (past the ", shapeText(shape),
                  " the step writes, where the ", poison ? "poison" : "input",
                  " must stay)");
  }
  std::vector<int64_t> index(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    index[d] = int64_t(element % shape[d]);
    element /= shape[d];
  }
  static const char *names3[] = {"slot", "row", "column"};
  static const char *names2[] = {"row", "column"};
  std::string text = "[";
  for (std::size_t d = 0; d < index.size(); ++d) {
    const char *name = index.size() == 3   ? names3[d]
                       : index.size() == 2 ? names2[d]
                                           : "index";
    text += concat(d ? ", " : "", name, " ", index[d]);
  }
  return text + "]";
}

std::string Harness::elementBits(int arg, const uint8_t *bytes,
                                 std::size_t element) const {
  if (dtypeBytes(bundle.manifest.arguments[arg].dtype) == 2) {
    uint16_t v;
    std::memcpy(&v, bytes + 2 * element, 2);
    return hex16(v);
  }
  uint32_t v;
  std::memcpy(&v, bytes + 4 * element, 4);
  return hex32(v);
}

void Harness::setGolden(std::size_t output, int j, std::vector<uint8_t> bytes) {
  const Manifest &m = bundle.manifest;
  int arg = outputs[output].arg;
  for (int r = 0; r < options.tp; ++r) {
    std::size_t at = bufferIndex(arg, j, r);
    if (r == 0 || goldenDevice[at] != goldenDevice[bufferIndex(arg, j, 0)])
      session->upload(r, goldenDevice[at], bytes.data(), bytes.size(),
                      concat("the first run's '", m.arguments[arg].name,
                             "' of step position ", j));
    expectedDevice[at] = goldenDevice[at];
  }
  golden[output * batch + j] = std::move(bytes);
  // The references are not needed any more: rank 0's bytes are.
  expected[j].norm[arg].reset();
}

void Harness::verifyNorm(uint64_t step, std::size_t output,
                         const std::vector<std::vector<uint8_t>> &got) {
  const Manifest &m = bundle.manifest;
  int arg = outputs[output].arg;
  int j = int(step % batch);
  const ArgumentSpec &spec = m.arguments[arg];
  const NormExpectation &norm = *expected[j].norm[arg];
  std::string where = concat("step ", step, " (m = ", tokens[j], "), ");
  // (ii) rank 0 within the bound of the FP64 reference; outside the rows
  // the step writes, the poison (out) or the input (stream) unchanged.
  const std::vector<uint8_t> &first = got[0];
  std::size_t width = dtypeBytes(spec.dtype);
  std::size_t written = std::size_t(norm.rows) * norm.rowLength;
  BoundCheck found = checkWithinBound(spec.dtype, first, norm);
  if (found.violations) {
    std::size_t at = found.worstAt;
    double value = elementValue(spec.dtype, first.data(), at);
    throw Error(concat("wrong result: ", where, "rank 0, output '", spec.name,
                       "' ", describeElement(arg, j, at), " is ", value, " (",
                       elementBits(arg, first.data(), at),
                       "), the FP64 reference is ", norm.reference[at],
                       " and the bound ", norm.bound[at], " (error ",
                       found.worstViolation, " x the bound; ", found.violations,
                       " of ", written, " elements outside it)"));
  }
  if (found.outside)
    throw Error(concat(
        "wrong result: ", where, "rank 0, output '", spec.name, "' ",
        describeElement(arg, j, found.firstOutside), " is ",
        elementBits(arg, first.data(), found.firstOutside), ", expected ",
        elementBits(arg, norm.base->data(), found.firstOutside), " (",
        found.outside, " of ", first.size() / width, " elements differ)"));
  normWorst[output] = std::max(normWorst[output], found.worst);
  // (i) every rank wrote rank 0's bytes.
  for (int r = 1; r < options.tp; ++r) {
    std::size_t firstBad = 0;
    std::size_t differ = countMismatches(width, got[r], first, &firstBad);
    if (differ)
      throw Error(concat("wrong result: ", where, "rank ", r, ", output '",
                         spec.name, "' ", describeElement(arg, j, firstBad),
                         " is ", elementBits(arg, got[r].data(), firstBad),
                         " but rank 0 wrote ",
                         elementBits(arg, first.data(), firstBad),
                         ": every rank must write the same bytes (", differ,
                         " of ", first.size() / width, " elements differ)"));
  }
}

void Harness::hostVerify(uint64_t first, uint64_t count,
                         std::vector<uint64_t> *hashes, bool compareHashes,
                         bool *equal) {
  const Manifest &m = bundle.manifest;
  std::size_t h = 0;
  std::vector<std::vector<uint8_t>> got(options.tp);
  for (uint64_t s = first; s < first + count; ++s) {
    int j = int(s % batch);
    for (std::size_t o = 0; o < outputs.size(); ++o) {
      int arg = outputs[o].arg;
      const ArgumentSpec &spec = m.arguments[arg];
      std::size_t width = dtypeBytes(spec.dtype);
      for (int r = 0; r < options.tp; ++r, ++h) {
        got[r].resize(allocBytes[arg]);
        session->download(r, got[r].data(), buffers[bufferIndex(arg, j, r)],
                          got[r].size(), concat("output '", spec.name, "'"));
        uint64_t hash = fnv1a(got[r].data(), got[r].size());
        if (compareHashes) {
          if (h >= hashes->size() || (*hashes)[h] != hash)
            *equal = false;
        } else {
          hashes->push_back(hash);
        }
      }
      if (!compareHashes && s < uint64_t(batch))
        hashesByOutput[o][j] = fnv1a(
            got[0].data(), std::min(got[0].size(), spec.bytes(tokens[j])));
      bool exact = outputs[o].check == OutputCheck::Exact;
      std::vector<uint8_t> &known = golden[o * batch + j];
      if (!exact && known.empty()) {
        // The first run of this position: bound, then ranks, then golden.
        verifyNorm(s, o, got);
        setGolden(o, j, got[0]);
        continue;
      }
      for (int r = 0; r < options.tp; ++r) {
        const std::vector<uint8_t> &want =
            exact ? *expected[j].exact[arg][r] : known;
        std::size_t firstBad = 0;
        std::size_t mismatches =
            countMismatches(width, got[r], want, &firstBad);
        if (mismatches)
          throw Error(concat(
              "wrong result: step ", s, " (m = ", tokens[j], "), rank ", r,
              ", output '", spec.name, "' ", describeElement(arg, j, firstBad),
              " is ", elementBits(arg, got[r].data(), firstBad), ", expected ",
              elementBits(arg, want.data(), firstBad),
              exact ? "" : " (rank 0's bytes of the first run)", " (",
              mismatches, " of ", got[r].size() / width, " elements differ)"));
      }
    }
  }
}

void Harness::readChecks(uint64_t first, uint64_t count) {
  const Manifest &m = bundle.manifest;
  for (int r = 0; r < options.tp; ++r) {
    CheckResult result{};
    session->download(r, &result, checkResults[r], sizeof(result),
                      "the check result");
    if (!result.mismatches)
      continue;
    int j = int(result.tag / 64);
    int arg = outputs[result.tag % 64].arg;
    std::size_t element;
    std::string got, expectedText;
    if (dtypeBytes(m.arguments[arg].dtype) == 2) {
      // Name the first differing BF16 of the word.
      bool lowSame = (result.got & 0xFFFF) == (result.expected & 0xFFFF);
      element = std::size_t(result.word) * 2 + (lowSame ? 1 : 0);
      got = hex16(uint16_t(lowSame ? result.got >> 16 : result.got));
      expectedText =
          hex16(uint16_t(lowSame ? result.expected >> 16 : result.expected));
    } else {
      element = std::size_t(result.word);
      got = hex32(result.got);
      expectedText = hex32(result.expected);
    }
    // A chunk of one batch holds one step of each batch position.
    std::string step =
        count <= uint64_t(batch)
            ? concat("step ",
                     first + (uint64_t(j) + batch - first % batch) % batch)
            : concat("a step of batch position ", j);
    throw Error(concat(
        "wrong result (device check of steps ", first, "..", first + count - 1,
        "): ", result.mismatches, " word(s) differ; the first seen: ", step,
        " (m = ", tokens[j], "), rank ", r, ", output '", m.arguments[arg].name,
        "' ", describeElement(arg, j, element), " is ", got, ", expected ",
        expectedText));
  }
}

} // namespace check
} // namespace lamport
