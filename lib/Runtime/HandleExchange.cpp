//===- HandleExchange.cpp - File descriptors between rank processes -------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// Every rank listens, publishes its socket's path, then connects to every
// other rank (a connect completes in the listener's backlog, so no rank
// waits for another's accept), sends its rank number, answers each rank that
// connected to it with one message (a header, the payload and, as SCM_RIGHTS,
// its descriptors), and finally reads each peer's answer. Nothing waits past
// one deadline.
//
//===----------------------------------------------------------------------===//

#include "lamport/Runtime/HandleExchange.h"

#include "Socket.h"

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace lamport {
namespace runtime {

void UniqueFd::reset() {
  if (fd >= 0)
    ::close(fd);
  fd = -1;
}

namespace {

/// The most descriptors one rank sends (one per mailbox).
constexpr std::size_t kMaxFds = 250;

struct Exchange {
  Rendezvous &store;
  std::string prefix;
  Deadline deadline;
  double timeoutSeconds;

  std::string who() const {
    return concat("rendezvous ", store.address(), ": rank ", store.rank());
  }

  [[noreturn]] void failSocket(const std::string &what) const {
    throw Error(concat(who(), ": ", what, ": ", std::strerror(errno)));
  }

  [[noreturn]] void timedOut(const std::vector<int> &missing,
                             const std::string &what) const {
    std::string ranks;
    for (std::size_t i = 0; i < missing.size(); ++i)
      ranks += concat(i ? ", " : "", missing[i]);
    throw RendezvousTimeout(
        concat(who(), " waited ", timeoutSeconds, " s for rank",
               missing.size() == 1 ? " " : "s ", ranks, " to ", what,
               " (died or never reached the handle exchange)"),
        missing);
  }
};

sockaddr_un socketAddress(const Exchange &x, const std::string &path) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path.size() >= sizeof(address.sun_path))
    throw Error(concat(x.who(), ": socket path '", path, "' is too long"));
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  return address;
}

/// Sends the header {count, payload bytes}, the payload and \p fds.
void sendHandles(const Exchange &x, int to, int peer,
                 const std::vector<int> &fds, const std::string &payload) {
  uint32_t header[2] = {uint32_t(fds.size()), uint32_t(payload.size())};
  std::string bytes(reinterpret_cast<const char *>(header), sizeof(header));
  bytes += payload;
  iovec io{bytes.data(), bytes.size()};
  msghdr message{};
  message.msg_iov = &io;
  message.msg_iovlen = 1;
  std::vector<char> control(CMSG_SPACE(sizeof(int) * fds.size()));
  if (!fds.empty()) {
    message.msg_control = control.data();
    message.msg_controllen = control.size();
    cmsghdr *c = CMSG_FIRSTHDR(&message);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
    std::memcpy(CMSG_DATA(c), fds.data(), sizeof(int) * fds.size());
  }
  // The descriptors travel with the first byte; the rest may follow.
  ssize_t sent = ::sendmsg(to, &message, MSG_NOSIGNAL);
  if (sent < 0 ||
      !sendAll(to, bytes.data() + sent, bytes.size() - std::size_t(sent)))
    x.failSocket(concat("sending its handles to rank ", peer));
}

/// Receives rank \p peer's answer on \p from.
PeerHandles receiveHandles(const Exchange &x, int from, int peer) {
  PeerHandles handles;
  uint32_t header[2] = {0, 0};
  std::vector<char> control(CMSG_SPACE(sizeof(int) * kMaxFds));
  iovec io{header, sizeof(header)};
  msghdr message{};
  message.msg_iov = &io;
  message.msg_iovlen = 1;
  message.msg_control = control.data();
  message.msg_controllen = control.size();
  if (!waitReadable(from, x.deadline))
    x.timedOut({peer}, "send its mailbox handles");
  ssize_t n = ::recvmsg(from, &message, MSG_CMSG_CLOEXEC | MSG_WAITALL);
  // Take ownership of whatever arrived before judging the message.
  for (cmsghdr *c = CMSG_FIRSTHDR(&message); c; c = CMSG_NXTHDR(&message, c))
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
      std::size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
      for (std::size_t i = 0; i < count; ++i) {
        int fd;
        std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
        handles.fds.emplace_back(fd);
      }
    }
  if (n != ssize_t(sizeof(header)))
    throw RendezvousTimeout(
        concat(x.who(), ": rank ", peer,
               " closed its handle socket before sending its handles (rank ",
               peer, " died)"),
        {peer});
  if (message.msg_flags & MSG_CTRUNC || handles.fds.size() != header[0])
    throw Error(concat(x.who(), ": rank ", peer, " sent ", header[0],
                       " handle(s), ", handles.fds.size(), " arrived"));
  handles.payload.resize(header[1]);
  if (header[1] && !receiveAll(from, handles.payload.data(),
                               handles.payload.size(), x.deadline))
    x.timedOut({peer}, "send the rest of its handles");
  return handles;
}

