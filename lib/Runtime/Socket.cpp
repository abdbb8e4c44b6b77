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

bool sendAll(int fd, const void *data, std::size_t count) {
  const char *p = static_cast<const char *>(data);
  while (count) {
    ssize_t n = ::send(fd, p, count, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    p += n;
    count -= std::size_t(n);
  }
  return true;
}

bool receiveAll(int fd, void *to, std::size_t count, const Deadline &deadline) {
  char *p = static_cast<char *>(to);
  bool bounded = deadline.msLeft() >= 0;
  while (count) {
    // Without a deadline recv blocks by itself; poll only to bound the wait.
    if (bounded && !waitReadable(fd, deadline))
      return false;
    ssize_t n = ::recv(fd, p, count, 0);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    p += n;
    count -= std::size_t(n);
  }
  return true;
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
