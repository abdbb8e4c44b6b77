//===- Simulator.cpp - A decode step of a bundle, on the host -------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// The simulation of one step over a program plan (ProgramPlan.cpp): host
// values of every buffer per rank and the rows in every mailbox's slots,
// and each op applied to them in launch order (Simulator.h lists what each
// op does).
//
//===----------------------------------------------------------------------===//

#include "lamport/Check/Simulator.h"
#include "lamport/Runtime/CheckedMath.h"
#include "lamport/Runtime/Error.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace lamport {
namespace check {

using namespace runtime;

namespace {

using Bytes = std::vector<uint8_t>;
using Value = std::shared_ptr<const Bytes>;
using Rows = std::shared_ptr<const std::vector<uint16_t>>;

uint16_t loadBf16(const Bytes &b, std::size_t i) {
  uint16_t v;
  std::memcpy(&v, b.data() + 2 * i, 2);
  return v;
}
void storeBf16(Bytes &b, std::size_t i, uint16_t v) {
  std::memcpy(b.data() + 2 * i, &v, 2);
}
float loadF32(const Bytes &b, std::size_t i) {
  float v;
  std::memcpy(&v, b.data() + 4 * i, 4);
  return v;
}
void storeF32(Bytes &b, std::size_t i, float v) {
  std::memcpy(b.data() + 4 * i, &v, 4);
}

class StepSimulator {
public:
  StepSimulator(const Manifest &m, const ProgramPlan &plan,
                const SimulationConfig &config, uint32_t set, int tokens)
      : m(m), plan(plan), config(config), set(set), tokens(tokens),
        tp(config.tp) {
    values.assign(m.arguments.size(), std::vector<Value>(tp));
    norms.assign(m.arguments.size(), nullptr);
    slots.assign(m.mailboxes.size(), std::vector<Rows>(tp));
    for (std::size_t a = 0; a < m.arguments.size(); ++a) {
      const ArgumentPlan &p = plan.arguments[a];
      std::size_t bytes =
          a < config.allocationBytes.size() ? config.allocationBytes[a] : 0;
      if (p.input) {
        if (p.spec.kind == InputKind::GemmWeight)
          continue; // Read element by element from its hash.
        for (int r = 0; r < tp; ++r)
          values[a][r] = p.spec.replicated() && r > 0
                             ? values[a][0]
                             : std::make_shared<const Bytes>(inputBytes(
                                   p.spec, config.seed, set, r, bytes));
      } else if (p.poison) {
        auto poison = std::make_shared<Bytes>(bytes);
        for (std::size_t i = 0; i + 1 < bytes; i += 2)
          storeBf16(*poison, i / 2, kPoison);
        for (int r = 0; r < tp; ++r)
          values[a][r] = poison;
      }
    }
  }

  StepExpectation run() {
    for (const PlannedLaunch &launch : plan.launches) {
      // Of an op's alternatives, only the one for this step's M runs.
      if (launch.tokens && !launch.tokens->contains(tokens))
        continue;
      const std::string &op = launch.op;
      if (op == "publish_rows")
        publishRows(launch, "rows");
      else if (op == "gemm_publish")
        gemmPublish(launch);
      else if (op == "poll_rows")
        pollRows(launch);
      else if (op == "all_reduce")
        allReduce(launch);
      else if (op == "all_gather")
        allGather(launch);
      else if (isDualNorm(op)) {
        if (m.kernels[launch.kernel].publishesAndConsumes())
          publishRows(launch, "partial");
        dualNorm(launch);
      } else
        throw Error(concat(launch.who, ": no host simulation"));
    }
    StepExpectation expectation;
    expectation.exact.resize(m.arguments.size());
    expectation.norm.resize(m.arguments.size());
    for (std::size_t a = 0; a < m.arguments.size(); ++a) {
      const ArgumentPlan &p = plan.arguments[a];
      if (p.check == OutputCheck::Exact) {
        for (int r = 0; r < tp; ++r)
          if (!values[a][r])
            throw Error(concat("argument '", m.arguments[a].name,
                               "' has no simulated value on rank ", r));
        expectation.exact[a].assign(values[a].begin(), values[a].end());
      } else if (p.check == OutputCheck::Norm) {
        expectation.norm[a] = norms[a];
      }
    }
    return expectation;
  }

private:
  const ArgumentSpec &argOf(const PlannedLaunch &l, const std::string &role) {
    return m.arguments[l.argument(role)];
  }

