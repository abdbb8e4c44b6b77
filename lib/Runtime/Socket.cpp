//===- Socket.cpp - Stream socket reads, writes and waits -----------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#include "Socket.h"

#include <cerrno>
#include <cstdint>

#include <poll.h>
#include <sys/socket.h>

namespace lamport {
namespace runtime {

Deadline Deadline::after(double seconds) {
  Deadline deadline;
  deadline.at =
      Clock::now() + std::chrono::microseconds(int64_t(seconds * 1e6));
  return deadline;
}

int Deadline::msLeft() const {
  if (!at)
    return -1;
  auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(*at - Clock::now());
  return left.count() > 0 ? int(left.count()) : 0;
}

bool waitReadable(int fd, const Deadline &deadline) {
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    int n = ::poll(&p, 1, deadline.msLeft());
    if (n < 0 && errno == EINTR)
      continue;
    return n > 0;
  }
}

/// Calls \p transfer(p, count) until \p count bytes at \p p have moved,
/// retrying on EINTR; false when it moves nothing or fails.
template <typename Byte, typename Transfer>
static bool transferAll(Byte *p, std::size_t count, Transfer transfer) {
  while (count) {
    ssize_t n = transfer(p, count);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    p += n;
    count -= std::size_t(n);
  }
  return true;
}

bool sendAll(int fd, const void *data, std::size_t count) {
  return transferAll(static_cast<const char *>(data), count,
                     [fd](const char *p, std::size_t left) {
                       return ::send(fd, p, left, MSG_NOSIGNAL);
                     });
}

bool receiveAll(int fd, void *to, std::size_t count, const Deadline &deadline) {
  // Without a deadline recv blocks by itself; poll only to bound the wait.
  bool bounded = deadline.msLeft() >= 0;
  return transferAll(static_cast<char *>(to), count,
                     [&](char *p, std::size_t left) -> ssize_t {
                       if (bounded && !waitReadable(fd, deadline))
                         return 0;
                       return ::recv(fd, p, left, 0);
                     });
}

int acceptConnection(int listener) {
  for (;;) {
    int fd = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0 && errno == EINTR)
      continue;
    return fd;
  }
}

} // namespace runtime
} // namespace lamport