/// Connects to rank \p peer's socket at \p path and says who is asking.
UniqueFd connectTo(const Exchange &x, int peer, const std::string &path) {
  sockaddr_un address = socketAddress(x, path);
  UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd)
    x.failSocket("creating a socket");
  if (::connect(fd.get(), reinterpret_cast<sockaddr *>(&address),
                sizeof(address)) != 0)
    throw RendezvousTimeout(
        concat(x.who(), ": rank ", peer, "'s handle socket '", path,
               "' refused the connection (", std::strerror(errno), "): rank ",
               peer, " died"),
        {peer});
  int32_t self = x.store.rank();
  if (!sendAll(fd.get(), &self, sizeof(self)))
    x.failSocket(concat("asking rank ", peer, " for its handles"));
  return fd;
}

/// Accepts every other rank's connection and answers each.
void serveHandles(const Exchange &x, int listener, const std::vector<int> &fds,
                  const std::string &payload) {
  int tp = x.store.size();
  std::vector<bool> served(tp, false);
  served[x.store.rank()] = true;
  for (int answered = 1; answered < tp;) {
    std::vector<int> missing;
    for (int r = 0; r < tp; ++r)
      if (!served[r])
        missing.push_back(r);
    if (!waitReadable(listener, x.deadline))
      x.timedOut(missing, "connect to its handle socket");
    UniqueFd client(acceptConnection(listener));
    if (!client) {
      if (errno == EAGAIN)
        continue;
      x.failSocket("accepting a connection");
    }
    int32_t peer = -1;
    if (!receiveAll(client.get(), &peer, sizeof(peer), x.deadline) ||
        peer < 0 || peer >= tp || served[peer])
      continue; // Not a rank of this group, or one that left: not counted.
    sendHandles(x, client.get(), peer, fds, payload);
    served[peer] = true;
    ++answered;
  }
}

} // namespace

std::vector<PeerHandles> exchangeHandles(Rendezvous &store,
                                         const std::string &prefix,
                                         const std::vector<int> &fds,
                                         const std::string &payload,
                                         double timeoutSeconds) {
  Exchange x{store, prefix, Deadline::after(timeoutSeconds), timeoutSeconds};
  if (fds.size() > kMaxFds)
    throw Error(concat(x.who(), ": ", fds.size(), " handles to share, at most ",
                       kMaxFds));
  int tp = store.size(), rank = store.rank();
  std::vector<PeerHandles> received(tp);
  if (tp == 1)
    return received;
  const char *tmp = std::getenv("TMPDIR");
  static int counter = 0;
  std::string path = concat(tmp && *tmp ? tmp : "/tmp", "/lamport-", ::getpid(),
                            "-", rank, "-", counter++, ".sock");
  sockaddr_un address = socketAddress(x, path);
  UniqueFd listener(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!listener)
    x.failSocket("creating its handle socket");
  ::unlink(path.c_str());
  if (::bind(listener.get(), reinterpret_cast<sockaddr *>(&address),
             sizeof(address)) != 0)
    x.failSocket(concat("binding its handle socket to '", path, "'"));
  // The path goes when this function returns, however it returns.
  struct Unlink {
    std::string path;
    ~Unlink() { ::unlink(path.c_str()); }
  } unlinkPath{path};
  if (::listen(listener.get(), tp) != 0)
    x.failSocket("listening on its handle socket");
  store.set(concat(prefix, "/socket/", rank), path);
  std::vector<std::string> paths = store.gather(
      concat(prefix, "/socket"), x.deadline.msLeft() / 1000.0 + 1e-3);
  std::vector<UniqueFd> outgoing(tp);
  for (int q = 0; q < tp; ++q)
    if (q != rank)
      outgoing[q] = connectTo(x, q, paths[q]);
  serveHandles(x, listener.get(), fds, payload);
  for (int q = 0; q < tp; ++q)
    if (q != rank)
      received[q] = receiveHandles(x, outgoing[q].get(), q);
  return received;
}

} // namespace runtime
} // namespace lamport
