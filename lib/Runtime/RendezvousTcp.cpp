//===- RendezvousTcp.cpp - The rendezvous store over TCP ------------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// Rank 0 keeps the keys and serves them on a thread; the other ranks ask it
// over one connection each. A request is an op byte ('S' set, 'G' get), the
// key and the value, each length-prefixed (32-bit, little-endian); the reply
// is a status byte ('O' done, 'F' found, 'N' not set yet) and a value. Gets
// never block on the server: waiting is the asking rank's back-off.
//
//===----------------------------------------------------------------------===//

#include "RendezvousImpl.h"
#include "Socket.h"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace lamport {
namespace runtime {

namespace {

void appendField(std::string &frame, const std::string &field) {
  uint32_t length = uint32_t(field.size());
  for (int i = 0; i < 4; ++i)
    frame += char((length >> (8 * i)) & 0xFF);
  frame += field;
}

/// Reads one length-prefixed field (at most 64 MiB).
bool receiveField(int fd, std::string &field) {
  unsigned char prefix[4];
  if (!receiveAll(fd, prefix, 4))
    return false;
  uint32_t length =
      prefix[0] | prefix[1] << 8 | prefix[2] << 16 | uint32_t(prefix[3]) << 24;
  if (length > (64u << 20))
    return false;
  field.resize(length);
  return length == 0 || receiveAll(fd, field.data(), length);
}

/// The addresses of \p host : \p port, or an Error naming the address.
addrinfo *resolve(const std::string &address, const std::string &host, int port,
                  bool passive) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = passive ? AI_PASSIVE : 0;
  addrinfo *found = nullptr;
  int status =
      ::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found);
  if (status != 0)
    throw Error(concat("rendezvous ", address, ": cannot resolve '", host,
                       "': ", ::gai_strerror(status)));
  return found;
}

/// Rank 0: the keys, and a thread serving them to the other ranks.
class TcpServer : public Rendezvous {
public:
  TcpServer(const std::string &address, const std::string &host, int port,
            int size, double lingerSeconds)
      : Rendezvous(address, 0, size), lingerSeconds(lingerSeconds) {
    addrinfo *found = resolve(address, host, port, /*passive=*/true);
    std::string why = "no address";
    for (addrinfo *a = found; a && listener < 0; a = a->ai_next) {
      int fd =
          ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
      if (fd < 0)
        continue;
      int one = 1;
      ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
      if (::bind(fd, a->ai_addr, a->ai_addrlen) == 0 &&
          ::listen(fd, 128) == 0) {
        listener = fd;
        break;
      }
      why = std::strerror(errno);
      ::close(fd);
    }
    ::freeaddrinfo(found);
    if (listener < 0)
      throw Error(concat("rendezvous ", address,
                         ": rank 0 cannot serve the store on ", host, ":", port,
                         ": ", why));
    sockaddr_storage bound{};
    socklen_t length = sizeof(bound);
    ::getsockname(listener, reinterpret_cast<sockaddr *>(&bound), &length);
    if (bound.ss_family == AF_INET6)
      boundPort = ntohs(reinterpret_cast<sockaddr_in6 *>(&bound)->sin6_port);
    else
      boundPort = ntohs(reinterpret_cast<sockaddr_in *>(&bound)->sin_port);
    if (::pipe2(wake, O_CLOEXEC) != 0) {
      ::close(listener);
      throw Error(concat("rendezvous ", address, ": ", std::strerror(errno)));
    }
    server = std::thread([this] { serve(); });
  }

  ~TcpServer() override {
    // Linger while other ranks are still connected (at most the timeout):
    // a rank may not yet have read the last keys it waits for.
    Backoff backoff(lingerSeconds);
    while (connected > 0 && backoff.next()) {
    }
    stopping = true;
    char byte = 0;
    (void)!::write(wake[1], &byte, 1);
    server.join();
    for (int fd : clients)
      ::close(fd);
    ::close(listener);
    ::close(wake[0]);
    ::close(wake[1]);
  }

  int port() const override { return boundPort; }

  void set(const std::string &key, const std::string &value) override {
    std::lock_guard<std::mutex> lock(mutex);
    keys[key] = value;
  }

