//===- Transport.h - How a publish reaches every rank's copy ----*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// The transports a Session brings a TP group up with, the rule that
// refuses NVLink multicast, and the transports of one process per rank. Kept
// beside Session rather than with lamport-run's command line, so that an
// embedding (the C API) names a transport without taking the tool's options.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_RUNTIME_TRANSPORT_H
#define LAMPORT_RUNTIME_TRANSPORT_H

#include <string>

namespace lamport {
namespace runtime {

/// How a publish reaches every rank's copy at run time.
enum class TransportKind {
  /// All ranks on one GPU, each with its own stream, buffers and copy.
  Loopback,
  /// One GPU per rank in one process, copies mapped into every rank's
  /// address space with cuMem VMM.
  Peer,
  /// NVLink multicast: refused unless asked for, and never run here.
  Multicast,
};

/// "loopback", "peer" or "multicast".
const char *transportName(TransportKind kind);

/// Why the multicast transport will not run in this environment, or an
/// empty string when the request passes these checks: it must be asked for
/// explicitly, and NCCL_NVLS_ENABLE=0 (\p nvlsEnv, null when unset) forbids
/// it outright.
std::string multicastRefusal(bool requested, const char *nvlsEnv);

/// How the ranks of a group opened one process per rank (RankRuntime.h)
/// reduce their rows.
enum class RankTransport {
  /// The compiled kernels, over mailbox copies shared between the processes.
  Mailbox,
  /// Each publish_rows + all_reduce pair of a program as one ncclAllReduce
  /// on the rank's communicator; the other kernels as compiled.
  Nccl,
};

/// "mailbox" or "nccl".
const char *rankTransportName(RankTransport transport);

/// The transport named \p name; throws Error naming the choices.
RankTransport parseRankTransport(const std::string &name);

} // namespace runtime
} // namespace lamport

#endif // LAMPORT_RUNTIME_TRANSPORT_H
