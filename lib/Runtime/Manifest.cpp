//===- Manifest.cpp - Parse and validate manifest.json --------------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// Every rule of docs/bundle.md checked at load, each with a message that
// names the file, the JSON path and what was expected, so a bundle that
// disagrees with this runtime fails before any GPU work starts.
//
//===----------------------------------------------------------------------===//

#include "lamport/Runtime/Manifest.h"
#include "lamport/Runtime/Error.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

using nlohmann::json;

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

std::size_t ArgumentSpec::elements(int tokens) const {
  std::size_t count = 1;
  for (int64_t dim : shapeFor(tokens))
    count *= std::size_t(dim);
  return count;
}

std::optional<std::string> KernelSpec::attribute(const std::string &key) const {
  auto it = attributes.find(key);
  if (it == attributes.end())
    return std::nullopt;
  return it->second;
}

bool KernelSpec::publishes() const {
  return op == "publish_rows" || op == "gemm_publish" || publishesAndConsumes();
}

bool KernelSpec::publishesAndConsumes() const {
  return op == "all_reduce_dual_norm" &&
         std::any_of(params.begin(), params.end(),
                     [](const ParamSpec &p) { return p.role == "partial"; });
}

const KernelSpec *Manifest::findKernel(const std::string &name) const {
  for (const KernelSpec &kernel : kernels)
    if (kernel.name == name)
      return &kernel;
  return nullptr;
}

int Manifest::maxTokens() const {
  int tokens = 0;
  for (const MailboxSpec &mailbox : mailboxes)
    tokens = std::max(tokens, mailbox.capacity);
  return tokens;
}

const std::vector<std::string> &knownOps() {
  static const std::vector<std::string> ops = {
      "publish_rows", "poll_rows",  "all_reduce",  "all_reduce_dual_norm",
      "dual_norm",    "all_gather", "gemm_publish"};
  return ops;
}

namespace {

/// The upper bound of a `tokens` range in a manifest with no mailbox.
constexpr int kMaxTokensWithoutMailbox = 16;

/// Reads typed fields of one JSON object, naming the file and the path of
/// the object in every error.
class Reader {
public:
  Reader(const std::string &origin, std::string path, const json &object)
      : origin(origin), path(std::move(path)), object(object) {
    if (!object.is_object())
      fail("", "must be a JSON object");
  }

  [[noreturn]] void fail(const std::string &key,
                         const std::string &message) const {
    std::string where = path;
    if (!key.empty())
      where += (where.empty() ? "" : ".") + key;
    throw Error(
        concat(origin, ": ", where.empty() ? "" : where + ": ", message));
  }

  bool has(const std::string &key) const { return object.contains(key); }

  const json &field(const std::string &key) const {
    auto it = object.find(key);
    if (it == object.end())
      fail("", concat("missing field '", key, "'"));
    return *it;
  }

  std::string string(const std::string &key) const {
    const json &value = field(key);
    if (!value.is_string())
      fail(key, concat("must be a string, got ", value.dump()));
    return value.get<std::string>();
  }

  int64_t integer(const std::string &key) const {
    const json &value = field(key);
    if (!value.is_number_integer())
      fail(key, concat("must be an integer, got ", value.dump()));
    return value.get<int64_t>();
  }

  /// An integer in [lo, hi].
  int64_t integer(const std::string &key, int64_t lo, int64_t hi) const {
    int64_t value = integer(key);
    if (value < lo || value > hi)
      fail(key, concat("must be in [", lo, ", ", hi, "], got ", value));
    return value;
  }

  bool boolean(const std::string &key) const {
    const json &value = field(key);
    if (!value.is_boolean())
      fail(key, concat("must be true or false, got ", value.dump()));
    return value.get<bool>();
  }

  const json &array(const std::string &key) const {
    const json &value = field(key);
    if (!value.is_array())
      fail(key, concat("must be an array, got ", value.dump()));
    return value;
  }

