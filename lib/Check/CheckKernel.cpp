//===- CheckKernel.cpp - lamport-run's word-compare kernel ----------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#include "lamport/Check/CheckKernel.h"
#include "CheckKernelPtx.h"
#include "lamport/Runtime/Driver.h"

#include <algorithm>

namespace lamport {
namespace check {

using namespace runtime;

HarnessKernel::HarnessKernel(Session &session, const char *ptx,
                             const char *entry, const std::string &what)
    : session(session) {
  for (int r = 0; r < session.tp(); ++r) {
    const DeviceProperties &props = session.device(r);
    auto loaded =
        std::find_if(devices.begin(), devices.end(), [&](const Loaded &l) {
          return l.ordinal == props.ordinal;
        });
    if (loaded != devices.end()) {
      byRank.push_back(loaded->function);
      continue;
    }
    session.makeCurrent(r);
    Loaded device;
    device.ordinal = props.ordinal;
    LAMPORT_CU(cuModuleLoadData(&device.module, ptx),
               concat(props.describe(), ": JIT-compiling ", what));
    devices.push_back(device);
    LAMPORT_CU(
        cuModuleGetFunction(&devices.back().function, device.module, entry),
        concat(props.describe(), ": finding ", what));
    if (api().cuFuncLoad)
      LAMPORT_CU(cuFuncLoad(devices.back().function),
                 concat(props.describe(), ": loading ", what));
    byRank.push_back(devices.back().function);
  }
}

HarnessKernel::~HarnessKernel() {
  // Best effort, as the session's own modules: after a trap this fails.
  for (const Loaded &device : devices)
    api().cuModuleUnload(device.module);
}

CUfunction HarnessKernel::prepare(int rank) const {
  if (session.transport() == TransportKind::Peer)
    session.makeCurrent(rank);
  return byRank[rank];
}

CheckKernel::CheckKernel(Session &session)
    : kernel(session, kCheckKernelPtx, kCheckKernelName, "the check kernel") {}

void CheckKernel::launch(int rank, CUdeviceptr out, CUdeviceptr expected,
                         uint64_t words, CUdeviceptr result, uint32_t tag) {
  CUfunction function = kernel.prepare(rank);
  void *params[] = {&out, &expected, &words, &result, &tag};
  unsigned blocks = unsigned(std::min<uint64_t>((words + 255) / 256, 1024));
  CUresult status =
      api().cuLaunchKernel(function, blocks ? blocks : 1, 1, 1, 256, 1, 1, 0,
                           kernel.session.stream(rank), params, nullptr);
  if (status != CUDA_SUCCESS)
    kernel.session.fail(status,
                        concat("rank ", rank, ": launching the check kernel"));
}

} // namespace check
} // namespace lamport
