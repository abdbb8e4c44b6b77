//===- Simulator.h - A decode step of a bundle, on the host -----*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// The host model of a whole decode-step program, from which lamport-run
// knows what every output must hold. A ProgramPlan binds each launch's
// buffer parameters to the roles of its op (docs/bundle.md: `rows`; `out`;
// `weight`, `x`, `y` of gemm_publish; `reduced`, `stream`, `alpha`, `beta`,
// `post_weight`, `next_weight`, `out` of the dual norms), checks shapes,
// dtypes and attributes, and decides per program argument: is it an input
// (read before any launch writes it; filled by role, Inputs.h), is it an
// output and how is it checked, is it poisoned or restored before a checked
// step. simulateStep then walks the launches in order for one batch
// position, keeping host values of every buffer per rank and what each
// mailbox's slots hold, and applies each op:
//
//   publish_rows          slot[rank] = rows, -0.0 stored as +0.0
//   gemm_publish          y = bf16(sum_k x[m, k] w[n, k]) (exact: the
//                         inputs are small integers); with a mailbox, also
//                         slot[rank] = y, canonicalised
//   poll_rows             out[slot, m, :] = slot's rows
//   all_reduce            out = bf16(FP32 sum of the slots in sum_order);
//                         under checkSumsWithinBound, also the FP64 sum
//                         and its bound
//   all_gather            out[m, r * W + c] = slot r's [m, c]
//   all_reduce_dual_norm  r = FP32 sum of the slots in sum_order; the dual
//                         norm in FP64 (Reference.h) gives the references
//                         and bounds of stream and out
//   dual_norm             the same with r = reduced
//
// Every value is either exact (compared bit for bit) or a dual norm's
// (compared within a bound, then against rank 0's bytes). A launch that
// reads a dual norm's output cannot be simulated and is refused.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_CHECK_SIMULATOR_H
#define LAMPORT_CHECK_SIMULATOR_H

#include "lamport/Check/Inputs.h"
#include "lamport/Check/Reference.h"
#include "lamport/Runtime/Manifest.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace lamport {
namespace check {

/// One buffer role of an op. How the op uses the buffer is the manifest's
/// (the param's `io`, written by the compiler from the op's roles), not
/// restated here.
struct RoleSpec {
  const char *name;
  bool required;
};

/// What the simulation needs of an op beyond the manifest: whether it takes
/// a mailbox and which roles its semantics (Simulator.cpp) read.
struct OpSignature {
  enum class MailboxUse { None, Optional, Required } mailbox;
  std::vector<RoleSpec> roles;
};

/// The signature of \p op, or null for an op with no host simulation.
const OpSignature *opSignature(const std::string &op);
/// True when lamport-run can simulate \p op (and so check what it writes).
bool hasSimulation(const std::string &op);
/// "weight, x, y": the role names of \p op, for messages.
std::string roleList(const std::string &op);
/// True for the dual norms (all_reduce_dual_norm, dual_norm), whose out and
/// stream are known only within a bound.
bool isDualNorm(const std::string &op);

/// How an output of the step is checked.
enum class OutputCheck {
  None,
  /// Exactly predictable: compared bit for bit with the host's bytes.
  Exact,
  /// A dual norm's out or stream: within a bound of the FP64 reference in
  /// the first batch, every rank equal to rank 0, then rank 0's bytes
  /// (the golden) bit for bit.
  Norm,
};

/// One launch of the step, its buffers bound to roles.
struct PlannedLaunch {
  int kernel = -1;
  std::string op;
  std::string who; ///< "kernel 'name' (op)", for messages.
  /// The range of M the launch runs for, where it is one of an op's
  /// alternatives chosen by M; nullopt: every M.
  std::optional<runtime::TokenRange> tokens;
  int mailbox = -1; ///< Index into the manifest's mailboxes; -1 for none.
  /// Role -> argument index.
  std::map<std::string, int> roles;
  /// Role -> how the kernel uses the buffer (its param's io).
  std::map<std::string, runtime::BufferIO> access;
  SumOrder order = SumOrder::RankAscending;
  double eps = 1e-6;
  /// gemm_publish: N and K. Consumers and publishers: the mailbox width.
  /// Dual norms: H.
  int64_t n = 0, k = 0, width = 0;
  /// Dual norms: elements of alpha and beta (1 or H).
  int64_t alphaCount = 1, betaCount = 1;

