//===- StepRunner.h - Decode steps over caller-owned buffers ----*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// What an embedding (the C API, the Python package) runs a bundle with: a
// Session whose mailboxes the runtime owns, and buffers the caller owns
// (PyTorch tensors, or allocations made here). The caller binds every
// buffer argument of every rank to a device pointer, then runs decode steps;
// each step launches one decode step on every rank, in the manifest's launch
// order, and waits for it under a host watchdog. No host reference and no
// timing: lamport-run's Harness does those.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_RUNTIME_STEPRUNNER_H
#define LAMPORT_RUNTIME_STEPRUNNER_H

#include "lamport/Runtime/Manifest.h"
#include "lamport/Runtime/Session.h"

#include <memory>
#include <string>
#include <vector>

namespace lamport {
namespace runtime {

class StepRunner {
public:
  /// Loads the bundle in \p directory and brings its TP group up.
  StepRunner(const std::string &directory, const SessionConfig &config);
  /// Brings the TP group of \p bundle up. A bundle with mailboxes and no
  /// kernels (a host-lowered program's, whose kernels are in its code)
  /// runs no steps here.
  StepRunner(Bundle bundle, const SessionConfig &config);
  ~StepRunner();

  const Manifest &manifest() const { return bundle.manifest; }
  /// The TP group: ranks, streams, mailboxes and descriptors.
  Session &getSession() { return *session; }
  int tp() const { return session->tp(); }
  /// The device ordinal rank \p rank runs on.
  int deviceOf(int rank) const;

  /// Binds buffer argument \p argument of rank \p rank to \p pointer, which
  /// holds \p bytes. Throws Error naming the rank and argument for a mailbox
  /// argument, an index out of range or a pointer that is not 16-byte
  /// aligned (kernels move 16-byte fragments).
  void bind(int rank, int argument, CUdeviceptr pointer, std::size_t bytes);

  /// A device allocation on rank \p rank's GPU, owned by the runner.
  CUdeviceptr allocate(int rank, std::size_t bytes);
  void upload(int rank, CUdeviceptr to, const void *from, std::size_t bytes);
  void download(int rank, void *to, CUdeviceptr from, std::size_t bytes);

  /// Runs one decode step of \p tokens tokens on every rank and waits for
  /// it, at most \p watchdogSeconds. Throws Error when an argument is
  /// unbound or smaller than the step needs, and KernelFailure when the GPU
  /// fails (a poll's timeout trap among them: the context is then lost and
  /// the runner must not be used again).
  void step(int tokens, double watchdogSeconds);

  /// Steps run so far.
  uint64_t steps() const { return stepsRun; }

private:
  /// Throws Error saying what is \p refused to a TP group made without
  /// bundle kernels (binding buffers, bundle steps).
  void requireKernels(const char *refused) const;

  struct Binding {
    CUdeviceptr pointer = 0;
    std::size_t bytes = 0;
  };

  Bundle bundle;
  std::unique_ptr<Session> session;
  /// Per (argument, rank): what the caller bound.
  std::vector<Binding> bindings;
  /// What kernel parameters point at: pointers per (argument, rank).
  std::vector<CUdeviceptr> pointers;
  std::vector<std::vector<void *>> params; ///< Per (rank, kernel).
  int32_t tokens = 0;
  CUevent done = nullptr;
  uint64_t stepsRun = 0;
  bool failed = false;
};

} // namespace runtime
} // namespace lamport

#endif // LAMPORT_RUNTIME_STEPRUNNER_H
