//===- FaultKernel.cpp - The delay kernel of a late publish ---------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#include "lamport/Check/FaultKernel.h"
#include "FaultKernelPtx.h"
#include "lamport/Runtime/Driver.h"

namespace lamport {
namespace check {

using namespace runtime;

FaultKernel::FaultKernel(Session &session)
    : kernel(session, kFaultKernelPtx, kFaultDelayName,
             "the late-publish delay kernel") {}

void FaultKernel::delay(int rank, uint64_t ns) {
  CUfunction function = kernel.prepare(rank);
  void *params[] = {&ns};
  CUresult status =
      api().cuLaunchKernel(function, 1, 1, 1, 1, 1, 1, 0,
                           kernel.session.stream(rank), params, nullptr);
  if (status != CUDA_SUCCESS)
    kernel.session.fail(
        status, concat("rank ", rank, ": launching the late-publish delay"));
}

} // namespace check
} // namespace lamport