  const Bytes &valueOf(const PlannedLaunch &l, const std::string &role,
                       int rank) {
    const Value &v = values[l.argument(role)][rank];
    if (!v)
      throw Error(concat(l.who, ": role '", role, "' (argument '",
                         argOf(l, role).name, "') has no host value on rank ",
                         rank));
    return *v;
  }

  /// The value of \p role, which must be the same on every rank.
  const Bytes &replicated(const PlannedLaunch &l, const std::string &role) {
    const Bytes &first = valueOf(l, role, 0);
    for (int r = 1; r < tp; ++r) {
      const Bytes &other = valueOf(l, role, r);
      if (&other != &first && other != first)
        throw Error(concat(l.who, ": role '", role, "' (argument '",
                           argOf(l, role).name,
                           "') holds other values on "
                           "rank ",
                           r,
                           " than on rank 0; a dual norm's check needs every "
                           "rank to compute from the same values"));
    }
    return first;
  }

  /// The product of \p factors, an element count of \p l's; throws where it
  /// does not fit a size_t.
  std::size_t count(const PlannedLaunch &l,
                    std::initializer_list<std::size_t> factors) const {
    return checkedProduct(factors,
                          concat(l.who, ": an element count at m = ", tokens));
  }

  /// Checks that \p arg's allocation holds \p elements of its dtype.
  void needElements(const PlannedLaunch &l, int arg, std::size_t elements) {
    const ArgumentSpec &spec = m.arguments[arg];
    std::size_t have = config.allocationBytes[arg] / dtypeBytes(spec.dtype);
    if (elements > have)
      throw Error(concat(l.who, ": argument '", spec.name, "' holds ", have,
                         " elements, but m = ", tokens, " needs ", elements));
  }

  /// Writes \p arg on every rank: \p write applied once to a copy of each
  /// distinct current value.
  void writeAll(int arg, const std::function<void(Bytes &)> &write) {
    std::vector<Value> old = values[arg];
    std::vector<std::pair<const Bytes *, Value>> done;
    for (int r = 0; r < tp; ++r) {
      const Bytes *base = old[r].get();
      if (!base)
        throw Error(concat("argument '", m.arguments[arg].name,
                           "' has no host value on rank ", r));
      auto it = std::find_if(done.begin(), done.end(),
                             [&](const auto &d) { return d.first == base; });
      if (it != done.end()) {
        values[arg][r] = it->second;
        continue;
      }
      auto copy = std::make_shared<Bytes>(*base);
      write(*copy);
      done.emplace_back(base, copy);
      values[arg][r] = copy;
    }
  }

  /// Every rank's rows in \p l's mailbox; the slots are then empty.
  std::vector<Rows> take(const PlannedLaunch &l) {
    std::vector<Rows> rows = slots[l.mailbox];
    for (int r = 0; r < tp; ++r)
      if (!rows[r])
        throw Error(concat(l.who, ": slot ", r, " of mailbox '",
                           m.mailboxes[l.mailbox].name,
                           "' is empty: no earlier launch of the step "
                           "published into it"));
    slots[l.mailbox].assign(tp, nullptr);
    return rows;
  }

  /// The rows of role \p role, published into slot [NEXT, r] of every copy.
  void publishRows(const PlannedLaunch &l, const char *role) {
    std::size_t elements =
        count(l, {std::size_t(tokens), std::size_t(l.width)});
    needElements(l, l.argument(role), elements);
    for (int r = 0; r < tp; ++r) {
      const Bytes &rows = valueOf(l, role, r);
      auto slot = std::make_shared<std::vector<uint16_t>>(elements);
      for (std::size_t i = 0; i < slot->size(); ++i)
        (*slot)[i] = canonicalizeSentinel(loadBf16(rows, i));
      slots[l.mailbox][r] = slot;
    }
  }