  /// The argument bound to \p role, or -1.
  int argument(const std::string &role) const;
};

/// What a step does with one program argument.
struct ArgumentPlan {
  /// Read before any launch of the step writes it: lamport-run fills it.
  bool input = false;
  InputSpec spec;
  bool written = false;
  OutputCheck check = OutputCheck::None;
  /// Written whole by an `out`-like role before anything reads it: poisoned
  /// before a checked step, so an element no kernel wrote is caught.
  bool poison = false;
  /// An input the step updates in place (the stream): restored from a
  /// pristine copy before a checked step.
  bool restore = false;
  /// The launch that writes it last, for messages.
  std::string writer;
};

/// The launches of one step bound to roles, and what each argument is.
class ProgramPlan {
public:
  /// Binds and validates every launch of \p manifest for a TP group of
  /// \p tp. With \p strict (--check), throws Error naming kernel, op, role
  /// and argument for whatever the simulation cannot do: an op without a
  /// simulation, a buffer without a role (where the op has more than one),
  /// an unknown or repeated role, a wrong shape, dtype or attribute, a
  /// consumer of a mailbox nothing published into. Otherwise a launch that
  /// does not bind is left out, and buffers no bound launch reads are
  /// filled with Bits. A `ticket` role is refused either way: lamport-run
  /// does not drive ticket stages.
  ProgramPlan(const runtime::Manifest &manifest, int tp, bool strict);

  /// For a step whose all-reduces run in another library's sum order (the
  /// nccl transport): every all_reduce's out is checked within the BF16
  /// bound of the FP64 sum (sumTolerance), not bit for bit. What later
  /// launches read of it is still the simulation's value: the Integers
  /// inputs make every order's sum the same.
  void checkSumsWithinBound();

  std::vector<PlannedLaunch> launches;
  std::vector<ArgumentPlan> arguments;
  /// Every launch was bound (always, when strict).
  bool complete = true;
};

/// What --check does with \p manifest (lamport-run --plan): how each input
/// is filled and how each output is checked, or why --check is refused.
std::string describeChecks(const runtime::Manifest &manifest);

/// What a norm-checked output must hold after a step.
struct NormExpectation {
  int rows = 0;          ///< Rows written: the step's m.
  int64_t rowLength = 0; ///< H.
  /// Per written element (rows * rowLength, row-major from element 0): the
  /// FP64 reference and the largest |got - ref| allowed.
  std::vector<double> reference, bound;
  /// The whole allocation: outside the written rows, the bytes that must
  /// stay (poison for out, the input for the stream); inside, the
  /// reference rounded (for information only).
  std::shared_ptr<const std::vector<uint8_t>> base;
};

/// What every output must hold after one step.
struct StepExpectation {
  /// [argument][rank]: an exact output's whole allocation; ranks with the
  /// same bytes share one vector. Empty for other arguments.
  std::vector<std::vector<std::shared_ptr<const std::vector<uint8_t>>>> exact;
  /// [argument]: a norm-checked output (the same on every rank), else null.
  std::vector<std::shared_ptr<const NormExpectation>> norm;
};

struct SimulationConfig {
  int tp = 0;
  uint64_t seed = 1;
  /// Per argument: the bytes lamport-run allocates for a buffer (for the
  /// most tokens, rounded up to 16); 0 for mailboxes.
  std::vector<std::size_t> allocationBytes;
};

/// Simulates one step of input set \p set with \p tokens tokens on every
/// rank, as checked steps run it (outputs poisoned, the stream restored).
/// Throws Error naming the launch for anything the plan let through that
/// the values do not allow.
StepExpectation simulateStep(const runtime::Manifest &manifest,
                             const ProgramPlan &plan,
                             const SimulationConfig &config, uint32_t set,
                             int tokens);

} // namespace check
} // namespace lamport

#endif // LAMPORT_CHECK_SIMULATOR_H
