//===- StreamFork.cpp - A TP group's streams forked and joined ------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#include "lamport/Runtime/StreamFork.h"
#include "lamport/Runtime/Driver.h"
#include "lamport/Runtime/Error.h"

namespace lamport {
namespace runtime {

StreamFork::StreamFork(CUstream main, CUevent forkEvent,
                       std::vector<CUstream> streams,
                       std::vector<CUevent> joinEvents, UseRank useRank)
    : main(main), forkEvent(forkEvent), streams(std::move(streams)),
      joinEvents(std::move(joinEvents)), useRank(std::move(useRank)) {}

void StreamFork::fork() const {
  useRank(0);
  LAMPORT_CU(cuEventRecord(forkEvent, main), "recording the fork event");
  for (int r = 0; r < int(streams.size()); ++r)
    LAMPORT_CU(cuStreamWaitEvent(streams[r], forkEvent, 0),
               concat("rank ", r, ": waiting for the fork event"));
}

void StreamFork::join() const {
  for (int r = 0; r < int(streams.size()); ++r) {
    useRank(r);
    LAMPORT_CU(cuEventRecord(joinEvents[r], streams[r]),
               concat("rank ", r, ": recording its join event"));
    LAMPORT_CU(cuStreamWaitEvent(main, joinEvents[r], 0),
               concat("rank ", r, ": joining the main stream"));
  }
}

} // namespace runtime
} // namespace lamport
