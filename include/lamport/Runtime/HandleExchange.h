//===- HandleExchange.h - File descriptors between rank processes -*- C++
//-*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// Rank processes share mailbox copies as cuMem allocations exported to POSIX
// file descriptors. A descriptor only crosses a process boundary over a Unix
// domain socket (SCM_RIGHTS), so every rank listens on a socket of its own,
// says its path through the rendezvous, connects to every other rank's and
// receives that rank's descriptors there, with a few bytes of payload (the
// sizes the importer checks). Plain POSIX: no CUDA.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_RUNTIME_HANDLEEXCHANGE_H
#define LAMPORT_RUNTIME_HANDLEEXCHANGE_H

#include "lamport/Runtime/Rendezvous.h"

#include <string>
#include <vector>

namespace lamport {
namespace runtime {

/// A file descriptor closed when destroyed.
class UniqueFd {
public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd(fd) {}
  ~UniqueFd() { reset(); }
  UniqueFd(UniqueFd &&other) noexcept : fd(other.release()) {}
  UniqueFd &operator=(UniqueFd &&other) noexcept {
    if (this != &other) {
      reset();
      fd = other.release();
    }
    return *this;
  }
  UniqueFd(const UniqueFd &) = delete;
  UniqueFd &operator=(const UniqueFd &) = delete;

  int get() const { return fd; }
  explicit operator bool() const { return fd >= 0; }
  int release() {
    int kept = fd;
    fd = -1;
    return kept;
  }
  void reset();

private:
  int fd = -1;
};

/// What one rank sent: its descriptors, in its order, and its payload.
struct PeerHandles {
  std::vector<UniqueFd> fds;
  std::string payload;
};

/// Sends \p fds (still the caller's) and \p payload to every other rank of
/// \p store's group and receives theirs, all within \p timeoutSeconds. The
/// socket paths go through the store under `PREFIX/socket/RANK`. Returns one
/// entry per rank (this rank's is empty). Throws RendezvousTimeout naming
/// the ranks that never connected or never sent, Error for a socket that
/// fails. Sockets and received descriptors are closed on every path out.
std::vector<PeerHandles> exchangeHandles(Rendezvous &store,
                                         const std::string &prefix,
                                         const std::vector<int> &fds,
                                         const std::string &payload,
                                         double timeoutSeconds);

} // namespace runtime
} // namespace lamport

#endif // LAMPORT_RUNTIME_HANDLEEXCHANGE_H
