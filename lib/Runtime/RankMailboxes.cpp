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
// The ranks first agree on one kind of handle: fabric handles when every
// rank's device offers them (64 bytes each, passed through the store, so the
// ranks may be on different nodes), else POSIX file descriptors over the
// handle exchange's Unix domain sockets (one host).
//
//===----------------------------------------------------------------------===//

#include "lamport/Runtime/RankMailboxes.h"
#include "lamport/Runtime/Driver.h"
#include "lamport/Runtime/HandleExchange.h"
#include "lamport/Runtime/Session.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
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

/// Where the mailbox exchange keeps its keys in the store.
static const char kPrefix[] = "lamport/mailboxes";

/// "id:bytes" of every mailbox: what a peer must agree on before mapping.
static std::string describeCopies(const std::vector<std::size_t> &ids,
                                  const std::vector<std::size_t> &bytes) {
  std::ostringstream text;
  for (std::size_t m = 0; m < ids.size(); ++m)
    text << (m ? " " : "") << ids[m] << ":" << bytes[m];
  return text.str();
}

/// Throws unless rank \p q's copies (\p theirs) are this rank's (\p mine).
static void checkSameCopies(int rank, int q, const std::string &theirs,
                            const std::string &mine) {
  if (theirs != mine)
    throw Error(concat("rank ", rank, ": rank ", q, " shares mailbox copies {",
                       theirs, "} (id:bytes), this rank's are {", mine,
                       "}: the ranks run different bundles"));
}

/// What this rank offers: LAMPORT_COPY_HANDLES (auto, the default; fabric;
/// posix-fd) narrows the choice, e.g. where a driver offers fabric handles
/// that another process cannot import.
static CopyHandle offeredHandles(int rank, int ordinal) {
  const char *env = std::getenv("LAMPORT_COPY_HANDLES");
  std::string wanted = env && *env ? env : "auto";
  if (wanted == copyHandleName(CopyHandle::PosixFd))
    return CopyHandle::PosixFd;
  if (wanted != "auto" && wanted != copyHandleName(CopyHandle::Fabric))
    throw Error(concat("rank ", rank, ": LAMPORT_COPY_HANDLES='", wanted,
                       "' is not auto, fabric or posix-fd"));
  bool fabric = MappedAllocation::offersFabric(ordinal);
  if (wanted != "auto" && !fabric)
    throw Error(concat("rank ", rank,
                       ": LAMPORT_COPY_HANDLES=fabric, but device ", ordinal,
                       " does not offer fabric handles to this process"));
  return fabric ? CopyHandle::Fabric : CopyHandle::PosixFd;
}

/// Fabric handles when every rank's device offers them, else POSIX file
/// descriptors: one kind for the whole group, agreed through the store.
static CopyHandle agreeOnHandles(Rendezvous &store, int ordinal,
                                 double seconds) {
  CopyHandle offered = offeredHandles(store.rank(), ordinal);
  store.set(concat(kPrefix, "/handles/", store.rank()),
            copyHandleName(offered));
  for (const std::string &kind :
       store.gather(concat(kPrefix, "/handles"), seconds))
    if (kind != copyHandleName(CopyHandle::Fabric))
      return CopyHandle::PosixFd;
  return CopyHandle::Fabric;
}

/// The handle whose hex is at \p text[at, at + 128); false if it is not hex.
static bool fromHex(const std::string &text, std::size_t at,
                    CUmemFabricHandle &fabric) {
  auto nibble = [](char c) {
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                  : -1;
  };
  for (std::size_t i = 0; i < sizeof(fabric.data); ++i) {
    int high = nibble(text[at + 2 * i]), low = nibble(text[at + 2 * i + 1]);
    if (high < 0 || low < 0)
      return false;
    fabric.data[i] = static_cast<unsigned char>(high << 4 | low);
  }
  return true;
}

