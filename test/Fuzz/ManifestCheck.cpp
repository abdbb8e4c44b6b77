//===- ManifestCheck.cpp - The runtime's verdict on a manifest ------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#include "ManifestCheck.h"

#include "lamport/Runtime/Error.h"
#include "lamport/Runtime/Manifest.h"

namespace lamport {
namespace fuzz {

bool runtimeAcceptsManifest(const std::string &text, std::string &error) {
  try {
    runtime::parseManifest(text, "manifest.json");
    return true;
  } catch (const runtime::Error &e) {
    error = e.what();
    return false;
  }
}

} // namespace fuzz
} // namespace lamport
