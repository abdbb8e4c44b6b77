//===- ManifestCheck.cpp - The runtime's verdict on a manifest ------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#include "ManifestCheck.h"

#include "lamport/Runtime/Error.h"
#include "lamport/Runtime/KernelRecord.h"
#include "lamport/Runtime/Manifest.h"

namespace lamport {
namespace fuzz {

bool runtimeAcceptsManifest(const std::string &text, std::string &error,
                            std::map<std::string, std::string> &records) {
  try {
    runtime::Manifest manifest = runtime::parseManifest(text, "manifest.json");
    for (const runtime::KernelSpec &kernel : manifest.kernels)
      records[kernel.name] = runtime::manifestKernelRecord(manifest, kernel);
    return true;
  } catch (const runtime::Error &e) {
    error = e.what();
    return false;
  }
}

} // namespace fuzz
} // namespace lamport
