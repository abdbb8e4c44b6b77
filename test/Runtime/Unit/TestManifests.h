//===- TestManifests.h - Manifests the runtime unit tests share -*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// The tp = 2 publish/poll manifest several unit tests start from; each test
// edits the JSON for what it checks instead of keeping a copy of its own.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_TEST_RUNTIME_UNIT_TESTMANIFESTS_H
#define LAMPORT_TEST_RUNTIME_UNIT_TESTMANIFESTS_H

#include <nlohmann/json.hpp>

namespace lamport {
namespace test {

/// A valid tp = 2 publish/poll manifest, as docs/bundle.md describes it: one
/// mailbox, a bf16 `rows` input, a bf16 `out` output and the two kernels.
inline nlohmann::json publishPollManifest() {
  return nlohmann::json::parse(R"({
    "format": "lamport-bundle", "version": 1, "chip": "sm_90",
    "transport": "unicast", "program": "publish_poll",
    "mailboxes": [{"id": 0, "name": "mb", "tp": 2, "capacity": 16,
                   "width": 1024}],
    "arguments": [
      {"index": 0, "name": "rows", "kind": "buffer", "dtype": "bf16",
       "shape": [-1, 1024], "io": "in"},
      {"index": 1, "name": "mb", "kind": "mailbox", "mailbox": 0},
      {"index": 2, "name": "out", "kind": "buffer", "dtype": "bf16",
       "shape": [2, -1, 1024], "io": "out"}],
    "kernels": [
      {"name": "publish_rows_0", "op": "publish_rows",
       "ptx": "publish_rows_0.ptx", "cubin": "publish_rows_0.cubin",
       "grid": [16, 1, 1], "block": [128, 1, 1], "cluster": [1, 1, 1],
       "shared_bytes": 0, "pdl": true,
       "attributes": {"transport": "unicast"},
       "params": [
         {"kind": "mailbox", "argument": 1, "size": 56, "align": 8},
         {"kind": "buffer", "argument": 0, "size": 8, "align": 8},
         {"kind": "tokens", "size": 4, "align": 4}]},
      {"name": "poll_rows_0", "op": "poll_rows",
       "ptx": "poll_rows_0.ptx", "cubin": "poll_rows_0.cubin",
       "grid": [16, 1, 1], "block": [128, 1, 1], "cluster": [1, 1, 1],
       "shared_bytes": 0, "pdl": false,
       "attributes": {"timeout_ns": 2000000000},
       "params": [
         {"kind": "mailbox", "argument": 1, "size": 56, "align": 8},
         {"kind": "buffer", "argument": 2, "size": 8, "align": 8},
         {"kind": "tokens", "size": 4, "align": 4}]}],
    "launches": [{"kernel": "publish_rows_0"}, {"kernel": "poll_rows_0"}]
  })");
}

} // namespace test
} // namespace lamport

#endif // LAMPORT_TEST_RUNTIME_UNIT_TESTMANIFESTS_H
