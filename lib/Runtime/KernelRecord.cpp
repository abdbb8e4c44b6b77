//===- KernelRecord.cpp - A manifest's ABI records, and their differences -===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#include "lamport/Runtime/KernelRecord.h"
#include "lamport/Runtime/Error.h"
#include "lamport/Runtime/Manifest.h"

namespace lamport {
namespace runtime {

std::string manifestKernelRecord(const Manifest &manifest,
                                 const KernelSpec &kernel) {
  std::vector<RecordParam> params;
  for (const ParamSpec &param : kernel.params) {
    RecordParam &record = params.emplace_back();
    if (param.kind == ParamKind::Tokens) {
      record.kind = "tokens";
      continue;
    }
    if (param.kind == ParamKind::TensorMap) {
      record.kind = "tensor_map";
      record.shape = param.box;
      continue;
    }
    const ArgumentSpec &argument = manifest.arguments[param.argument];
    if (param.kind == ParamKind::Mailbox) {
      const MailboxSpec &mailbox = manifest.mailboxes[argument.mailbox];
      record.kind = "mailbox";
      record.tp = mailbox.tp;
      record.capacity = mailbox.capacity;
      record.width = mailbox.width;
      continue;
    }
    record.kind = "buffer";
    record.role = param.role;
    record.io = param.io == BufferIO::In    ? "in"
                : param.io == BufferIO::Out ? "out"
                                            : "inout";
    record.dtype = dtypeName(argument.dtype);
    record.shape = argument.shape;
  }
  return formatKernelRecord(kernel.name, params);
}

namespace {

/// Splits \p text at each occurrence of \p separator.
std::vector<std::string> split(const std::string &text,
                               const std::string &separator) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    std::size_t end = text.find(separator, start);
    parts.push_back(text.substr(start, end - start));
    if (end == std::string::npos)
      return parts;
    start = end + separator.size();
  }
}

/// At most 80 characters of a record's field: an image's bytes are input
/// too.
std::string capped(const std::string &field) {
  return field.size() > 80 ? field.substr(0, 80) + "..." : field;
}

/// The first difference between the fields of one parameter.
std::string diffParam(std::size_t index, const std::string &image,
                      const std::string &expected) {
  std::vector<std::string> have = split(image, " ");
  std::vector<std::string> want = split(expected, " ");
  std::string what = concat("parameter ", index - 2, " (", want[0], ")");
  if (have[0] != want[0])
    return concat("parameter ", index - 2, ": kind is ", want[0],
                  " in the manifest but ", capped(have[0]), " in the kernel");
  for (std::size_t f = 1; f < std::max(have.size(), want.size()); ++f) {
    std::string h = f < have.size() ? have[f] : "";
    std::string w = f < want.size() ? want[f] : "";
    if (h == w)
      continue;
    std::size_t hEq = h.find('='), wEq = w.find('=');
    if (hEq != std::string::npos && wEq != std::string::npos &&
        h.substr(0, hEq) == w.substr(0, wEq))
      return concat(what, ": ", w.substr(0, wEq), " is ", w.substr(wEq + 1),
                    " in the manifest but ", capped(h.substr(hEq + 1)),
                    " in the kernel");
    return concat(what, ": the manifest says ",
                  w.empty() ? std::string("nothing more") : w,
                  " where the kernel was compiled for ",
                  h.empty() ? std::string("nothing more") : capped(h));
  }
  return {};
}

} // namespace

std::string diffKernelRecords(const std::string &image,
                              const std::string &expected) {
  if (image == expected)
    return {};
  std::vector<std::string> have = split(image, "; ");
  std::vector<std::string> want = split(expected, "; ");
  if (have[0] != want[0])
    return concat("its ABI record is of another format ('", capped(have[0]),
                  "'; this runtime reads '", want[0], "')");
  if (have.size() < 2 || have[1] != want[1])
    return concat("its ABI record names '",
                  capped(have.size() < 2 ? "" : have[1]), "', not the ",
                  want[1]);
  for (std::size_t i = 2; i < std::min(have.size(), want.size()); ++i)
    if (std::string diff = diffParam(i, have[i], want[i]); !diff.empty())
      return diff;
  return concat("the manifest lists ", want.size() - 2,
                " parameters, the kernel was compiled for ", have.size() - 2);
}

} // namespace runtime
} // namespace lamport
