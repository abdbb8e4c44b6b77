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
#include "lamport/Runtime/Driver.h"

namespace lamport {
namespace runtime {

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
  CUdeviceptr stage =
      allocate(r, kStageWords * sizeof(int32_t), concat(who, ": stage words"));
  armCopy(copy, bytes, stage, who);
  mailbox.stages.push_back(stage);
  mailbox.records.push_back(allocateTimeoutRecord(who));
}

CUdeviceptr Session::mapPeerCopy(Mailbox &mailbox, int r, std::size_t bytes,
                                 const std::string &who) {
  // A VMM allocation on this rank's GPU, mapped once at one address that
  // every rank's device is then granted access to.
  MappedAllocation copy =
      MappedAllocation::create(ranks[r]->ordinal, bytes, CopyHandle::None, who);
  std::vector<int> ordinals;
  for (int q = 0; q < config.tp; ++q)
    ordinals.push_back(ranks[q]->ordinal);
  copy.grantAccess(ordinals, who);
  mailbox.copies.push_back(copy.address());
  mailbox.peerCopies.push_back(std::move(copy));
  return mailbox.copies.back();
}

void Session::packDescriptors(Mailbox &mailbox) {
  for (int r = 0; r < config.tp; ++r) {
    makeCurrent(r);
    mailbox.packed.push_back(describeCopy(mailbox.spec, r, mailbox.copies,
                                          mailbox.stages[r],
                                          mailbox.records[r]));
  }
}

void *Session::descriptor(int mailbox, int rank) {
  return mailboxes[mailbox]->packed[rank].data();
}

} // namespace runtime
} // namespace lamport
