//===- Transport.cpp - How a publish reaches every rank's copy ------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#include "lamport/Runtime/Transport.h"
#include "lamport/Runtime/Error.h"

namespace lamport {
namespace runtime {

const char *transportName(TransportKind kind) {
  switch (kind) {
  case TransportKind::Loopback:
    return "loopback";
  case TransportKind::Peer:
    return "peer";
  case TransportKind::Multicast:
    return "multicast";
  }
  return "?";
}

std::string multicastRefusal(bool requested, const char *nvlsEnv) {
  if (nvlsEnv && std::string(nvlsEnv) == "0")
    return "the multicast transport is refused: NCCL_NVLS_ENABLE=0 is set, "
           "which says NVLink multicast must not be used on this machine";
  if (!requested)
    return "the multicast transport must be asked for explicitly "
           "(--allow-multicast)";
  return "";
}

const char *rankTransportName(RankTransport transport) {
  return transport == RankTransport::Nccl ? "nccl" : "mailbox";
}

RankTransport parseRankTransport(const std::string &name) {
  if (name == "mailbox")
    return RankTransport::Mailbox;
  if (name == "nccl")
    return RankTransport::Nccl;
  throw Error(concat("unknown transport '", name,
                     "': a rank process runs 'mailbox' (the compiled "
                     "kernels over shared mailbox copies) or 'nccl' "
                     "(ncclAllReduce for each all-reduce)"));
}

} // namespace runtime
} // namespace lamport
