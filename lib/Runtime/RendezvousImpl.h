//===- RendezvousImpl.h - The stores behind a Rendezvous --------*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// The two stores openRendezvous picks between (Rendezvous.cpp: the file
// store; RendezvousTcp.cpp: the TCP store served by rank 0), and the bounded
// back-off every wait in the rendezvous uses.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_LIB_RUNTIME_RENDEZVOUSIMPL_H
#define LAMPORT_LIB_RUNTIME_RENDEZVOUSIMPL_H

#include "lamport/Runtime/Rendezvous.h"

#include <chrono>
#include <memory>
#include <string>

namespace lamport {
namespace runtime {

/// A deadline and a back-off from 50 us to 5 ms between tries.
class Backoff {
public:
  explicit Backoff(double seconds);
  /// Sleeps before the next try; false once the deadline has passed.
  bool next();

private:
  std::chrono::steady_clock::time_point deadline;
  std::chrono::microseconds pause{50};
};

/// The TCP store at \p host : \p port; rank 0 serves it.
std::unique_ptr<Rendezvous> openTcpRendezvous(const std::string &address,
                                              const std::string &host, int port,
                                              int rank, int size,
                                              double timeoutSeconds);

} // namespace runtime
} // namespace lamport

#endif // LAMPORT_LIB_RUNTIME_RENDEZVOUSIMPL_H
