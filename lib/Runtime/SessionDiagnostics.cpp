//===- SessionDiagnostics.cpp - Waits, watchdogs and timeout records ------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// How a Session waits for the GPU and reports its failures: a host
// watchdog around every wait, the timeout records polls claim before they
// trap, and KernelFailure messages that name every one of them.
//
//===----------------------------------------------------------------------===//

#include "SessionImpl.h"
#include "lamport/Runtime/Driver.h"

#include <chrono>
#include <cstring>
#include <thread>

namespace lamport {
namespace runtime {

void Session::wait(CUevent event, double seconds, const std::string &during) {
  using Clock = std::chrono::steady_clock;
  makeCurrent(0);
  auto deadline = Clock::now() + std::chrono::duration<double>(seconds);
  for (unsigned polls = 0;; ++polls) {
    CUresult result = api().cuEventQuery(event);
    if (result == CUDA_SUCCESS)
      return;
    if (result != CUDA_ERROR_NOT_READY)
      fail(result, during);
    // One GPU per rank: a rank's context learns of its own trap before the
    // event on device 0, which waits on it, does; look at every rank's
    // stream about once a millisecond so the failure is reported as soon as
    // the first context has it.
    if (config.transport == TransportKind::Peer && polls % 50 == 49) {
      for (int r = 0; r < config.tp; ++r) {
        makeCurrent(r);
        CUresult rank = api().cuStreamQuery(ranks[r]->stream);
        if (rank != CUDA_SUCCESS && rank != CUDA_ERROR_NOT_READY)
          fail(rank, concat(during, " (rank ", r, "'s stream)"));
      }
      makeCurrent(0);
    }
    if (Clock::now() > deadline)
      fail(CUDA_ERROR_NOT_READY,
           concat(during, ": the host watchdog fired after ", seconds,
                  " s without the GPU finishing"),
           /*watchdog=*/true);
    std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
}

bool readTimeoutRecord(const TimeoutRecord *record, TimeoutRecord &copy,
                       int *unfilled) {
  // The poller fenced at system scope before trapping; read it once.
  std::memcpy(&copy, const_cast<const TimeoutRecord *>(record), sizeof(copy));
  if (!copy.claimed)
    return false;
  // Claimed but never filled: another kernel's trap ended the context
  // between this poll's compare-and-swap and its stores (one GPU runs
  // every rank's kernels in loopback). Every poll has a timeout > 0.
  if (copy.timeoutNs == 0) {
    if (unfilled)
      ++*unfilled;
    return false;
  }
  return true;
}

std::vector<TimeoutRecord> Session::claimedTimeouts(int *unfilled) const {
  std::vector<TimeoutRecord> claimed;
  if (unfilled)
    *unfilled = 0;
  for (const auto &mailbox : mailboxes)
    for (TimeoutRecord *record : mailbox->records) {
      TimeoutRecord copy;
      if (readTimeoutRecord(record, copy, unfilled))
        claimed.push_back(copy);
    }
  return claimed;
}

std::string Session::mailboxName(int id) const {
  if (id >= 0 && id < int(mailboxes.size()))
    return mailboxes[id]->spec.name;
  return concat("#", id);
}

void Session::fail(CUresult result, const std::string &during,
                   bool watchdog) const {
  int unfilled = 0;
  std::vector<TimeoutRecord> records = claimedTimeouts(&unfilled);
  throwKernelFailure(result, during, watchdog, std::move(records), unfilled,
                     [this](int id) { return mailboxName(id); });
}

void throwKernelFailure(CUresult result, const std::string &during,
                        bool watchdog, std::vector<TimeoutRecord> records,
                        int unfilled,
                        const std::function<std::string(int)> &mailboxName) {
  std::string message =
      watchdog ? during
               : concat(during, ": the GPU reported ", describeResult(result));
  if (records.empty()) {
    message += "; no poll left a timeout record, so no Lamport timeout "
               "explains it";
  } else {
    message += concat("; ", records.size(), " poll(s) timed out:");
    for (const TimeoutRecord &record : records)
      message +=
          "\n  " + describeTimeout(record, mailboxName(record.mailboxId));
  }
  if (unfilled)
    message += concat("\n  (", unfilled,
                      " more poll(s) claimed a record, but the context failed "
                      "before they filled it)");
  // These errors are sticky: the context can run nothing more.
  bool sticky = result == CUDA_ERROR_LAUNCH_FAILED ||
                result == CUDA_ERROR_ILLEGAL_INSTRUCTION ||
                result == CUDA_ERROR_ILLEGAL_ADDRESS ||
                result == CUDA_ERROR_MISALIGNED_ADDRESS ||
                result == CUDA_ERROR_INVALID_ADDRESS_SPACE ||
                result == CUDA_ERROR_INVALID_PC ||
                result == CUDA_ERROR_HARDWARE_STACK_ERROR ||
                result == CUDA_ERROR_ASSERT ||
                result == CUDA_ERROR_LAUNCH_TIMEOUT;
  if (sticky)
    message += "\n(the CUDA context is unusable after this error)";
  throw KernelFailure(message, result, std::move(records), watchdog);
}

} // namespace runtime
} // namespace lamport
