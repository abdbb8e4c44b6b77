//===- SessionMailboxes.cpp - A TP group's mailboxes on its GPUs ----------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// Every mailbox of the bundle on every rank: the copy (cuMemAlloc on the
// loopback transport; a cuMem VMM allocation mapped for every rank's device
// on the peer transport) filled with the sentinel, the stage words, the
// host-mapped timeout record, and each rank's packed descriptor.
//
//===----------------------------------------------------------------------===//

#include "SessionImpl.h"
#include "lamport/Runtime/CheckedMath.h"
#include "lamport/Runtime/Driver.h"

#include <cstring>

namespace lamport {
namespace runtime {

namespace {

/// "mailbox 'name' (id 0), rank 1": where a mailbox's errors happen.
std::string mailboxWho(const MailboxSpec &spec, int rank) {
  return concat("mailbox '", spec.name, "' (id ", spec.id, "), rank ", rank);
}

} // namespace

void Session::createMailboxes() {
  for (const MailboxSpec &spec : bundle.manifest.mailboxes) {
    auto mailbox = std::make_unique<Mailbox>();
    mailbox->spec = spec;
    for (int r = 0; r < config.tp; ++r)
      createCopy(*mailbox, r);
    packDescriptors(*mailbox);
    mailboxes.push_back(std::move(mailbox));
  }
  for (int r = 0; r < config.tp; ++r) {
    makeCurrent(r);
    LAMPORT_CU(cuCtxSynchronize(),
               concat("rank ", r, ": initialising the mailboxes"));
  }
}

void Session::createCopy(Mailbox &mailbox, int r) {
  std::size_t bytes = mailbox.spec.copyBytes();
  std::string who = mailboxWho(mailbox.spec, r);
  makeCurrent(r);
  CUdeviceptr copy = 0;
  if (config.transport == TransportKind::Peer) {
    copy = mapPeerCopy(mailbox, r, bytes, who);
  } else {
    copy = allocate(r, bytes, who);
    mailbox.copies.push_back(copy);
  }
  // Every slot of every generation starts as the sentinel.
  LAMPORT_CU(cuMemsetD16(copy, kSentinel, bytes / 2),
             concat(who, ": filling its copy with the sentinel"));
  // [ACTIVE, NEXT, ARRIVALS, reserved] (docs/bundle.md).
  CUdeviceptr stage =
      allocate(r, kStageWords * sizeof(int32_t), concat(who, ": stage words"));
  LAMPORT_CU(cuMemsetD32(stage, 0, kStageWords),
             concat(who, ": zeroing the stage words"));
  mailbox.stages.push_back(stage);
  void *host = nullptr;
  LAMPORT_CU(
      cuMemHostAlloc(&host, sizeof(TimeoutRecord),
                     CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE),
      concat(who, ": allocating its timeout record"));
  std::memset(host, 0, sizeof(TimeoutRecord));
  mailbox.records.push_back(static_cast<TimeoutRecord *>(host));
}

CUdeviceptr Session::mapPeerCopy(Mailbox &mailbox, int r, std::size_t bytes,
                                 const std::string &who) {
  // A VMM allocation on this rank's GPU, mapped once at one address that
  // every rank's device is then granted access to.
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = ranks[r]->ordinal;
  std::size_t granularity = 0;
  LAMPORT_CU(cuMemGetAllocationGranularity(
                 &granularity, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED),
             concat(who, ": reading the VMM granularity"));
  std::size_t mapped = checkedRoundUp(
      bytes, granularity ? granularity : 1,
      concat(who, ": its copy rounded up to the VMM granularity"));
  CUmemGenericAllocationHandle handle = 0;
  LAMPORT_CU(cuMemCreate(&handle, mapped, &prop, 0),
             concat(who, ": creating ", mapped, " bytes"));
  mailbox.handles.push_back(handle);
  mailbox.mappedBytes.push_back(mapped);
  CUdeviceptr copy = 0;
  LAMPORT_CU(cuMemAddressReserve(&copy, mapped, granularity, 0, 0),
             concat(who, ": reserving address space"));
  mailbox.copies.push_back(copy);
  LAMPORT_CU(cuMemMap(copy, mapped, 0, handle, 0),
             concat(who, ": mapping its copy"));
  std::vector<CUmemAccessDesc> access(config.tp);
  for (int q = 0; q < config.tp; ++q) {
    access[q].location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    access[q].location.id = ranks[q]->ordinal;
    access[q].flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  }
  LAMPORT_CU(cuMemSetAccess(copy, mapped, access.data(), access.size()),
             concat(who, ": granting every rank's device access"));
  return copy;
}

void Session::packDescriptors(Mailbox &mailbox) {
  for (int r = 0; r < config.tp; ++r) {
    makeCurrent(r);
    CUdeviceptr record = 0;
    LAMPORT_CU(
        cuMemHostGetDevicePointer(&record, mailbox.records[r], 0),
        concat(mailboxWho(mailbox.spec, r), ": mapping its timeout record"));
    DescriptorFields fields;
    fields.local = mailbox.copies[r];
    fields.multicast = 0;
    fields.stage = mailbox.stages[r];
    fields.diagnostics = record;
    fields.rank = r;
    fields.mailboxId = mailbox.spec.id;
    fields.peers.assign(mailbox.copies.begin(), mailbox.copies.end());
    mailbox.packed.push_back(packDescriptor(fields));
  }
}

void *Session::descriptor(int mailbox, int rank) {
  return mailboxes[mailbox]->packed[rank].data();
}

} // namespace runtime
} // namespace lamport
