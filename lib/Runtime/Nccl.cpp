//===- Nccl.cpp - NCCL, loaded at run time, and one rank's communicator ---===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#include "lamport/Runtime/Nccl.h"
#include "lamport/Runtime/Error.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>

#if __has_include(<nccl.h>)
#include <nccl.h>
// The declarations of Nccl.h are NCCL 2.x's ABI; where nccl.h is at hand,
// hold them to it.
static_assert(sizeof(lamport::runtime::nccl::UniqueId) == sizeof(ncclUniqueId),
              "ncclUniqueId's size");
static_assert(int(lamport::runtime::nccl::Bfloat16) == int(ncclBfloat16),
              "ncclBfloat16");
static_assert(int(lamport::runtime::nccl::Sum) == int(ncclSum), "ncclSum");
static_assert(int(lamport::runtime::nccl::RemoteError) == int(ncclRemoteError),
              "ncclRemoteError");
static_assert(int(lamport::runtime::nccl::InProgress) == int(ncclInProgress),
              "ncclInProgress");
static_assert(sizeof(lamport::runtime::nccl::Result) == sizeof(ncclResult_t),
              "ncclResult_t's size");
#endif

namespace lamport {
namespace runtime {
namespace nccl {

namespace {

NcclApi loadNccl() {
  void *library = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *why = dlerror();
    throw Error(concat("the nccl transport needs libnccl.so.2, which cannot "
                       "be loaded (",
                       why ? why : "not found",
                       "); install NCCL 2 or put its lib directory on "
                       "LD_LIBRARY_PATH"));
  }
  NcclApi nccl;
  auto resolve = [&](const char *symbol, void **slot) {
    *slot = dlsym(library, symbol);
    if (!*slot)
      throw Error(concat("the nccl transport needs ", symbol,
                         ", which libnccl.so.2 lacks (NCCL 2.x is needed)"));
  };
#define LAMPORT_RESOLVE_NCCL(name)                                             \
  resolve(#name, reinterpret_cast<void **>(&nccl.name));
  LAMPORT_RESOLVE_NCCL(ncclGetVersion)
  LAMPORT_RESOLVE_NCCL(ncclGetUniqueId)
  LAMPORT_RESOLVE_NCCL(ncclCommInitRank)
  LAMPORT_RESOLVE_NCCL(ncclAllReduce)
  LAMPORT_RESOLVE_NCCL(ncclCommGetAsyncError)
  LAMPORT_RESOLVE_NCCL(ncclCommAbort)
  LAMPORT_RESOLVE_NCCL(ncclCommDestroy)
  LAMPORT_RESOLVE_NCCL(ncclGetErrorString)
#undef LAMPORT_RESOLVE_NCCL
  nccl.ncclGetLastError = reinterpret_cast<const char *(*)(Comm)>(
      dlsym(library, "ncclGetLastError"));
  return nccl;
}

const char *resultName(Result result) {
  switch (result) {
  case Success:
    return "ncclSuccess";
  case UnhandledCudaError:
    return "ncclUnhandledCudaError";
  case SystemError:
    return "ncclSystemError";
  case InternalError:
    return "ncclInternalError";
  case InvalidArgument:
    return "ncclInvalidArgument";
  case InvalidUsage:
    return "ncclInvalidUsage";
  case RemoteError:
    return "ncclRemoteError";
  case InProgress:
    return "ncclInProgress";
  }
  return "ncclResult_t";
}

} // namespace

const NcclApi &api() {
  // Loaded once; a failure is remembered and rethrown on every call.
  static std::once_flag once;
  static NcclApi nccl;
  static std::string failure;
  std::call_once(once, [] {
    try {
      nccl = loadNccl();
    } catch (const Error &e) {
      failure = e.what();
    }
  });
  if (!failure.empty())
    throw Error(failure);
  return nccl;
}

std::string describe(Result result, Comm comm) {
  const NcclApi &nccl = api();
  const char *text = nccl.ncclGetErrorString(result);
  const char *last =
      nccl.ncclGetLastError && comm ? nccl.ncclGetLastError(comm) : nullptr;
  return concat(resultName(result), " ", int(result),
                " (NCCL: ", text ? text : "no description",
                last && *last ? concat("; last error: ", last) : "", ")");
}

std::string versionText() {
  int code = 0;
  if (api().ncclGetVersion(&code) != Success)
    return "unknown";
  // NCCL_VERSION: major * 10000 + minor * 100 + patch from 2.9 on, major *
  // 1000 + minor * 100 + patch before.
  int major = code >= 10000 ? code / 10000 : code / 1000;
  int minor = code >= 10000 ? code / 100 % 100 : code / 100 % 10;
  return concat(major, ".", minor, ".", code % 100);
}

} // namespace nccl

void disableNcclMulticast() {
  setenv("NCCL_NVLS_ENABLE", "0", /*overwrite=*/0);
}

namespace {

/// The unique id as store text: hex, so any store carries it.
std::string encodeId(const nccl::UniqueId &id) {
  static const char digits[] = "0123456789abcdef";
  std::string text;
  for (char c : id.internal) {
    auto byte = static_cast<unsigned char>(c);
    text += digits[byte >> 4];
    text += digits[byte & 15];
  }
  return text;
}

nccl::UniqueId decodeId(const std::string &text, int rank) {
  nccl::UniqueId id{};
  if (text.size() != 2 * sizeof(id.internal))
    throw Error(concat("rank ", rank, ": the NCCL unique id rank 0 set is ",
                       text.size(), " characters, not ",
                       2 * sizeof(id.internal)));
  auto nibble = [&](char c) {
    if (c >= '0' && c <= '9')
      return c - '0';
    if (c >= 'a' && c <= 'f')
      return c - 'a' + 10;
    throw Error(
        concat("rank ", rank, ": the NCCL unique id rank 0 set is not hex"));
  };
  for (std::size_t i = 0; i < sizeof(id.internal); ++i)
    id.internal[i] = char(nibble(text[2 * i]) << 4 | nibble(text[2 * i + 1]));
  return id;
}

} // namespace

NcclCommunicator::NcclCommunicator(Rendezvous &store, int rank, int tp,
                                   double timeoutSeconds)
    : self(rank), size(tp) {
  std::string who = concat("rank ", rank, " (tp ", tp, ", nccl transport)");
  const nccl::NcclApi *loaded = nullptr;
  try {
    loaded = &nccl::api();
  } catch (const Error &e) {
    throw Error(concat(who, ": ", e.what()));
  }
  const nccl::NcclApi &nccl = *loaded;
  disableNcclMulticast();
  if (rank == 0) {
    nccl::UniqueId id{};
    nccl::Result result = nccl.ncclGetUniqueId(&id);
    if (result != nccl::Success)
      throw Error(
          concat(who, ": ncclGetUniqueId failed: ", nccl::describe(result)));
    store.set("lamport/nccl-id", encodeId(id));
  }
  nccl::UniqueId id{};
  try {
    id = decodeId(store.get("lamport/nccl-id", 0, timeoutSeconds), rank);
    // ncclCommInitRank blocks until every rank has joined and takes no
    // timeout: start it only once every rank is known to be there.
    store.barrier("lamport/nccl-join", timeoutSeconds);
  } catch (const RendezvousTimeout &e) {
    throw RendezvousTimeout(concat(who, ": bootstrapping NCCL: ", e.what()),
                            e.missing);
  }
  nccl::Result result = nccl.ncclCommInitRank(&comm, tp, id, rank);
  if (result != nccl::Success) {
    if (comm)
      nccl.ncclCommAbort(comm);
    comm = nullptr;
    throw Error(
        concat(who, ": ncclCommInitRank failed: ", nccl::describe(result)));
  }
}

NcclCommunicator::~NcclCommunicator() {
  if (!comm)
    return;
  // A communicator whose peer failed is aborted, not destroyed: destroy
  // would wait for the peer's side of the operations still pending.
  const nccl::NcclApi &nccl = nccl::api();
  if (asyncError() != nccl::Success)
    nccl.ncclCommAbort(comm);
  else
    nccl.ncclCommDestroy(comm);
  comm = nullptr;
}

void NcclCommunicator::allReduce(CUdeviceptr send, CUdeviceptr receive,
                                 std::size_t count, CUstream stream,
                                 const std::string &during) {
  if (!comm)
    throw Error(concat(during, ": rank ", self, " (tp ", size,
                       ") aborted its NCCL communicator after an earlier "
                       "failure; open the rank again"));
  const nccl::NcclApi &nccl = nccl::api();
  nccl::Result result = nccl.ncclAllReduce(
      reinterpret_cast<const void *>(send), reinterpret_cast<void *>(receive),
      count, nccl::Bfloat16, nccl::Sum, comm, stream);
  if (result == nccl::Success)
    return;
  std::string why = nccl::describe(result, comm);
  abort();
  throw Error(concat(during, ": ncclAllReduce of ", count,
                     " BF16 element(s) failed (rank ", self, ", tp ", size,
                     "): ", why));
}

nccl::Result NcclCommunicator::asyncError() const {
  if (!comm)
    return nccl::Success;
  nccl::Result error = nccl::Success;
  nccl::Result result = nccl::api().ncclCommGetAsyncError(comm, &error);
  return result != nccl::Success ? result : error;
}

void NcclCommunicator::abort() {
  if (comm)
    nccl::api().ncclCommAbort(comm);
  comm = nullptr;
}

} // namespace runtime
} // namespace lamport
