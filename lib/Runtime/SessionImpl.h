//===- SessionImpl.h - The state behind a Session ---------------*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// What a Session keeps per rank, device, mailbox and launch: shared by the
// files that implement it (Session.cpp: bring-up, teardown and memory;
// SessionMailboxes.cpp; SessionLaunches.cpp; SessionDiagnostics.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_LIB_RUNTIME_SESSIONIMPL_H
#define LAMPORT_LIB_RUNTIME_SESSIONIMPL_H

#include "lamport/Runtime/MailboxMemory.h"
#include "lamport/Runtime/Session.h"
#include "lamport/Runtime/TensorMap.h"

#include <cstdint>
#include <string>
#include <vector>

namespace lamport {
namespace runtime {

/// One rank: its device, context and stream.
struct Session::Rank {
  int ordinal = 0;
  CUdevice device = 0;
  CUcontext context = nullptr;
  CUstream stream = nullptr;
  CUevent joinEvent = nullptr;
  CUevent publishedEvent = nullptr;
  DeviceProperties properties;
  bool ownsContext = false; ///< One primary-context retain per device.
};

/// A device's loaded modules: the bundle's kernels.
struct Session::DeviceModules {
  int ordinal = -1;
  std::vector<CUmodule> loaded;
  std::vector<CUfunction> kernels;
  /// Per kernel, its image's override of its polls' timeout (0: none).
  std::vector<CUdeviceptr> pollTimeouts;
};

/// One mailbox on every rank.
struct Session::Mailbox {
  MailboxSpec spec;
  std::vector<CUdeviceptr> copies;      ///< Per rank, as mapped for everyone.
  std::vector<CUdeviceptr> stages;      ///< Per rank, kStageWords int32s.
  std::vector<TimeoutRecord *> records; ///< Host side, per rank.
  std::vector<std::vector<uint8_t>> packed; ///< Descriptors, per rank.
  /// Peer transport only: the VMM allocations behind the copies.
  std::vector<MappedAllocation> peerCopies;
};

/// A launch configuration built once per (rank, kernel).
struct Session::Launch {
  CUlaunchConfig config{};
  CUlaunchAttribute attributes[2]{};
  CUfunction function = nullptr;
  std::string context;
  /// The kernel's tensor map parameters' bytes, by parameter index (empty
  /// for a kernel that takes none).
  std::vector<TensorMapSlot> tensorMaps;
};

} // namespace runtime
} // namespace lamport

#endif // LAMPORT_LIB_RUNTIME_SESSIONIMPL_H
