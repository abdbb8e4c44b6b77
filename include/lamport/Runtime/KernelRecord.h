//===- KernelRecord.h - The ABI record a kernel image carries ---*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// What a kernel was compiled for, in a form both sides of a bundle write the
// same way: its name, then each parameter in order (kind; a buffer's role,
// io, dtype and shape; a mailbox's tp, capacity, width and stages). The
// compiler stores the record in the kernel's own image, as a constant
// global named kernelRecordSymbol(kernel); the runtime formats the record
// its manifest implies and compares the two when it loads the image, so a
// manifest that reorders parameters or changes a mailbox's shape is refused
// instead of letting the kernel write outside its buffers.
// docs/bundle.md ("The ABI record") defines the text.
//
// Plain C++ and header-only: lib/Target writes records with it, the runtime
// reads them with it, and neither needs the other's libraries.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_RUNTIME_KERNELRECORD_H
#define LAMPORT_RUNTIME_KERNELRECORD_H

#include <cstdint>
#include <string>
#include <vector>

namespace lamport {
namespace runtime {

/// The record's first field: the format and its version.
inline constexpr const char *kKernelRecordFormat = "lamport-abi 1";

/// Generations of a mailbox: every descriptor indexes `[3, tp, C, W]`.
inline constexpr int kMailboxStages = 3;

/// The global that holds the record of \p kernel in its image.
inline std::string kernelRecordSymbol(const std::string &kernel) {
  return "lamport_abi_" + kernel;
}

/// One kernel parameter as the record states it.
struct RecordParam {
  /// "mailbox", "buffer", "tokens" or "tensor_map".
  std::string kind;
  /// Buffers: the role (may be empty), "in"/"out"/"inout", "bf16"/"f32"/
  /// "i32", and the shape with -1 for the token count. Tensor maps: the
  /// box (inner, outer) in `shape`.
  std::string role, io, dtype;
  std::vector<int64_t> shape;
  /// Mailboxes: the `[3, tp, capacity, width]` shape of each rank's copy.
  int64_t tp = 0, capacity = 0, width = 0;
};

/// The fields of one parameter, in record order: "buffer", "role=x", ...
inline std::vector<std::string> recordFields(const RecordParam &param) {
  std::vector<std::string> fields = {param.kind};
  if (param.kind == "mailbox") {
    fields.push_back("tp=" + std::to_string(param.tp));
    fields.push_back("capacity=" + std::to_string(param.capacity));
    fields.push_back("width=" + std::to_string(param.width));
    fields.push_back("stages=" + std::to_string(kMailboxStages));
  } else if (param.kind == "tensor_map") {
    std::string box = "box=[";
    for (std::size_t i = 0; i < param.shape.size(); ++i)
      box += (i ? "," : "") + std::to_string(param.shape[i]);
    fields.push_back(box + "]");
  } else if (param.kind == "buffer") {
    if (!param.role.empty())
      fields.push_back("role=" + param.role);
    fields.push_back("io=" + param.io);
    fields.push_back("dtype=" + param.dtype);
    std::string shape = "shape=[";
    for (std::size_t i = 0; i < param.shape.size(); ++i)
      shape += (i ? "," : "") + std::to_string(param.shape[i]);
    fields.push_back(shape + "]");
  }
  return fields;
}

/// The record text: "lamport-abi 1; kernel NAME; PARAM; PARAM; ...", each
/// PARAM its fields joined by single spaces.
inline std::string formatKernelRecord(const std::string &kernel,
                                      const std::vector<RecordParam> &params) {
  std::string text = std::string(kKernelRecordFormat) + "; kernel " + kernel;
  for (const RecordParam &param : params) {
    text += ";";
    for (const std::string &field : recordFields(param))
      text += " " + field;
  }
  return text;
}

struct Manifest;
struct KernelSpec;

/// The record \p manifest implies for its kernel \p kernel: what the
/// kernel must have been compiled for to run as the manifest describes.
std::string manifestKernelRecord(const Manifest &manifest,
                                 const KernelSpec &kernel);

/// The first difference between the record an image carries (\p image) and
/// the one its manifest implies (\p expected), as a sentence naming the
/// parameter and the field ("parameter 2 (buffer): role is 'x' in the
/// manifest but 'y' in the kernel"); empty where they agree.
std::string diffKernelRecords(const std::string &image,
                              const std::string &expected);

} // namespace runtime
} // namespace lamport

#endif // LAMPORT_RUNTIME_KERNELRECORD_H