  /// Three positive dimensions, as grid, block and cluster are written.
  std::array<unsigned, 3> dims3(const std::string &key) const {
    const json &value = array(key);
    if (value.size() != 3)
      fail(key, concat("must have 3 entries, got ", value.dump()));
    std::array<unsigned, 3> dims{};
    for (int i = 0; i < 3; ++i) {
      if (!value[i].is_number_integer() || value[i].get<int64_t>() < 1 ||
          value[i].get<int64_t>() > (int64_t(1) << 31) - 1)
        fail(key,
             concat("entries must be positive integers, got ", value.dump()));
      dims[i] = unsigned(value[i].get<int64_t>());
    }
    return dims;
  }

  std::string child(const std::string &key, std::size_t index) const {
    return concat(path.empty() ? "" : path + ".", key, "[", index, "]");
  }

  const std::string &origin;
  std::string path;
  const json &object;
};

/// The rule for `tokens` that every error about a choice by M states.
constexpr const char *kChoiceRule =
    "the launches with 'tokens' are alternatives of one op, consecutive and "
    "in ascending M: their ranges start at 1, each begins right after the "
    "one before ends, and the last ends at the largest mailbox capacity, so "
    "exactly one of them runs at every M";

/// Checks that the launches with `tokens` form choices by M that run
/// exactly one alternative at every M in 1..bound (kChoiceRule).
void checkChoices(const std::string &origin, const Manifest &m, int bound) {
  auto fail = [&](std::size_t i, const std::string &message) {
    throw Error(concat(origin, ": launches[", i, "].tokens: ", message, " (",
                       kChoiceRule, ")"));
  };
  // The next M the open choice must cover; 0 when no choice is open.
  int next = 0;
  std::size_t first = 0;
  for (std::size_t i = 0; i < m.launches.size(); ++i) {
    const std::optional<TokenRange> &range = m.launchTokens[i];
    if (!range) {
      if (next)
        throw Error(concat(origin, ": launches[", i,
                           "]: has no 'tokens' but the choice by M that "
                           "launches[",
                           first, "] starts covers only 1..", next - 1, " (",
                           kChoiceRule, ")"));
      continue;
    }
    const std::string &op = m.kernels[m.launches[i]].op;
    if (!next) {
      first = i;
      next = 1;
    } else if (op != m.kernels[m.launches[first]].op) {
      fail(i, concat("launches op '", op, "' in the choice by M that launches[",
                     first, "] starts with op '",
                     m.kernels[m.launches[first]].op, "'"));
    }
    if (range->lo != next)
      fail(i, concat("starts at ", range->lo, " where ", next,
                     range->lo < next ? " is expected: the ranges overlap"
                                      : " is expected: M in between runs no "
                                        "alternative"));
    next = range->hi == bound ? 0 : range->hi + 1;
  }
  if (next)
    throw Error(concat(origin, ": launches[", first,
                       "]: the choice by M it starts covers only 1..", next - 1,
                       ", not 1..", bound, " (", kChoiceRule, ")"));
}

MailboxSpec parseMailbox(const Reader &r, std::size_t position) {
  MailboxSpec mailbox;
  mailbox.id = int(r.integer("id"));
  if (mailbox.id != int(position))
    r.fail("id", concat("must equal the mailbox's position ", position,
                        ", got ", mailbox.id));
  mailbox.name = r.string("name");
  mailbox.tp = int(r.integer("tp", 1, 64));
  mailbox.capacity = int(r.integer("capacity", 1, 1 << 16));
  mailbox.width = int(r.integer("width", 8, 1 << 24));
  if (mailbox.width % 8)
    r.fail("width", concat("must be a multiple of 8 BF16 (one 16-byte "
                           "fragment), got ",
                           mailbox.width));
  return mailbox;
}

ArgumentSpec parseArgument(const Reader &r, std::size_t position,
                           const std::vector<MailboxSpec> &mailboxes) {
  ArgumentSpec arg;
  arg.index = int(r.integer("index"));
  if (arg.index != int(position))
    r.fail("index", concat("must equal the argument's position ", position,
                           ", got ", arg.index));
  arg.name = r.string("name");
  std::string kind = r.string("kind");
  if (kind == "mailbox") {
    arg.kind = ArgumentKind::Mailbox;
    int64_t mailbox = r.integer("mailbox");
    if (mailbox < 0 || mailbox >= int64_t(mailboxes.size()))
      r.fail("mailbox", concat("names mailbox ", mailbox,
                               ", but the manifest "
                               "has ",
                               mailboxes.size(), " mailbox(es)"));
    arg.mailbox = int(mailbox);
    return arg;
  }
  if (kind != "buffer")
    r.fail("kind", concat("unknown argument kind '", kind,
                          "' (expected 'buffer' or 'mailbox')"));
  arg.kind = ArgumentKind::Buffer;
  std::string dtype = r.string("dtype");
  if (dtype == "bf16")
    arg.dtype = DType::BF16;
  else if (dtype == "f32")
    arg.dtype = DType::F32;
  else if (dtype == "i32")
    arg.dtype = DType::I32;
  else
    r.fail("dtype", concat("unknown dtype '", dtype,
                           "' (expected 'bf16', 'f32' or 'i32')"));
  const json &shape = r.array("shape");
  if (shape.empty())
    r.fail("shape", "must have at least one dimension");
  for (const json &dim : shape) {
    if (!dim.is_number_integer() ||
        (dim.get<int64_t>() < 1 && dim.get<int64_t>() != -1))
      r.fail("shape", concat("dimensions must be positive or -1 (the token "
                             "count), got ",
                             shape.dump()));
    arg.shape.push_back(dim.get<int64_t>());
  }
  std::string io = r.string("io");
  if (io == "in")
    arg.io = BufferIO::In;
  else if (io == "out")
    arg.io = BufferIO::Out;
  else if (io == "inout")
    arg.io = BufferIO::InOut;
  else
    r.fail("io",
           concat("unknown io '", io, "' (expected 'in', 'out' or 'inout')"));
  return arg;
}

ParamSpec parseParam(const Reader &r, const Manifest &m) {
  ParamSpec param;
  std::string kind = r.string("kind");
  param.size = unsigned(r.integer("size", 1, 4096));
  param.align = unsigned(r.integer("align", 1, 16));
  auto expectArgument = [&](ArgumentKind want) -> const ArgumentSpec & {
    int64_t index = r.integer("argument");
    if (index < 0 || index >= int64_t(m.arguments.size()))
      r.fail("argument", concat("names argument ", index,
                                ", but the program "
                                "has ",
                                m.arguments.size(), " argument(s)"));
    const ArgumentSpec &arg = m.arguments[index];
    if (arg.kind != want)
      r.fail(
          "argument",
          concat("names argument ", index, " ('", arg.name, "'), which is ",
                 arg.kind == ArgumentKind::Mailbox ? "a mailbox" : "a buffer",
                 ", but the parameter is a ", kind));
    param.argument = int(index);
    return arg;
  };
  auto expectLayout = [&](unsigned size, unsigned align,
                          const std::string &why) {
    if (param.size != size)
      r.fail("size", concat(kind, " parameter is ", param.size,
                            " bytes, expected ", size, " (", why, ")"));
    if (param.align != align)
      r.fail("align", concat(kind, " parameter is aligned to ", param.align,
                             ", expected ", align));
  };
  if (kind == "mailbox") {
    param.kind = ParamKind::Mailbox;
    const MailboxSpec &mailbox =
        m.mailboxes[expectArgument(ArgumentKind::Mailbox).mailbox];
    expectLayout(unsigned(mailbox.descriptorBytes()), 8,
                 concat("the descriptor of mailbox '", mailbox.name,
                        "' is 40 + 8 * tp bytes, tp = ", mailbox.tp));
  } else if (kind == "buffer") {
    param.kind = ParamKind::Buffer;
    expectArgument(ArgumentKind::Buffer);
    expectLayout(8, 8, "a device pointer");
    if (r.has("role"))
      param.role = r.string("role");
  } else if (kind == "tokens") {
    param.kind = ParamKind::Tokens;
    expectLayout(4, 4, "an i32 token count");
  } else {
    r.fail("kind", concat("unknown parameter kind '", kind,
                          "' (expected 'mailbox', 'buffer' or 'tokens')"));
  }
  return param;
}

std::string attributeText(const json &value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

KernelSpec parseKernel(const Reader &r, const Manifest &m) {
  KernelSpec kernel;
  kernel.name = r.string("name");
  if (kernel.name.empty())
    r.fail("name", "must not be empty");
  kernel.op = r.string("op");
  const std::vector<std::string> &ops = knownOps();
  if (std::find(ops.begin(), ops.end(), kernel.op) == ops.end())
    r.fail("op", concat("unknown op '", kernel.op, "'"));
  kernel.ptx = r.string("ptx");
  kernel.cubin = r.string("cubin");
  for (const std::string *file : {&kernel.ptx, &kernel.cubin})
    if (file->empty() || file->find('/') != std::string::npos || *file == "..")
      r.fail(
          file == &kernel.ptx ? "ptx" : "cubin",
          concat("must be a file name inside the bundle, got '", *file, "'"));
  kernel.grid = r.dims3("grid");
  kernel.block = r.dims3("block");
  kernel.cluster = r.dims3("cluster");
  if (kernel.blockThreads() > 1024)
    r.fail("block", concat("has ", kernel.blockThreads(),
                           " threads; a CTA holds at most 1024"));
  for (int i = 0; i < 3; ++i)
    if (kernel.grid[i] % kernel.cluster[i])
      r.fail("cluster",
             concat("dimension ", i, " (", kernel.cluster[i],
                    ") does not divide the grid's (", kernel.grid[i], ")"));
  kernel.sharedBytes = unsigned(r.integer("shared_bytes", 0, 1 << 30));
  kernel.pdl = r.boolean("pdl");
  if (r.has("attributes")) {
    const json &attributes = r.field("attributes");
    if (!attributes.is_object())
      r.fail("attributes", "must be a JSON object");
    for (auto it = attributes.begin(); it != attributes.end(); ++it)
      kernel.attributes[it.key()] = attributeText(it.value());
  }
  const json &params = r.array("params");
  for (std::size_t i = 0; i < params.size(); ++i)
    kernel.params.push_back(
        parseParam(Reader(r.origin, r.child("params", i), params[i]), m));
  return kernel;
}

} // namespace

Manifest parseManifest(const std::string &text, const std::string &origin) {
  json root;
  try {
    root = json::parse(text);
  } catch (const json::parse_error &e) {
    throw Error(concat(origin, ": not valid JSON: ", e.what()));
  }
  Reader r(origin, "", root);
  Manifest m;
  std::string format = r.string("format");
  if (format != "lamport-bundle")
    r.fail("format", concat("is '", format, "', expected 'lamport-bundle'"));
  m.version = int(r.integer("version"));
  if (m.version != kManifestVersion)
    r.fail("version", concat("manifest version ", m.version,
                             " is not supported (this runtime reads version ",
                             kManifestVersion, ")"));
  m.chip = r.string("chip");
  m.transport = r.string("transport");
  if (m.transport != "unicast" && m.transport != "multicast")
    r.fail("transport", concat("unknown transport '", m.transport,
                               "' (expected 'unicast' or 'multicast')"));
  m.program = r.has("program") ? r.string("program") : std::string();

  const json &mailboxes = r.array("mailboxes");
  std::set<std::string> mailboxNames;
  for (std::size_t i = 0; i < mailboxes.size(); ++i) {
    Reader mr(origin, r.child("mailboxes", i), mailboxes[i]);
    m.mailboxes.push_back(parseMailbox(mr, i));
    if (!mailboxNames.insert(m.mailboxes.back().name).second)
      mr.fail("name", concat("mailbox name '", m.mailboxes.back().name,
                             "' is used twice"));
  }
  for (const MailboxSpec &mailbox : m.mailboxes)
    if (mailbox.tp != m.mailboxes.front().tp)
      r.fail("mailboxes",
             concat("mailbox '", mailbox.name, "' has tp = ", mailbox.tp,
                    " but mailbox '", m.mailboxes.front().name,
                    "' has tp = ", m.mailboxes.front().tp,
                    "; one program runs on one TP group"));

  const json &arguments = r.array("arguments");
  for (std::size_t i = 0; i < arguments.size(); ++i)
    m.arguments.push_back(parseArgument(
        Reader(origin, r.child("arguments", i), arguments[i]), i, m.mailboxes));

  const json &kernels = r.array("kernels");
  if (kernels.empty())
    r.fail("kernels", "must name at least one kernel");
  std::set<std::string> kernelNames;
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    Reader kr(origin, r.child("kernels", i), kernels[i]);
    m.kernels.push_back(parseKernel(kr, m));
    if (!kernelNames.insert(m.kernels.back().name).second)
      kr.fail("name", concat("kernel name '", m.kernels.back().name,
                             "' is used twice"));
  }