  std::optional<std::string> tryGet(const std::string &key) override {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = keys.find(key);
    if (it == keys.end())
      return std::nullopt;
    return it->second;
  }

private:
  void serve() {
    while (!stopping) {
      std::vector<pollfd> fds{{wake[0], POLLIN, 0}, {listener, POLLIN, 0}};
      for (int fd : clients)
        fds.push_back({fd, POLLIN, 0});
      if (::poll(fds.data(), fds.size(), -1) < 0 && errno != EINTR)
        return;
      if (fds[0].revents)
        return;
      std::vector<int> open;
      for (std::size_t i = 2; i < fds.size(); ++i) {
        if (!fds[i].revents || answer(fds[i].fd))
          open.push_back(fds[i].fd);
        else
          ::close(fds[i].fd);
      }
      if (fds[1].revents & POLLIN) {
        int fd = acceptConnection(listener);
        if (fd >= 0) {
          int one = 1;
          ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
          open.push_back(fd);
        }
      }
      clients.swap(open);
      connected = int(clients.size());
    }
  }

  /// Answers one request on \p fd; false when the client is gone.
  bool answer(int fd) {
    char op = 0;
    std::string key, value;
    if (!receiveAll(fd, &op, 1) || !receiveField(fd, key) ||
        !receiveField(fd, value))
      return false;
    std::string reply;
    if (op == 'S') {
      set(key, value);
      reply = "O";
      appendField(reply, "");
    } else if (op == 'G') {
      std::optional<std::string> found = tryGet(key);
      reply = found ? "F" : "N";
      appendField(reply, found ? *found : "");
    } else {
      return false;
    }
    return sendAll(fd, reply);
  }

  std::mutex mutex;
  std::map<std::string, std::string> keys;
  int listener = -1;
  int boundPort = 0;
  int wake[2] = {-1, -1};
  std::vector<int> clients; ///< Only the server thread touches them.
  std::atomic<bool> stopping{false};
  std::atomic<int> connected{0};
  double lingerSeconds;
  std::thread server;
};

/// Ranks other than 0: one connection to rank 0's store.
class TcpClient : public Rendezvous {
public:
  TcpClient(const std::string &address, const std::string &host, int port,
            int rank, int size, double timeoutSeconds)
      : Rendezvous(address, rank, size) {
    Backoff backoff(timeoutSeconds);
    std::string why;
    do {
      addrinfo *found = resolve(address, host, port, /*passive=*/false);
      for (addrinfo *a = found; a && fd < 0; a = a->ai_next) {
        int s = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC,
                         a->ai_protocol);
        if (s < 0)
          continue;
        if (::connect(s, a->ai_addr, a->ai_addrlen) == 0) {
          fd = s;
        } else {
          why = std::strerror(errno);
          ::close(s);
        }
      }
      ::freeaddrinfo(found);
    } while (fd < 0 && backoff.next());
    if (fd < 0)
      throw RendezvousTimeout(
          concat("rendezvous ", address, ": rank ", rank, " waited ",
                 timeoutSeconds, " s for rank 0 to serve the store on ", host,
                 ":", port, " (", why,
                 "); rank 0 died or never reached the rendezvous"),
          {0});
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  }

  ~TcpClient() override { ::close(fd); }

  void set(const std::string &key, const std::string &value) override {
    request('S', key, value);
  }

  std::optional<std::string> tryGet(const std::string &key) override {
    std::string value;
    if (request('G', key, "", &value) == 'N')
      return std::nullopt;
    return value;
  }

private:
  char request(char op, const std::string &key, const std::string &value,
               std::string *reply = nullptr) {
    std::lock_guard<std::mutex> lock(mutex);
    std::string frame(1, op);
    appendField(frame, key);
    appendField(frame, value);
    char status = 0;
    std::string answer;
    if (!sendAll(fd, frame) || !receiveAll(fd, &status, 1) ||
        !receiveField(fd, answer))
      throw RendezvousTimeout(
          concat("rendezvous ", address(), ": rank ", rank(),
                 " lost its connection to the store rank 0 serves, asking "
                 "for '",
                 key, "' (rank 0 died or closed the store)"),
          {0});
    if (reply)
      *reply = std::move(answer);
    return status;
  }

  std::mutex mutex;
  int fd = -1;
};

} // namespace

std::unique_ptr<Rendezvous> openTcpRendezvous(const std::string &address,
                                              const std::string &host, int port,
                                              int rank, int size,
                                              double timeoutSeconds) {
  if (rank == 0)
    return std::make_unique<TcpServer>(address, host, port, size,
                                       timeoutSeconds);
  return std::make_unique<TcpClient>(address, host, port, rank, size,
                                     timeoutSeconds);
}

} // namespace runtime
} // namespace lamport
