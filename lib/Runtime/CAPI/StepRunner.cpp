//===- StepRunner.cpp - Decode steps over caller-owned buffers ------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#include "lamport/Runtime/StepRunner.h"
#include "lamport/Runtime/CheckedMath.h"

namespace lamport {
namespace runtime {

StepRunner::StepRunner(const std::string &directory,
                       const SessionConfig &config)
    : StepRunner(loadBundle(directory), config) {}

StepRunner::StepRunner(Bundle loaded, const SessionConfig &config)
    : bundle(std::move(loaded)) {
  if (bundle.manifest.mailboxes.empty())
    throw Error(concat("bundle '", bundle.directory,
                       "' has no mailbox: there is no TP group to run"));
  // The Session refuses a tp its mailboxes were not compiled for.
  session = std::make_unique<Session>(bundle, config);
  const Manifest &m = bundle.manifest;
  bindings.assign(m.arguments.size() * config.tp, {});
  pointers.assign(m.arguments.size() * config.tp, 0);
  params.assign(std::size_t(config.tp) * m.kernels.size(), {});
  for (int r = 0; r < config.tp; ++r)
    for (std::size_t k = 0; k < m.kernels.size(); ++k)
      params[r * m.kernels.size() + k] = session->kernelParams(
          r, int(k),
          [&](int argument) { return &pointers[argument * config.tp + r]; },
          &tokens);
  done = session->createEvent(false);
}

StepRunner::~StepRunner() = default;

int StepRunner::deviceOf(int rank) const {
  if (rank < 0 || rank >= tp())
    throw Error(concat("rank ", rank, " is out of range: tp = ", tp()));
  return session->device(rank).ordinal;
}

void StepRunner::requireKernels(const char *refused) const {
  if (bundle.manifest.kernels.empty())
    throw Error(concat("this TP group was made from mailbox shapes, without "
                       "bundle kernels: it ",
                       refused,
                       "; a host-lowered program's steps run between "
                       "lamportRuntimeBeginStep and lamportRuntimeEndStep"));
}

void StepRunner::bind(int rank, int argument, CUdeviceptr pointer,
                      std::size_t bytes) {
  const Manifest &m = bundle.manifest;
  requireKernels("binds no buffers (the program takes them as arguments)");
  if (rank < 0 || rank >= tp())
    throw Error(concat("rank ", rank, " is out of range: tp = ", tp()));
  if (argument < 0 || argument >= int(m.arguments.size()))
    throw Error(concat("argument ", argument, " is out of range: program '",
                       m.program, "' has ", m.arguments.size(),
                       " argument(s)"));
  const ArgumentSpec &spec = m.arguments[argument];
  if (spec.kind != ArgumentKind::Buffer)
    throw Error(concat("argument '", spec.name,
                       "' is a mailbox: the runtime allocates mailboxes, "
                       "only buffers are bound"));
  if (pointer % 16)
    throw Error(concat("rank ", rank, ", argument '", spec.name,
                       "': pointer 0x", std::hex, pointer, std::dec,
                       " is not 16-byte aligned (kernels move 16-byte "
                       "fragments)"));
  if (!rangeFits(pointer, bytes))
    throw Error(concat("rank ", rank, ", argument '", spec.name, "': ", bytes,
                       " bytes at 0x", std::hex, pointer, std::dec,
                       " run past the end of the address space"));
  bindings[argument * tp() + rank] = {pointer, bytes};
  pointers[argument * tp() + rank] = pointer;
}

CUdeviceptr StepRunner::allocate(int rank, std::size_t bytes) {
  deviceOf(rank);
  return session->allocate(rank, bytes,
                           concat(bytes, " bytes for rank ", rank));
}

/// Throws where \p bytes at the device address \p pointer wrap around the
/// address space: a length no allocation can hold.
static void checkCopyRange(int rank, const char *what, CUdeviceptr pointer,
                           std::size_t bytes) {
  if (!rangeFits(pointer, bytes))
    throw Error(concat("rank ", rank, ": ", what, " of ", bytes, " bytes at 0x",
                       std::hex, pointer, std::dec,
                       " runs past the end of the address space"));
}

void StepRunner::upload(int rank, CUdeviceptr to, const void *from,
                        std::size_t bytes) {
  deviceOf(rank);
  checkCopyRange(rank, "an upload", to, bytes);
  session->upload(rank, to, from, bytes, concat("an upload to rank ", rank));
}

void StepRunner::download(int rank, void *to, CUdeviceptr from,
                          std::size_t bytes) {
  deviceOf(rank);
  checkCopyRange(rank, "a download", from, bytes);
  session->download(rank, to, from, bytes,
                    concat("a download from rank ", rank));
}

void StepRunner::step(int stepTokens, double watchdogSeconds) {
  const Manifest &m = bundle.manifest;
  if (failed)
    throw Error("an earlier step failed on the GPU: its context is lost, "
                "so this TP group can run no more steps");
  requireKernels("runs no bundle steps");
  if (stepTokens < 1 || stepTokens > m.maxTokens())
    throw Error(concat("tokens must be in [1, ", m.maxTokens(),
                       "] (the mailbox capacity), got ", stepTokens));
  for (const ArgumentSpec &spec : m.arguments) {
    if (spec.kind != ArgumentKind::Buffer)
      continue;
    for (int r = 0; r < tp(); ++r) {
      const Binding &binding = bindings[spec.index * tp() + r];
      if (!binding.pointer)
        throw Error(concat("rank ", r, ", argument '", spec.name,
                           "' is not bound to a buffer"));
      if (binding.bytes < spec.bytes(stepTokens))
        throw Error(concat("rank ", r, ", argument '", spec.name, "' holds ",
                           binding.bytes, " bytes, but a step of ", stepTokens,
                           " token(s) needs ", spec.bytes(stepTokens)));
    }
  }
  tokens = stepTokens;
  std::size_t kernels = m.kernels.size();
  try {
    session->fork();
    // All ranks' first launch, then all ranks' second: publishers reach the
    // GPU before the pollers that wait for them. Of an op's alternatives
    // chosen by M, only the one for this step's M runs.
    for (std::size_t i = 0; i < m.launches.size(); ++i) {
      if (!m.launchRuns(i, stepTokens))
        continue;
      int k = m.launches[i];
      for (int r = 0; r < tp(); ++r)
        session->launch(r, k, params[r * kernels + k].data());
    }
    session->join();
    session->record(done, concat("after step ", stepsRun));
    session->wait(done, watchdogSeconds,
                  concat("step ", stepsRun, " (", stepTokens, " token(s))"));
  } catch (const KernelFailure &) {
    failed = true;
    throw;
  }
  ++stepsRun;
}

} // namespace runtime
} // namespace lamport