/// Publishes this rank's fabric handles, one per mailbox, with its copies'
/// \p copies ("id:bytes") under PREFIX/fabric/RANK, and reads every
/// rank's: per rank, per mailbox, the handle (this rank's entry empty).
static std::vector<std::vector<CUmemFabricHandle>>
shareFabricHandles(Rendezvous &store, const std::vector<MailboxSpec> &specs,
                   const std::vector<CUmemFabricHandle> &own,
                   const std::string &copies, double seconds) {
  int rank = store.rank();
  std::string value = copies + "|";
  for (const CUmemFabricHandle &fabric : own)
    value += fabricHandleHex(fabric);
  store.set(concat(kPrefix, "/fabric/", rank), value);
  std::vector<std::string> values =
      store.gather(concat(kPrefix, "/fabric"), seconds);
  std::vector<std::vector<CUmemFabricHandle>> peers(values.size());
  const std::size_t hexDigits = 2 * sizeof(CUmemFabricHandle::data);
  for (int q = 0; q < int(values.size()); ++q) {
    if (q == rank)
      continue;
    std::size_t bar = values[q].find('|');
    checkSameCopies(rank, q, values[q].substr(0, bar), copies);
    std::string hex = values[q].substr(bar + 1);
    if (hex.size() != own.size() * hexDigits)
      throw Error(concat("rank ", rank, ": rank ", q, " shared ", hex.size(),
                         " hex digits of fabric handles for ", own.size(),
                         " mailbox(es), not ", own.size() * hexDigits));
    peers[q].resize(own.size());
    for (std::size_t m = 0; m < own.size(); ++m)
      if (!fromHex(hex, m * hexDigits, peers[q][m]))
        throw Error(concat(mailboxWho(specs[m], q), ", mapped by rank ", rank,
                           ": rank ", q,
                           "'s fabric handle is not hex: the store holds a "
                           "value of another program"));
  }
  return peers;
}

RankMailboxes::RankMailboxes(const std::vector<MailboxSpec> &specs, int rank,
                             int ordinal, Rendezvous &store,
                             double timeoutSeconds) {
  // One deadline for the whole exchange, however many rounds it takes.
  auto start = std::chrono::steady_clock::now();
  auto secondsLeft = [&] {
    std::chrono::duration<double> spent =
        std::chrono::steady_clock::now() - start;
    return std::max(timeoutSeconds - spent.count(), 1e-3);
  };
  int tp = store.size();
  for (const MailboxSpec &spec : specs)
    if (spec.tp != tp)
      throw Error(concat(mailboxWho(spec, rank),
                         ": the bundle's mailbox has tp = ", spec.tp,
                         ", but the group has ", tp, " ranks"));
  handles = agreeOnHandles(store, ordinal, secondsLeft());
  std::vector<std::size_t> ids, sizes;
  for (const MailboxSpec &spec : specs) {
    std::string who = mailboxWho(spec, rank);
    auto mailbox = std::make_unique<Mailbox>();
    mailbox->spec = spec;
    mailbox->rank = rank;
    mailbox->own =
        MappedAllocation::create(ordinal, spec.copyBytes(), handles, who);
    mailbox->own.grantAccess({ordinal}, who);
    LAMPORT_CU(cuMemAlloc(&mailbox->stage, kStageWords * sizeof(int32_t)),
               concat(who, ": allocating its stage words"));
    armCopy(mailbox->own.address(), spec.copyBytes(), mailbox->stage, who);
    mailbox->record = allocateTimeoutRecord(who);
    ids.push_back(std::size_t(spec.id));
    sizes.push_back(mailbox->own.bytes());
    mailboxes.push_back(std::move(mailbox));
  }
  LAMPORT_CU(cuCtxSynchronize(),
             concat("rank ", rank, ": arming its mailbox copies"));
  std::string mine = describeCopies(ids, sizes);
  std::vector<PeerHandles> fdPeers;
  std::vector<std::vector<CUmemFabricHandle>> fabricPeers;
  if (handles == CopyHandle::Fabric) {
    std::vector<CUmemFabricHandle> own;
    for (const auto &mailbox : mailboxes)
      own.push_back(mailbox->own.exportFabric(mailboxWho(mailbox->spec, rank)));
    fabricPeers = shareFabricHandles(store, specs, own, mine, secondsLeft());
  } else {
    std::vector<int> fds;
    std::vector<UniqueFd> exported;
    for (const auto &mailbox : mailboxes) {
      exported.emplace_back(
          mailbox->own.exportFd(mailboxWho(mailbox->spec, rank)));
      fds.push_back(exported.back().get());
    }
    fdPeers = exchangeHandles(store, kPrefix, fds, mine, secondsLeft());
    for (int q = 0; q < tp; ++q)
      if (q != rank)
        checkSameCopies(rank, q, fdPeers[q].payload, mine);
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
      mailbox.imported[q] =
          handles == CopyHandle::Fabric
              ? MappedAllocation::importFabric(
                    fabricPeers[q][m], mailbox.own.bytes(), ordinal, who)
              : MappedAllocation::import(fdPeers[q].fds[m].get(),
                                         mailbox.own.bytes(), ordinal, who);
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
