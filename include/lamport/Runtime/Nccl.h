//===- Nccl.h - NCCL at run time, and one rank's communicator ---*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// The nccl transport runs a program's all-reduce as ncclAllReduce on the
// rank's communicator. NCCL is opened with dlopen("libnccl.so.2") at first
// use, as Driver.cpp opens libcuda.so.1: the runtime has no link-time NCCL
// dependency, builds where no NCCL is installed, and tests put a fake
// libnccl.so.2 first on LD_LIBRARY_PATH (test/Runtime/FakeNccl).
//
// The few types of nccl.h the runtime passes are declared here, in this
// namespace, with the values and layouts of NCCL 2.x's ABI (stable since
// NCCL 2.0: a 128-byte unique id passed by value, int-sized enums, an opaque
// communicator pointer); Nccl.cpp checks them against nccl.h where that
// header is found at build time.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_RUNTIME_NCCL_H
#define LAMPORT_RUNTIME_NCCL_H

#include "lamport/Runtime/Rendezvous.h"

#include <cuda.h>

#include <cstddef>
#include <string>

namespace lamport {
namespace runtime {
namespace nccl {

/// ncclResult_t.
enum Result : int {
  Success = 0,
  UnhandledCudaError = 1,
  SystemError = 2,
  InternalError = 3,
  InvalidArgument = 4,
  InvalidUsage = 5,
  RemoteError = 6,
  InProgress = 7,
};
/// ncclDataType_t (the one the mailboxes carry).
enum DataType : int { Bfloat16 = 9 };
/// ncclRedOp_t (the one an all-reduce applies).
enum RedOp : int { Sum = 0 };
/// ncclUniqueId: what rank 0 makes and every rank passes to init.
struct UniqueId {
  char internal[128];
};
/// ncclComm_t: opaque.
struct Communicator;
using Comm = Communicator *;

/// The NCCL functions the runtime calls, with nccl.h's signatures.
struct NcclApi {
  Result (*ncclGetVersion)(int *version);
  Result (*ncclGetUniqueId)(UniqueId *id);
  Result (*ncclCommInitRank)(Comm *comm, int nranks, UniqueId id, int rank);
  Result (*ncclAllReduce)(const void *send, void *receive, std::size_t count,
                          DataType type, RedOp op, Comm comm, CUstream stream);
  Result (*ncclCommGetAsyncError)(Comm comm, Result *error);
  Result (*ncclCommAbort)(Comm comm);
  Result (*ncclCommDestroy)(Comm comm);
  const char *(*ncclGetErrorString)(Result result);
  /// NCCL's text of the last error of a communicator (NCCL 2.13 and
  /// later); null where the library lacks it.
  const char *(*ncclGetLastError)(Comm comm);
};

/// NCCL, opened once; throws Error (every call, once it failed) saying the
/// nccl transport needs libnccl.so.2 when it cannot be loaded or lacks a
/// function.
const NcclApi &api();

/// "ncclRemoteError 6 (NCCL: remote process exited or there was a network
/// error)": \p result with NCCL's own words, and \p comm's last error
/// where NCCL keeps one.
std::string describe(Result result, Comm comm = nullptr);

/// "2.28.9": the loaded library's version.
std::string versionText();

} // namespace nccl

/// One rank's NCCL communicator, bootstrapped through the group's
/// rendezvous store: rank 0 makes the unique id and sets it, every rank
/// gets it, waits for every other rank at a barrier (so ncclCommInitRank,
/// which cannot be bounded, only starts once every rank is there) and
/// joins. Before the first communicator of the process, NCCL_NVLS_ENABLE is
/// set to 0 where the environment leaves it unset: NCCL then never creates
/// an NVLink multicast object. Destroyed on close; aborted instead after a
/// failure, so a dead peer cannot hang the close.
class NcclCommunicator {
public:
  /// Joins the communicator of rank \p rank of a group of \p tp, meeting
  /// through \p store within \p timeoutSeconds. Throws Error naming the rank
  /// and NCCL's error (RendezvousTimeout naming the missing ranks).
  NcclCommunicator(Rendezvous &store, int rank, int tp, double timeoutSeconds);
  ~NcclCommunicator();
  NcclCommunicator(const NcclCommunicator &) = delete;
  NcclCommunicator &operator=(const NcclCommunicator &) = delete;

  /// Enqueues the BF16 sum of \p count elements of \p send over the group
  /// into \p receive on \p stream; nothing waits, so a capture records it.
  /// Throws Error with \p during and NCCL's error (the communicator is then
  /// aborted).
  void allReduce(CUdeviceptr send, CUdeviceptr receive, std::size_t count,
                 CUstream stream, const std::string &during);
  /// The communicator's asynchronous error (Success while healthy).
  nccl::Result asyncError() const;
  /// \p result in NCCL's words, with this communicator's last error.
  std::string describe(nccl::Result result) const {
    return nccl::describe(result, comm);
  }
  /// Aborts the communicator (idempotent): its pending operations end and
  /// the destructor destroys nothing more.
  void abort();
  int rank() const { return self; }
  int tp() const { return size; }

private:
  nccl::Comm comm = nullptr;
  int self = 0;
  int size = 0;
};

/// Sets NCCL_NVLS_ENABLE=0 in this process's environment when it is unset
/// (NCCL reads it when a communicator is created).
void disableNcclMulticast();

} // namespace runtime
} // namespace lamport

#endif // LAMPORT_RUNTIME_NCCL_H
