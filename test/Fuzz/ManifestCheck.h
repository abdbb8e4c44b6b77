//===- ManifestCheck.h - The runtime's verdict on a manifest ----*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// The bridge from the compiler's fuzz targets (built as LLVM builds: no
// exceptions, no RTTI) to the runtime's manifest reader, which reports a bad
// manifest by throwing: ManifestCheck.cpp is compiled with exceptions and
// catches what the reader throws.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_TEST_FUZZ_MANIFESTCHECK_H
#define LAMPORT_TEST_FUZZ_MANIFESTCHECK_H

#include <map>
#include <string>

namespace lamport {
namespace fuzz {

/// Whether the runtime's parseManifest accepts \p text; its message in
/// \p error where it does not. Where it does, \p records holds the ABI
/// record the runtime expects of each kernel, by name (KernelRecord.h).
bool runtimeAcceptsManifest(const std::string &text, std::string &error,
                            std::map<std::string, std::string> &records);

} // namespace fuzz
} // namespace lamport

#endif // LAMPORT_TEST_FUZZ_MANIFESTCHECK_H