  void gemmPublish(const PlannedLaunch &l) {
    int y = l.argument("y");
    int64_t n = l.n, k = l.k;
    std::size_t yElements = count(l, {std::size_t(tokens), std::size_t(n)});
    needElements(l, l.argument("x"),
                 count(l, {std::size_t(tokens), std::size_t(k)}));
    needElements(l, y, yElements);
    const ArgumentPlan &weight = plan.arguments[l.argument("weight")];
    for (int r = 0; r < tp; ++r) {
      const Bytes &x = valueOf(l, "x", r);
      uint64_t key = inputKey(weight.spec, config.seed, set, r);
      // y[row, :] = sum over x's nonzeros of x[row, c] * w[:, c].
      std::vector<std::vector<std::pair<int64_t, double>>> nonzeros(tokens);
      for (int row = 0; row < tokens; ++row)
        for (int64_t c = 0; c < k; ++c) {
          float v = bf16ToFloat(loadBf16(x, std::size_t(row) * k + c));
          if (v != 0.0f)
            nonzeros[row].emplace_back(c, double(v));
        }
      auto out = std::make_shared<Bytes>(*values[y][r]);
      parallelFor(yElements, 1 << 14, [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) {
          std::size_t row = i / n, col = i % n;
          double sum = 0.0; // +0.0: a zero sum stays +0.0
          for (const auto &[c, v] : nonzeros[row])
            sum +=
                v *
                double(bf16ToFloat(gemmWeightBits(key, uint64_t(col) * k + c)));
          storeBf16(*out, i, floatToBf16(float(sum)));
        }
      });
      values[y][r] = out;
      if (l.mailbox >= 0) {
        auto slot = std::make_shared<std::vector<uint16_t>>(yElements);
        for (std::size_t i = 0; i < slot->size(); ++i)
          (*slot)[i] = canonicalizeSentinel(loadBf16(*out, i));
        slots[l.mailbox][r] = slot;
      }
    }
  }

  void pollRows(const PlannedLaunch &l) {
    std::vector<Rows> rows = take(l);
    int out = l.argument("out");
    const ArgumentSpec &spec = m.arguments[out];
    int64_t width = l.width;
    int64_t perSlot = spec.shape[1] == -1 ? tokens : spec.shape[1];
    needElements(
        l, out,
        count(l, {std::size_t(tp), std::size_t(perSlot), std::size_t(width)}));
    writeAll(out, [&](Bytes &b) {
      for (int s = 0; s < tp; ++s)
        for (int row = 0; row < tokens; ++row)
          for (int64_t c = 0; c < width; ++c)
            storeBf16(b, (std::size_t(s) * perSlot + row) * width + c,
                      (*rows[s])[std::size_t(row) * width + c]);
    });
  }

  void allReduce(const PlannedLaunch &l) {
    std::vector<Rows> rows = take(l);
    int out = l.argument("out");
    std::size_t elements =
        count(l, {std::size_t(tokens), std::size_t(l.width)});
    needElements(l, out, elements);
    std::vector<uint16_t> sum(elements);
    std::vector<float> partials(tp);
    for (std::size_t i = 0; i < elements; ++i) {
      for (int s = 0; s < tp; ++s)
        partials[s] = bf16ToFloat((*rows[s])[i]);
      sum[i] = floatToBf16(sumPartials(partials, l.order));
    }
    writeAll(out, [&](Bytes &b) {
      for (std::size_t i = 0; i < elements; ++i)
        storeBf16(b, i, sum[i]);
    });
    if (plan.arguments[out].check == OutputCheck::Norm)
      boundSum(out, rows, elements, l.width);
  }

  /// The FP64 sum of \p rows and its bound (checkSumsWithinBound): what
  /// out must hold, whatever the order of the sum.
  void boundSum(int out, const std::vector<Rows> &rows, std::size_t elements,
                int64_t width) {
    auto norm = std::make_shared<NormExpectation>();
    norm->rows = tokens;
    norm->rowLength = width;
    norm->reference.resize(elements);
    norm->bound.resize(elements);
    for (std::size_t i = 0; i < elements; ++i) {
      double sum = 0, magnitudes = 0;
      for (int s = 0; s < tp; ++s) {
        double partial = bf16ToFloat((*rows[s])[i]);
        sum += partial;
        magnitudes += std::fabs(partial);
      }
      norm->reference[i] = sum;
      norm->bound[i] = sumTolerance(magnitudes, tp);
    }
    norm->base = values[out][0];
    norms[out] = norm;
  }

  void allGather(const PlannedLaunch &l) {
    std::vector<Rows> rows = take(l);
    int out = l.argument("out");
    int64_t width = l.width;
    needElements(
        l, out,
        count(l, {std::size_t(tokens), std::size_t(tp), std::size_t(width)}));
    writeAll(out, [&](Bytes &b) {
      for (int row = 0; row < tokens; ++row)
        for (int s = 0; s < tp; ++s)
          for (int64_t c = 0; c < width; ++c)
            storeBf16(b, (std::size_t(row) * tp + s) * width + c,
                      (*rows[s])[std::size_t(row) * width + c]);
    });
  }

