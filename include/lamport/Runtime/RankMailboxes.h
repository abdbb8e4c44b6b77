//===- RankMailboxes.h - A rank's mailboxes across processes ----*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// When every rank of a TP group is its own process, each rank allocates its
// own copy of every mailbox (cuMem, exportable as a fabric handle where every
// rank's driver offers them, else as a POSIX file descriptor), fills it with
// the sentinel, shares it with the other ranks (fabric handles through the
// rendezvous store, file descriptors through the handle exchange), imports
// and maps theirs, and packs the descriptor its kernels take: the same bytes
// the in-process Session packs, with peers[] the addresses at which this
// process maps every rank's copy.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_RUNTIME_RANKMAILBOXES_H
#define LAMPORT_RUNTIME_RANKMAILBOXES_H

#include "lamport/Runtime/MailboxMemory.h"
#include "lamport/Runtime/Rendezvous.h"

#include <memory>
#include <string>
#include <vector>

namespace lamport {
namespace runtime {

class RankMailboxes {
public:
  /// Brings up rank \p rank's copy of every mailbox of \p specs on device
  /// \p ordinal (whose context is current) and maps every other rank's,
  /// meeting them through \p store within \p timeoutSeconds. Throws Error
  /// (RendezvousTimeout naming the missing ranks) after releasing what it
  /// made.
  RankMailboxes(const std::vector<MailboxSpec> &specs, int rank, int ordinal,
                Rendezvous &store, double timeoutSeconds);
  ~RankMailboxes();
  RankMailboxes(const RankMailboxes &) = delete;
  RankMailboxes &operator=(const RankMailboxes &) = delete;

  int size() const { return int(mailboxes.size()); }
  const MailboxSpec &spec(int mailbox) const;
  /// The packed descriptor of \p mailbox (stable: a kernel parameter).
  void *descriptor(int mailbox);
  /// Rank \p rank's copy of \p mailbox as this process maps it.
  CUdeviceptr copy(int mailbox, int rank) const;
  /// This rank's stage words of \p mailbox.
  CUdeviceptr stage(int mailbox) const;
  /// Every timeout record of this rank a poll claimed and filled; with
  /// \p unfilled, how many were claimed but not filled.
  std::vector<TimeoutRecord> claimedTimeouts(int *unfilled = nullptr) const;
  /// The name of the mailbox with id \p id (or "#id").
  std::string mailboxName(int id) const;
  /// How this rank's copies were shared (the same for every rank):
  /// CopyHandle::Fabric or CopyHandle::PosixFd.
  CopyHandle handleType() const { return handles; }

private:
  struct Mailbox;
  CopyHandle handles = CopyHandle::PosixFd;
  std::vector<std::unique_ptr<Mailbox>> mailboxes;
};

} // namespace runtime
} // namespace lamport

#endif // LAMPORT_RUNTIME_RANKMAILBOXES_H
