//===- Manifest.h - The bundle manifest, parsed and validated ---*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// The model of manifest.json (docs/bundle.md, version 1): mailboxes, program
// arguments, kernels with their launch shape and parameters, and the launch
// order of one decode step. Parsing (ManifestReader.cpp) checks every rule
// of the contract and needs no GPU, so it is unit-tested on machines without
// one; the checks that need a device live in DeviceCheck.h.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_RUNTIME_MANIFEST_H
#define LAMPORT_RUNTIME_MANIFEST_H

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace lamport {
namespace runtime {

/// The manifest version this runtime reads.
inline constexpr int kManifestVersion = 1;

/// One TP group's `[3, tp, capacity, width]` BF16 mailbox.
struct MailboxSpec {
  int id = 0;
  std::string name;
  int tp = 0;
  int capacity = 0;
  int width = 0;

  /// Bytes of one rank's copy: 3 generations of tp slots of capacity rows.
  /// Throws Error where the count does not fit a size_t.
  std::size_t copyBytes() const;
  /// Bytes of the descriptor a kernel takes by value: 40 + 8 * tp.
  std::size_t descriptorBytes() const { return 40 + std::size_t(8) * tp; }
};

enum class ArgumentKind { Buffer, Mailbox };
enum class DType { BF16, F32, I32 };
enum class BufferIO { In, Out, InOut };

/// "[-1, 8192]": a shape as messages write it.
std::string shapeText(const std::vector<int64_t> &shape);

/// Bytes of one element of \p dtype.
std::size_t dtypeBytes(DType dtype);
const char *dtypeName(DType dtype);

/// One argument of the program function: a per-rank device buffer, or a
/// mailbox.
struct ArgumentSpec {
  int index = 0;
  std::string name;
  ArgumentKind kind = ArgumentKind::Buffer;
  // Buffers only. A shape entry of -1 stands for the token count M.
  DType dtype = DType::BF16;
  std::vector<int64_t> shape;
  BufferIO io = BufferIO::In;
  // Mailboxes only: index into Manifest::mailboxes.
  int mailbox = -1;

  /// Elements of the buffer for \p tokens tokens (-1 entries replaced).
  /// Throws Error naming the argument and its shape where the count does
  /// not fit a size_t (CheckedMath.h).
  std::size_t elements(int tokens) const;
  /// Bytes of the buffer for \p tokens tokens; throws as elements() does.
  std::size_t bytes(int tokens) const;
  /// The shape with -1 replaced by \p tokens.
  std::vector<int64_t> shapeFor(int tokens) const;
};

enum class ParamKind { Mailbox, Buffer, Tokens, TensorMap };

/// One kernel parameter, in order.
struct ParamSpec {
  ParamKind kind = ParamKind::Tokens;
  int argument = -1; ///< Mailbox, buffer and tensor map parameters: the
                     ///< argument index (a tensor map's: its buffer).
  /// Tensor maps: the box, inner dimension first.
  std::vector<int64_t> box;
  unsigned size = 0;
  unsigned align = 0;
  /// Buffer parameters: what the buffer is to the op ("x", "stream",
  /// "out"...); empty when the manifest names no role.
  std::string role;
  /// Buffer parameters: how this kernel uses the buffer (the param's `io`,
  /// which the compiler writes from the op's roles); the argument's io
  /// where the manifest gives none.
  BufferIO io = BufferIO::In;
};

/// One kernel of the bundle with its launch shape.
struct KernelSpec {
  std::string name;
  std::string op; ///< The program-level op it was generated from.
  std::string ptx;
  std::string cubin;
  std::array<unsigned, 3> grid{1, 1, 1};
  std::array<unsigned, 3> block{1, 1, 1};
  std::array<unsigned, 3> cluster{1, 1, 1};
  unsigned sharedBytes = 0;
  bool pdl = false;
  /// Attributes of the op that change the result (sum_order, timeout_ns,
  /// transport), each kept as its JSON text without quotes for strings.
  std::map<std::string, std::string> attributes;
  std::vector<ParamSpec> params;
  /// What the kernel does to its mailbox (`mailbox_use`): publishes this
  /// rank's rows into every rank's slot, polls its own copy, or both in the
  /// same CTAs; None where it takes no mailbox.
  enum class MailboxUse { None, Publish, Poll, PublishAndPoll };
  MailboxUse mailboxUse = MailboxUse::None;

  unsigned blockThreads() const { return block[0] * block[1] * block[2]; }
  unsigned clusterSize() const { return cluster[0] * cluster[1] * cluster[2]; }
  /// The attribute \p key, if the manifest has it.
  std::optional<std::string> attribute(const std::string &key) const;
  /// True for kernels that publish this rank's rows into a mailbox
  /// (`mailbox_use` publish or publish_and_poll).
  bool publishes() const;
  /// True for a kernel that publishes this rank's rows, then consumes the
  /// mailbox in the same CTAs (`mailbox_use` publish_and_poll).
  bool publishesAndConsumes() const;
};

/// The inclusive range of token counts M for which a launch runs.
struct TokenRange {
  int lo = 1, hi = 1;
  bool contains(int tokens) const { return lo <= tokens && tokens <= hi; }
};

/// The parsed, validated manifest.json.
struct Manifest {
  int version = 0;
  std::string chip;
  std::string transport; ///< "unicast" or "multicast".
  std::string program;
  std::vector<MailboxSpec> mailboxes;
  std::vector<ArgumentSpec> arguments;
  std::vector<KernelSpec> kernels;
  /// One decode step, per rank, in stream order: indices into kernels.
  std::vector<int> launches;
  /// Per launch, parallel to `launches`: the range of M it runs for, where
  /// the program chooses one of several alternatives of an op by M
  /// (`tokens` in docs/bundle.md); nullopt: every M.
  std::vector<std::optional<TokenRange>> launchTokens;

  /// The kernel named \p name, or null.
  const KernelSpec *findKernel(const std::string &name) const;
  /// The largest capacity of any mailbox: the most tokens a step can carry.
  int maxTokens() const;
  /// The first mailbox whose TP group is not of \p tp ranks, or null: a
  /// bundle compiled for one TP size runs at no other.
  const MailboxSpec *mailboxNotOfTp(int tp) const;
  /// Whether launch \p i (an index into `launches`) runs at a step of
  /// \p tokens tokens.
  bool launchRuns(std::size_t i, int tokens) const {
    return !launchTokens[i] || launchTokens[i]->contains(tokens);
  }
};

/// Parses and validates the text of a manifest against every rule of
/// docs/bundle.schema.json and the rules between fields of docs/bundle.md.
/// \p origin names the file in error messages. Throws Error naming the
/// offending field (its JSON path) and the rule; any malformed input, a
/// number past a double's range included, is such an Error. A kernel of a
/// manifest written before `mailbox_use` publishes as its op did then:
/// publish_rows and gemm_publish publish, all_reduce_dual_norm with a
/// `partial` buffer publishes and polls, every other op polls.
Manifest parseManifest(const std::string &text,
                       const std::string &origin = "manifest.json");

/// A readable summary of \p manifest: mailboxes, arguments and one step's
/// launches with their shapes and parameters (lamport-run --plan).
std::string describePlan(const Manifest &manifest);

/// A bundle directory: the manifest plus each kernel's PTX and cubin bytes.
struct Bundle {
  std::string directory;
  Manifest manifest;
  std::vector<std::string> ptx; ///< Per kernel, in manifest order.
  std::vector<std::string>
      cubin; ///< Per kernel; empty when the file is absent.
};

/// Reads BUNDLE/manifest.json and every file it names. A kernel needs its
/// PTX or its cubin; a missing cubin alone falls back to the PTX.
Bundle loadBundle(const std::string &directory);

} // namespace runtime
} // namespace lamport

#endif // LAMPORT_RUNTIME_MANIFEST_H