  void dualNorm(const PlannedLaunch &l) {
    int64_t width = l.width;
    std::size_t count =
        this->count(l, {std::size_t(tokens), std::size_t(width)});
    int outArg = l.argument("out"), streamArg = l.argument("stream");
    needElements(l, outArg, count);
    needElements(l, streamArg, count);
    std::vector<double> reduced(count);
    if (l.op == "all_reduce_dual_norm") {
      std::vector<Rows> rows = take(l);
      std::vector<float> partials(tp);
      for (std::size_t i = 0; i < count; ++i) {
        for (int s = 0; s < tp; ++s)
          partials[s] = bf16ToFloat((*rows[s])[i]);
        reduced[i] = double(sumPartials(partials, l.order));
      }
    } else {
      needElements(l, l.argument("reduced"), count);
      const Bytes &bytes = replicated(l, "reduced");
      for (std::size_t i = 0; i < count; ++i)
        reduced[i] = double(bf16ToFloat(loadBf16(bytes, i)));
    }
    const Bytes &streamIn = replicated(l, "stream");
    const Bytes &alphaIn = replicated(l, "alpha");
    const Bytes &betaIn = replicated(l, "beta");
    const Bytes &nextIn = replicated(l, "next_weight");
    const Bytes *postIn = l.argument("post_weight") >= 0
                              ? &replicated(l, "post_weight")
                              : nullptr;
    const Bytes &outIn = replicated(l, "out");
    std::vector<float> stream(count), alpha(l.alphaCount), beta(l.betaCount);
    for (std::size_t i = 0; i < count; ++i)
      stream[i] = loadF32(streamIn, i);
    for (int64_t i = 0; i < l.alphaCount; ++i)
      alpha[i] = loadF32(alphaIn, i);
    for (int64_t i = 0; i < l.betaCount; ++i)
      beta[i] = loadF32(betaIn, i);
    std::vector<uint16_t> next(width), post(postIn ? width : 0);
    for (int64_t c = 0; c < width; ++c) {
      next[c] = loadBf16(nextIn, c);
      if (postIn)
        post[c] = loadBf16(*postIn, c);
    }

    auto outNorm = std::make_shared<NormExpectation>();
    auto streamNorm = std::make_shared<NormExpectation>();
    for (NormExpectation *e : {outNorm.get(), streamNorm.get()}) {
      e->rows = tokens;
      e->rowLength = width;
      e->reference.resize(count);
      e->bound.resize(count);
    }
    for (int row = 0; row < tokens; ++row) {
      std::size_t at = std::size_t(row) * width;
      DualNormRowInputs in;
      in.width = int(width);
      in.reduced = &reduced[at];
      in.stream = &stream[at];
      in.alpha = alpha.data();
      in.alphaCount = int(l.alphaCount);
      in.beta = beta.data();
      in.betaCount = int(l.betaCount);
      in.postWeight = postIn ? post.data() : nullptr;
      in.nextWeight = next.data();
      in.eps = l.eps;
      referenceDualNormRow(in, &streamNorm->reference[at],
                           &streamNorm->bound[at], &outNorm->reference[at],
                           &outNorm->bound[at]);
    }
    auto outBytes = std::make_shared<Bytes>(outIn);
    auto streamBytes = std::make_shared<Bytes>(streamIn);
    for (std::size_t i = 0; i < count; ++i) {
      storeBf16(*outBytes, i, floatToBf16(float(outNorm->reference[i])));
      storeF32(*streamBytes, i, float(streamNorm->reference[i]));
    }
    outNorm->base = outBytes;
    streamNorm->base = streamBytes;
    values[outArg].assign(tp, outBytes);
    values[streamArg].assign(tp, streamBytes);
    norms[outArg] = outNorm;
    norms[streamArg] = streamNorm;
  }

  const Manifest &m;
  const ProgramPlan &plan;
  const SimulationConfig &config;
  uint32_t set;
  int tokens;
  int tp;
  std::vector<std::vector<Value>> values;              ///< [argument][rank]
  std::vector<std::shared_ptr<NormExpectation>> norms; ///< [argument]
  std::vector<std::vector<Rows>> slots;                ///< [mailbox][rank]
};

} // namespace

StepExpectation simulateStep(const Manifest &manifest, const ProgramPlan &plan,
                             const SimulationConfig &config, uint32_t set,
                             int tokens) {
  if (config.allocationBytes.size() != manifest.arguments.size())
    throw Error("simulateStep: one allocation size per argument is needed");
  return StepSimulator(manifest, plan, config, set, tokens).run();
}

} // namespace check
} // namespace lamport