  // Without a mailbox no step runs, but a `tokens` range still needs an
  // upper bound: the 16 tokens of a decode step.
  int bound = m.maxTokens() > 0 ? m.maxTokens() : kMaxTokensWithoutMailbox;
  const json &launches = r.array("launches");
  if (launches.empty())
    r.fail("launches", "must hold at least one launch");
  for (std::size_t i = 0; i < launches.size(); ++i) {
    Reader lr(origin, r.child("launches", i), launches[i]);
    std::string name = lr.string("kernel");
    auto it = std::find_if(m.kernels.begin(), m.kernels.end(),
                           [&](const KernelSpec &k) { return k.name == name; });
    if (it == m.kernels.end())
      lr.fail("kernel", concat("names kernel '", name,
                               "', which the manifest does not list"));
    m.launches.push_back(int(it - m.kernels.begin()));
    if (!lr.has("tokens")) {
      m.launchTokens.push_back(std::nullopt);
      continue;
    }
    const json &range = lr.array("tokens");
    if (range.size() != 2 || !range[0].is_number_integer() ||
        !range[1].is_number_integer() || range[0].get<int64_t>() < 1 ||
        range[0].get<int64_t>() > range[1].get<int64_t>() ||
        range[1].get<int64_t>() > bound)
      lr.fail("tokens",
              concat("must be [lo, hi] with 1 <= lo <= hi <= ", bound,
                     " (the largest mailbox capacity), got ", range.dump()));
    m.launchTokens.push_back(
        TokenRange{int(range[0].get<int64_t>()), int(range[1].get<int64_t>())});
  }
  checkChoices(origin, m, bound);
  return m;
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
        os << " " << (p.kind == ParamKind::Mailbox ? "mailbox" : "buffer")
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

/// The whole file at \p path, or nullopt when it cannot be opened.
std::optional<std::string> readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return std::nullopt;
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

} // namespace

Bundle loadBundle(const std::string &directory) {
  Bundle bundle;
  bundle.directory = directory;
  std::string manifestPath = directory + "/manifest.json";
  std::optional<std::string> text = readFile(manifestPath);
  if (!text)
    throw Error(concat("bundle '", directory, "': cannot read ", manifestPath,
                       " (is it a directory written by lamport-compile?)"));
  bundle.manifest = parseManifest(*text, manifestPath);
  for (const KernelSpec &kernel : bundle.manifest.kernels) {
    std::optional<std::string> ptx = readFile(directory + "/" + kernel.ptx);
    std::optional<std::string> cubin = readFile(directory + "/" + kernel.cubin);
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
