//===- CompilerFuzzSupport.h - Compiler fuzzers' set-up ---------*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// What every fuzz target over the compiler (MLIR source, tactic tables)
// does alike: one quiet, single-threaded context per input, whose
// diagnostics LAMPORT_FUZZ_VERBOSE=1 prints (to see why an input is
// refused), and the report that ends a run when an input broke a rule the
// compiler keeps.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_TEST_FUZZ_COMPILERFUZZSUPPORT_H
#define LAMPORT_TEST_FUZZ_COMPILERFUZZSUPPORT_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

namespace lamport {
namespace fuzz {

/// Whether LAMPORT_FUZZ_VERBOSE is set; read once.
inline bool verbose() {
  static const bool set = std::getenv("LAMPORT_FUZZ_VERBOSE") != nullptr;
  return set;
}

/// Ends the run with a report: the input broke a rule the compiler keeps.
[[noreturn]] inline void finding(const llvm::Twine &what) {
  llvm::errs() << "lamport fuzz finding: " << what << "\n";
  llvm::errs().flush();
  std::abort();
}

/// The context one input runs in, so that nothing an input uniqued
/// outlives it. No threads (libFuzzer runs one input at a time) and no op
/// printed with a diagnostic; diagnostics are swallowed unless verbose().
class InputContext {
public:
  explicit InputContext(const mlir::DialectRegistry &registry)
      : context(registry, mlir::MLIRContext::Threading::DISABLED),
        quiet(&context, [](mlir::Diagnostic &diagnostic) {
          if (verbose())
            llvm::errs() << diagnostic.getLocation() << ": " << diagnostic
                         << "\n";
          return mlir::success();
        }) {
    context.printOpOnDiagnostic(false);
  }
  mlir::MLIRContext *get() { return &context; }

private:
  mlir::MLIRContext context;
  mlir::ScopedDiagnosticHandler quiet;
};

} // namespace fuzz
} // namespace lamport

#endif // LAMPORT_TEST_FUZZ_COMPILERFUZZSUPPORT_H
