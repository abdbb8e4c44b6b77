//===- Rendezvous.h - The store the ranks of a TP group meet in -*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// When every rank of a TP group is its own process, the ranks meet in a small
// key-value store before they share anything else: each rank sets what the
// others need (the path of the socket its mailbox handles are served on, an
// NCCL unique id) and waits for what it needs from them. Two stores:
//   tcp://HOST:PORT (or HOST:PORT)  rank 0 serves the store on PORT; the
//                                   other ranks connect to it;
//   file://DIR (or a path)          one file per key in DIR, a directory on a
//                                   filesystem every rank sees; it must hold
//                                   no keys of an earlier group.
// Every wait is bounded: a rank that never sets a key (it died, or never
// reached the rendezvous) fails the waiters with a message naming it.
// Plain C++ and POSIX: no CUDA.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_RUNTIME_RENDEZVOUS_H
#define LAMPORT_RUNTIME_RENDEZVOUS_H

#include "lamport/Runtime/Error.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace lamport {
namespace runtime {

/// A wait in the rendezvous ran out of time; \p missing names the ranks that
/// never set what was waited for.
class RendezvousTimeout : public Error {
public:
  RendezvousTimeout(const std::string &message, std::vector<int> missing)
      : Error(message), missing(std::move(missing)) {}
  std::vector<int> missing;
};

/// One rank's view of the store of a TP group of \p size ranks.
class Rendezvous {
public:
  virtual ~Rendezvous();

  int rank() const { return self; }
  int size() const { return ranks; }
  /// The address as given ("tcp://host:port", "file:///dir").
  const std::string &address() const { return where; }
  /// The TCP port rank 0's store listens on (after port 0, the one picked);
  /// 0 for a file store or another rank.
  virtual int port() const { return 0; }

  /// Stores \p value under \p key, for every rank to read.
  virtual void set(const std::string &key, const std::string &value) = 0;
  /// The value of \p key now, or nullopt when no rank has set it yet.
  virtual std::optional<std::string> tryGet(const std::string &key) = 0;

  /// Waits at most \p timeoutSeconds for \p key, which rank \p owner sets.
  /// Throws RendezvousTimeout naming \p owner and the key.
  std::string get(const std::string &key, int owner, double timeoutSeconds);
  /// Waits at most \p timeoutSeconds for `PREFIX/r` of every rank r and
  /// returns their values by rank. Throws RendezvousTimeout naming every
  /// rank whose key is still missing.
  std::vector<std::string> gather(const std::string &prefix,
                                  double timeoutSeconds);
  /// Sets `NAME/rank` and gathers every rank's: no rank returns before
  /// every rank has arrived (or the timeout names those that did not).
  void barrier(const std::string &name, double timeoutSeconds);

protected:
  Rendezvous(std::string address, int rank, int size)
      : where(std::move(address)), self(rank), ranks(size) {}

private:
  std::string where;
  int self;
  int ranks;
};

/// Opens rank \p rank's view of the store at \p address for a group of
/// \p size ranks. Over TCP, rank 0 starts serving (port 0 picks a free port,
/// which port() gives) and the other ranks connect, retrying for up to
/// \p timeoutSeconds while rank 0 is not yet there; rank 0's store, when
/// closed, lingers up to \p timeoutSeconds while other ranks are still
/// connected, so none loses a key it has yet to read. Throws Error for a bad
/// address or rank, RendezvousTimeout when rank 0 never answers.
std::unique_ptr<Rendezvous> openRendezvous(const std::string &address, int rank,
                                           int size, double timeoutSeconds);

} // namespace runtime
} // namespace lamport

#endif // LAMPORT_RUNTIME_RENDEZVOUS_H
