//===- Socket.h - Stream socket reads, writes and waits ---------*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// The few socket loops the rendezvous store (TCP) and the handle exchange
// (Unix domain sockets) both need: write all, read all, wait until readable
// and accept, each retried on EINTR and, where a deadline is given, bounded
// by it. Internal to lib/Runtime; errors are reported as false or -1 so each
// caller can name the rank and socket in its own message.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_LIB_RUNTIME_SOCKET_H
#define LAMPORT_LIB_RUNTIME_SOCKET_H

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>

namespace lamport {
namespace runtime {

/// A point in time no socket wait goes past, or none at all.
class Deadline {
public:
  using Clock = std::chrono::steady_clock;

  /// No deadline: waits block until the peer answers or goes.
  static Deadline never() { return Deadline(); }
  /// \p seconds from now.
  static Deadline after(double seconds);

  /// Milliseconds left, at least 0, as poll() takes them; -1 for never.
  int msLeft() const;

private:
  std::optional<Clock::time_point> at;
};

/// Waits until \p fd is readable; false once \p deadline has passed.
bool waitReadable(int fd, const Deadline &deadline);

/// Writes all of \p count bytes at \p data (without SIGPIPE); false when the
/// peer is gone.
bool sendAll(int fd, const void *data, std::size_t count);
inline bool sendAll(int fd, const std::string &bytes) {
  return sendAll(fd, bytes.data(), bytes.size());
}

/// Reads exactly \p count bytes into \p to; false on end of stream, error or
/// \p deadline.
bool receiveAll(int fd, void *to, std::size_t count,
                const Deadline &deadline = Deadline::never());

/// Accepts one connection on \p listener, close-on-exec; -1 with errno set
/// when none could be taken.
int acceptConnection(int listener);

} // namespace runtime
} // namespace lamport

#endif // LAMPORT_LIB_RUNTIME_SOCKET_H
