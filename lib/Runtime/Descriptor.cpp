//===- Descriptor.cpp - The mailbox descriptor and timeout record ---------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#include "lamport/Runtime/Descriptor.h"
#include "lamport/Runtime/Error.h"

#include <cstring>
#include <iomanip>

namespace lamport {
namespace runtime {

namespace {

template <typename T>
void put(std::vector<uint8_t> &bytes, std::size_t at, T v) {
  // The host is little-endian x86-64 or AArch64, like the GPU.
  std::memcpy(bytes.data() + at, &v, sizeof(T));
}

template <typename T> T get(const std::vector<uint8_t> &bytes, std::size_t at) {
  T v;
  std::memcpy(&v, bytes.data() + at, sizeof(T));
  return v;
}

} // namespace

std::vector<uint8_t> packDescriptor(const DescriptorFields &f) {
  int tp = int(f.peers.size());
  std::string who =
      concat("descriptor of rank ", f.rank, ", mailbox ", f.mailboxId);
  if (tp < 1)
    throw Error(concat(who, ": the peers table is empty"));
  if (f.rank < 0 || f.rank >= tp)
    throw Error(concat(who, ": rank outside the TP group of ", tp));
  if (f.peers[f.rank] != f.local)
    throw Error(concat(who, ": peers[rank] must be the local copy"));
  for (int r = 0; r < tp; ++r)
    if (f.peers[r] % 16)
      throw Error(concat(who, ": copy of rank ", r, " is not 16-byte aligned"));
  if (f.multicast % 16)
    throw Error(concat(who, ": multicast address is not 16-byte aligned"));
  std::vector<uint8_t> bytes(descriptor::bytes(tp), 0);
  put(bytes, descriptor::kLocal, f.local);
  put(bytes, descriptor::kMulticast, f.multicast);
  put(bytes, descriptor::kStage, f.stage);
  put(bytes, descriptor::kDiagnostics, f.diagnostics);
  put(bytes, descriptor::kRank, f.rank);
  put(bytes, descriptor::kMailboxId, f.mailboxId);
  for (int r = 0; r < tp; ++r)
    put(bytes, descriptor::kPeers + 8 * r, f.peers[r]);
  return bytes;
}

DescriptorFields unpackDescriptor(const std::vector<uint8_t> &bytes) {
  if (bytes.size() < descriptor::kPeers ||
      (bytes.size() - descriptor::kPeers) % 8)
    throw Error(
        concat("a descriptor of ", bytes.size(), " bytes is not 40 + 8 * tp"));
  DescriptorFields f;
  f.local = get<uint64_t>(bytes, descriptor::kLocal);
  f.multicast = get<uint64_t>(bytes, descriptor::kMulticast);
  f.stage = get<uint64_t>(bytes, descriptor::kStage);
  f.diagnostics = get<uint64_t>(bytes, descriptor::kDiagnostics);
  f.rank = get<int32_t>(bytes, descriptor::kRank);
  f.mailboxId = get<int32_t>(bytes, descriptor::kMailboxId);
  for (std::size_t at = descriptor::kPeers; at < bytes.size(); at += 8)
    f.peers.push_back(get<uint64_t>(bytes, at));
  return f;
}

std::string describeTimeout(const TimeoutRecord &r,
                            const std::string &mailboxName) {
  std::ostringstream os;
  os << "rank " << r.rank << " timed out polling mailbox '" << mailboxName
     << "' (id " << r.mailboxId << "): stage " << r.stage << ", slot " << r.slot
     << " (data of rank " << r.slot << " never came), row " << r.row
     << ", column " << r.column << ", block " << r.block << ", after "
     << std::fixed << std::setprecision(3) << double(r.elapsedNs) / 1e6
     << " ms (timeout " << double(r.timeoutNs) / 1e6 << " ms)";
  return os.str();
}

} // namespace runtime
} // namespace lamport
