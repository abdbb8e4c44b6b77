//===- Manifest.cpp - The bundle manifest and the bundle directory --------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// The manifest model's helpers, the launch plan as lamport-run --plan prints
// it, and loading a bundle directory. Reading manifest.json and checking it
// against docs/bundle.md is ManifestReader.cpp.
//
//===----------------------------------------------------------------------===//

#include "lamport/Runtime/Manifest.h"
#include "lamport/Runtime/CheckedMath.h"
#include "lamport/Runtime/Error.h"

#include <algorithm>
#include <fstream>
#include <sstream>

namespace lamport {
namespace runtime {

std::string shapeText(const std::vector<int64_t> &shape) {
  std::string text = "[";
  for (std::size_t i = 0; i < shape.size(); ++i)
    text += concat(i ? ", " : "", shape[i]);
  return text + "]";
}

std::size_t dtypeBytes(DType dtype) {
  switch (dtype) {
  case DType::BF16:
    return 2;
  case DType::F32:
  case DType::I32:
    return 4;
  }
  return 0;
}

const char *dtypeName(DType dtype) {
  switch (dtype) {
  case DType::BF16:
    return "bf16";
  case DType::F32:
    return "f32";
  case DType::I32:
    return "i32";
  }
  return "?";
}

std::vector<int64_t> ArgumentSpec::shapeFor(int tokens) const {
  std::vector<int64_t> dims = shape;
  for (int64_t &dim : dims)
    if (dim == -1)
      dim = tokens;
  return dims;
}

std::size_t MailboxSpec::copyBytes() const {
  return checkedProduct(
      {3, std::size_t(tp), std::size_t(capacity), std::size_t(width), 2},
      concat("mailbox '", name, "': the bytes of one copy"));
}

namespace {

/// "argument 'x' [4, 8192] bf16": an argument as overflow messages name it.
std::string argumentText(const ArgumentSpec &arg, int tokens) {
  return concat("argument '", arg.name, "' ", shapeText(arg.shapeFor(tokens)),
                " ", dtypeName(arg.dtype));
}

} // namespace

std::size_t ArgumentSpec::elements(int tokens) const {
  std::size_t count = 1;
  for (int64_t dim : shapeFor(tokens)) {
    // The reader admits no dimension below -1; -1 became `tokens`.
    std::optional<std::size_t> next =
        dim < 0 ? std::nullopt : multiplyExact(count, std::size_t(dim));
    if (!next)
      throw Error(concat(argumentText(*this, tokens), ": its element count is ",
                         dim < 0 ? "negative" : kSizeLimitText));
    count = *next;
  }
  return count;
}

std::size_t ArgumentSpec::bytes(int tokens) const {
  std::optional<std::size_t> count =
      multiplyExact(elements(tokens), dtypeBytes(dtype));
  if (!count)
    throw Error(concat(argumentText(*this, tokens), ": its byte count is ",
                       kSizeLimitText));
  return *count;
}

std::optional<std::string> KernelSpec::attribute(const std::string &key) const {
  auto it = attributes.find(key);
  if (it == attributes.end())
    return std::nullopt;
  return it->second;
}

bool KernelSpec::publishes() const {
  return mailboxUse == MailboxUse::Publish ||
         mailboxUse == MailboxUse::PublishAndPoll;
}

bool KernelSpec::publishesAndConsumes() const {
  return mailboxUse == MailboxUse::PublishAndPoll;
}

const KernelSpec *Manifest::findKernel(const std::string &name) const {
  for (const KernelSpec &kernel : kernels)
    if (kernel.name == name)
      return &kernel;
  return nullptr;
}

const MailboxSpec *Manifest::mailboxNotOfTp(int tp) const {
  for (const MailboxSpec &mailbox : mailboxes)
    if (mailbox.tp != tp)
      return &mailbox;
  return nullptr;
}

int Manifest::maxTokens() const {
  int tokens = 0;
  for (const MailboxSpec &mailbox : mailboxes)
    tokens = std::max(tokens, mailbox.capacity);
  return tokens;
}

std::string describePlan(const Manifest &m) {
  std::ostringstream os;
  auto dims = [](const std::array<unsigned, 3> &d) {
    return concat(d[0], "x", d[1], "x", d[2]);
  };
  os << "program " << (m.program.empty() ? "(unnamed)" : m.program) << ": chip "
     << m.chip << ", transport " << m.transport << ", manifest version "
     << m.version << "\n";
  for (const MailboxSpec &mb : m.mailboxes)
    os << "mailbox " << mb.id << " '" << mb.name << "': tp " << mb.tp
       << ", capacity " << mb.capacity << ", width " << mb.width << "; "
       << mb.copyBytes() << " bytes per rank, descriptor "
       << mb.descriptorBytes() << " bytes\n";
  for (const ArgumentSpec &arg : m.arguments) {
    os << "argument " << arg.index << " '" << arg.name << "': ";
    if (arg.kind == ArgumentKind::Mailbox) {
      os << "mailbox " << arg.mailbox << "\n";
      continue;
    }
    os << "buffer " << dtypeName(arg.dtype) << " [";
    for (std::size_t i = 0; i < arg.shape.size(); ++i)
      os << (i ? ", " : "") << arg.shape[i];
    os << "] "
       << (arg.io == BufferIO::In    ? "in"
           : arg.io == BufferIO::Out ? "out"
                                     : "inout")
       << "\n";
  }
  os << "one step, per rank, in stream order:\n";
  for (std::size_t i = 0; i < m.launches.size(); ++i) {
    const KernelSpec &k = m.kernels[m.launches[i]];
    os << "  " << i + 1 << ". " << k.name << " (" << k.op << ")";
    if (m.launchTokens[i])
      os << " for M in " << m.launchTokens[i]->lo << ".."
         << m.launchTokens[i]->hi;
    os << ": grid " << dims(k.grid) << ", block " << dims(k.block)
       << ", cluster " << dims(k.cluster) << ", shared " << k.sharedBytes
       << " B" << (k.pdl ? ", pdl" : "") << "\n     params:";
    for (const ParamSpec &p : k.params) {
      if (p.kind == ParamKind::Tokens)
        os << " tokens";
      else
        os << " "
           << (p.kind == ParamKind::Mailbox     ? "mailbox"
               : p.kind == ParamKind::TensorMap ? "tensor map of"
                                                : "buffer")
           << " '" << m.arguments[p.argument].name << "'";
      os << " (" << p.size << " B)" << (&p == &k.params.back() ? "" : ",");
    }
    os << "\n";
    std::string roles;
    for (const ParamSpec &p : k.params)
      if (p.kind == ParamKind::Buffer && !p.role.empty())
        roles += concat(roles.empty() ? "" : ", ", p.role, " = '",
                        m.arguments[p.argument].name, "'");
    if (!roles.empty())
      os << "     roles: " << roles << "\n";
    if (!k.attributes.empty()) {
      os << "     attributes:";
      for (const auto &[key, value] : k.attributes)
        os << " " << key << " = " << value;
      os << "\n";
    }
  }
  return os.str();
}

namespace {

/// The most bytes one file of a bundle may hold (a kernel's cubin is a few
/// MiB at most): a path to something endless (/dev/zero, a pipe that never
/// closes) is an error, not a hang.
constexpr std::size_t kMaxBundleFileBytes = std::size_t(256) << 20;

/// The whole file at \p path of the bundle in \p directory, or nullopt when
/// it cannot be opened; past kMaxBundleFileBytes an Error.
std::optional<std::string> readFile(const std::string &directory,
                                    const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return std::nullopt;
  std::string text;
  char chunk[1 << 16];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    std::size_t read = static_cast<std::size_t>(in.gcount());
    if (text.size() + read > kMaxBundleFileBytes)
      throw Error(concat("bundle '", directory, "': ", path, " is larger than ",
                         kMaxBundleFileBytes >> 20,
                         " MiB, the most a bundle's file may hold"));
    text.append(chunk, read);
  }
  return text;
}

} // namespace

Bundle loadBundle(const std::string &directory) {
  Bundle bundle;
  bundle.directory = directory;
  std::string manifestPath = directory + "/manifest.json";
  std::optional<std::string> text = readFile(directory, manifestPath);
  if (!text)
    throw Error(concat("bundle '", directory, "': cannot read ", manifestPath,
                       " (is it a directory written by lamport-compile?)"));
  bundle.manifest = parseManifest(*text, manifestPath);
  for (const KernelSpec &kernel : bundle.manifest.kernels) {
    std::optional<std::string> ptx =
        readFile(directory, directory + "/" + kernel.ptx);
    std::optional<std::string> cubin =
        readFile(directory, directory + "/" + kernel.cubin);
    if (!ptx && !cubin)
      throw Error(concat("bundle '", directory, "': kernel '", kernel.name,
                         "' has neither its PTX (", kernel.ptx,
                         ") nor its cubin (", kernel.cubin, ")"));
    if (ptx && ptx->empty())
      throw Error(concat("bundle '", directory, "': kernel '", kernel.name,
                         "': ", kernel.ptx, " is empty"));
    bundle.ptx.push_back(ptx.value_or(std::string()));
    bundle.cubin.push_back(cubin.value_or(std::string()));
  }
  return bundle;
}

} // namespace runtime
} // namespace lamport
