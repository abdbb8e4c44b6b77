//===- RankMailboxes.cpp - One rank's mailboxes, shared by processes ------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// The order matters: a rank arms its own copy (sentinel, stage words) and
// waits for that to finish before it hands the copy out, so no peer can
// publish into a copy that is still being filled.
//
//===----------------------------------------------------------------------===//

#include "lamport/Runtime/RankMailboxes.h"
#include "lamport/Runtime/Driver.h"
#include "lamport/Runtime/HandleExchange.h"
#include "lamport/Runtime/Session.h"

#include <sstream>

namespace lamport {
namespace runtime {

struct RankMailboxes::Mailbox {
  MailboxSpec spec;
  int rank = 0;
  MappedAllocation own;
  std::vector<MappedAllocation> imported; ///< Per rank; this rank's empty.
  std::vector<CUdeviceptr> copies;        ///< Per rank, as mapped here.
  CUdeviceptr stage = 0;
  TimeoutRecord *record = nullptr;
  std::vector<uint8_t> packed;

  ~Mailbox() {
    freeTimeoutRecord(record);
    if (stage)
      api().cuMemFree(stage);
  }
};

/// "id:bytes" of every mailbox: what a peer must agree on before mapping.
static std::string describeCopies(const std::vector<std::size_t> &ids,
                                  const std::vector<std::size_t> &bytes) {
  std::ostringstream text;
  for (std::size_t m = 0; m < ids.size(); ++m)
    text << (m ? " " : "") << ids[m] << ":" << bytes[m];
  return text.str();
}

RankMailboxes::RankMailboxes(const std::vector<MailboxSpec> &specs, int rank,
                             int ordinal, Rendezvous &store,
                             double timeoutSeconds) {
  int tp = store.size();
  std::vector<int> fds;
  std::vector<UniqueFd> exported;
  std::vector<std::size_t> ids, sizes;
  for (const MailboxSpec &spec : specs) {
    std::string who = mailboxWho(spec, rank);
    if (spec.tp != tp)
      throw Error(concat(who, ": the bundle's mailbox has tp = ", spec.tp,
                         ", but the group has ", tp, " ranks"));
    auto mailbox = std::make_unique<Mailbox>();
    mailbox->spec = spec;
    mailbox->rank = rank;
    mailbox->own = MappedAllocation::create(ordinal, spec.copyBytes(),
                                            /*exportable=*/true, who);
    mailbox->own.grantAccess({ordinal}, who);
    LAMPORT_CU(cuMemAlloc(&mailbox->stage, kStageWords * sizeof(int32_t)),
               concat(who, ": allocating its stage words"));
    armCopy(mailbox->own.address(), spec.copyBytes(), mailbox->stage, who);
    mailbox->record = allocateTimeoutRecord(who);
    exported.emplace_back(mailbox->own.exportFd(who));
    fds.push_back(exported.back().get());
    ids.push_back(std::size_t(spec.id));
    sizes.push_back(mailbox->own.bytes());
    mailboxes.push_back(std::move(mailbox));
  }
  LAMPORT_CU(cuCtxSynchronize(),
             concat("rank ", rank, ": arming its mailbox copies"));
  std::string mine = describeCopies(ids, sizes);
  std::vector<PeerHandles> peers =
      exchangeHandles(store, "lamport/mailboxes", fds, mine, timeoutSeconds);
  for (int q = 0; q < tp; ++q) {
    if (q == rank)
      continue;
    if (peers[q].payload != mine)
      throw Error(concat("rank ", rank, ": rank ", q,
                         " shares mailbox copies {", peers[q].payload,
                         "} (id:bytes), this rank's are {", mine,
                         "}: the ranks run different bundles"));
  }
  for (std::size_t m = 0; m < mailboxes.size(); ++m) {
    Mailbox &mailbox = *mailboxes[m];
    mailbox.imported.resize(tp);
    for (int q = 0; q < tp; ++q) {
      if (q == rank) {
        mailbox.copies.push_back(mailbox.own.address());
        continue;
      }
      std::string who =
          concat(mailboxWho(mailbox.spec, q), ", mapped by rank ", rank);
      mailbox.imported[q] = MappedAllocation::import(
          peers[q].fds[m].get(), mailbox.own.bytes(), ordinal, who);
      mailbox.imported[q].grantAccess({ordinal}, who);
      mailbox.copies.push_back(mailbox.imported[q].address());
    }
    mailbox.packed = describeCopy(mailbox.spec, rank, mailbox.copies,
                                  mailbox.stage, mailbox.record);
  }
}

RankMailboxes::~RankMailboxes() = default;

const MailboxSpec &RankMailboxes::spec(int mailbox) const {
  return mailboxes.at(mailbox)->spec;
}

void *RankMailboxes::descriptor(int mailbox) {
  return mailboxes.at(mailbox)->packed.data();
}

CUdeviceptr RankMailboxes::copy(int mailbox, int rank) const {
  return mailboxes.at(mailbox)->copies.at(rank);
}

CUdeviceptr RankMailboxes::stage(int mailbox) const {
  return mailboxes.at(mailbox)->stage;
}

std::vector<TimeoutRecord> RankMailboxes::claimedTimeouts(int *unfilled) const {
  std::vector<TimeoutRecord> claimed;
  if (unfilled)
    *unfilled = 0;
  for (const auto &mailbox : mailboxes) {
    TimeoutRecord copy;
    if (readTimeoutRecord(mailbox->record, copy, unfilled))
      claimed.push_back(copy);
  }
  return claimed;
}

std::string RankMailboxes::mailboxName(int id) const {
  for (const auto &mailbox : mailboxes)
    if (mailbox->spec.id == id)
      return mailbox->spec.name;
  return concat("#", id);
}

} // namespace runtime
} // namespace lamport
