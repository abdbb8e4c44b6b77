//===- ManifestReader.cpp - Read and validate manifest.json ---------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// parseManifest: every rule of docs/bundle.schema.json, checked field by
// field, and the rules between fields that docs/bundle.md keeps in code.
// Each message names the file, the JSON path and what was expected, quotes
// at most kMaxQuoted characters of what it found, and every integer is
// range-checked before it is narrowed, so a bundle that disagrees with this
// runtime fails before any GPU work starts.
//
//===----------------------------------------------------------------------===//

#include "lamport/Runtime/Error.h"
#include "lamport/Runtime/Manifest.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <limits>
#include <set>

using nlohmann::json;

namespace lamport {
namespace runtime {
namespace {

/// The most characters of a string an error message quotes.
constexpr std::size_t kMaxQuoted = 80;

/// The largest index, id or dimension the manifest may hold: an int32.
constexpr int64_t kMaxInt32 = std::numeric_limits<int32_t>::max();

/// The upper bound of a `tokens` range in a manifest with no mailbox.
constexpr int kMaxTokensWithoutMailbox = 16;

/// The first kMaxQuoted characters of \p text (never half a UTF-8
/// character), with "..." where it was cut.
std::string cut(const std::string &text, std::size_t limit = kMaxQuoted) {
  if (text.size() <= limit)
    return text;
  std::size_t end = limit;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80)
    --end;
  return text.substr(0, end) + "...";
}

/// nlohmann's message \p text, cut, with what is not printable ASCII (the
/// bytes of a file that is not UTF-8) shown as '?'.
std::string printable(const std::string &text) {
  std::string shown = cut(text, 200);
  for (char &c : shown)
    if (c < ' ' || c > '~')
      c = '?';
  return shown;
}

/// \p text in single quotes, cut: how messages name what a field holds.
std::string inQuotes(const std::string &text) { return "'" + cut(text) + "'"; }

/// A JSON value as a message shows it: scalars as written (strings cut),
/// arrays and objects by their size, never whole.
std::string shown(const json &value) {
  if (value.is_string())
    return "\"" + cut(value.get_ref<const std::string &>()) + "\"";
  if (value.is_array())
    return concat("an array of ", value.size(),
                  value.size() == 1 ? " entry" : " entries");
  if (value.is_object())
    return concat("an object of ", value.size(),
                  value.size() == 1 ? " field" : " fields");
  return value.dump();
}

/// \p value as an integer in [lo, hi]; nullopt where it is none or out of
/// range. Integers past int64 (nlohmann keeps them unsigned) are out of
/// range, never wrapped.
std::optional<int64_t> integerIn(const json &value, int64_t lo, int64_t hi) {
  if (!value.is_number_integer() ||
      (value.is_number_unsigned() &&
       value.get<uint64_t>() > uint64_t(std::numeric_limits<int64_t>::max())))
    return std::nullopt;
  int64_t v = value.get<int64_t>();
  return v < lo || v > hi ? std::nullopt : std::optional<int64_t>(v);
}

/// Whether \p text is a kernel, op or role name: `[A-Za-z_][A-Za-z0-9_]*`.
bool isIdentifier(const std::string &text) {
  return !text.empty() && !(text[0] >= '0' && text[0] <= '9') &&
         text.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                "abcdefghijklmnopqrstuvwxyz_0123456789") ==
             std::string::npos;
}

/// Whether \p chip reads `sm_<digits>` with an optional lower-case suffix.
bool isChip(const std::string &chip) {
  std::size_t end =
      std::min(chip.find_first_not_of("0123456789", 3), chip.size());
  return chip.rfind("sm_", 0) == 0 && end > 3 &&
         (end == chip.size() ||
          (end + 1 == chip.size() && chip[end] >= 'a' && chip[end] <= 'z'));
}

/// "'a', 'b' or 'c'".
std::string alternatives(const std::vector<std::string> &options) {
  std::string text;
  for (std::size_t i = 0; i < options.size(); ++i)
    text += concat(i == 0                    ? ""
                   : i + 1 == options.size() ? " or "
                                             : ", ",
                   "'", options[i], "'");
  return text;
}

/// Reads typed fields of one JSON object, naming the file and the path of
/// the object in every error.
class Reader {
public:
  Reader(const std::string &origin, std::string path, const json &object)
      : origin(origin), path(std::move(path)), object(object) {
    if (!object.is_object())
      fail("", concat("must be a JSON object, got ", shown(object)));
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
      fail(key, concat("must be a string, got ", shown(value)));
    return value.get<std::string>();
  }

  /// A string that is not empty (mailbox and argument names).
  std::string name(const std::string &key) const {
    std::string value = string(key);
    if (value.empty())
      fail(key, "must not be empty");
    return value;
  }

  /// A kernel, op or role name (docs/bundle.schema.json `identifier`).
  std::string identifier(const std::string &key) const {
    std::string value = string(key);
    if (!isIdentifier(value))
      fail(key, concat("must be a name of letters, digits and '_' that "
                       "does not start with a digit, got ",
                       inQuotes(value)));
    return value;
  }

  /// One of \p options (a JSON Schema enum of strings).
  std::string oneOf(const std::string &key, const std::string &what,
                    const std::vector<std::string> &options) const {
    std::string value = string(key);
    if (std::find(options.begin(), options.end(), value) == options.end())
      fail(key, concat("unknown ", what, " ", inQuotes(value), " (expected ",
                       alternatives(options), ")"));
    return value;
  }

  /// An integer in [lo, hi], checked before any narrowing.
  int64_t integer(const std::string &key, int64_t lo, int64_t hi) const {
    return integerAt(key, field(key), lo, hi);
  }

  /// \p value, found at \p key, as an integer in [lo, hi].
  int64_t integerAt(const std::string &key, const json &value, int64_t lo,
                    int64_t hi) const {
    if (!value.is_number_integer())
      fail(key, concat("must be an integer, got ", shown(value)));
    std::optional<int64_t> v = integerIn(value, lo, hi);
    if (!v)
      fail(key, concat("must be in [", lo, ", ", hi, "], got ", shown(value)));
    return *v;
  }

  bool boolean(const std::string &key) const {
    const json &value = field(key);
    if (!value.is_boolean())
      fail(key, concat("must be true or false, got ", shown(value)));
    return value.get<bool>();
  }

  const json &array(const std::string &key) const {
    const json &value = field(key);
    if (!value.is_array())
      fail(key, concat("must be an array, got ", shown(value)));
    return value;
  }

  /// An array of exactly \p size entries.
  const json &array(const std::string &key, std::size_t size) const {
    const json &value = array(key);
    if (value.size() != size)
      fail(key, concat("must have ", size, " entries, got ", value.size()));
    return value;
  }

  /// Three positive launch dimensions, each at most \p max's: CUDA's limits
  /// for grid, block and cluster.
  std::array<unsigned, 3> dims3(const std::string &key,
                                const std::array<int64_t, 3> &max) const {
    const json &value = array(key, 3);
    std::array<unsigned, 3> dims{};
    for (std::size_t i = 0; i < 3; ++i)
      dims[i] =
          unsigned(integerAt(concat(key, "[", i, "]"), value[i], 1, max[i]));
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

/// The `io` field of a buffer argument or parameter.
BufferIO readBufferIO(const Reader &r) {
  std::string io = r.oneOf("io", "io", {"in", "out", "inout"});
  return io == "in"    ? BufferIO::In
         : io == "out" ? BufferIO::Out
                       : BufferIO::InOut;
}

MailboxSpec parseMailbox(const Reader &r, std::size_t position) {
  MailboxSpec mailbox;
  mailbox.id = int(r.integer("id", 0, kMaxInt32));
  if (mailbox.id != int64_t(position))
    r.fail("id", concat("must equal the mailbox's position ", position,
                        ", got ", mailbox.id));
  mailbox.name = r.name("name");
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
  arg.index = int(r.integer("index", 0, kMaxInt32));
  if (arg.index != int64_t(position))
    r.fail("index", concat("must equal the argument's position ", position,
                           ", got ", arg.index));
  arg.name = r.name("name");
  if (r.oneOf("kind", "argument kind", {"buffer", "mailbox"}) == "mailbox") {
    arg.kind = ArgumentKind::Mailbox;
    int64_t mailbox = r.integer("mailbox", 0, kMaxInt32);
    if (mailbox >= int64_t(mailboxes.size()))
      r.fail("mailbox",
             concat("names mailbox ", mailbox, ", but the manifest has ",
                    mailboxes.size(), " mailbox(es)"));
    arg.mailbox = int(mailbox);
    return arg;
  }
  arg.kind = ArgumentKind::Buffer;
  std::string dtype = r.oneOf("dtype", "dtype", {"bf16", "f32", "i32"});
  arg.dtype = dtype == "bf16"  ? DType::BF16
              : dtype == "f32" ? DType::F32
                               : DType::I32;
  const json &shape = r.array("shape");
  if (shape.empty())
    r.fail("shape", "must have at least one dimension");
  for (std::size_t i = 0; i < shape.size(); ++i) {
    std::string key = concat("shape[", i, "]");
    int64_t dim = r.integerAt(key, shape[i], -1, kMaxInt32);
    if (dim == 0)
      r.fail(key, "must be positive or -1 (the token count), got 0");
    arg.shape.push_back(dim);
  }
  arg.io = readBufferIO(r);
  return arg;
}

ParamSpec parseParam(const Reader &r, const Manifest &m) {
  ParamSpec param;
  std::string kind = r.oneOf("kind", "parameter kind",
                             {"mailbox", "buffer", "tokens", "tensor_map"});
  param.size = unsigned(r.integer("size", 1, 4096));
  param.align = unsigned(r.integer("align", 1, 64));
  if (param.align & (param.align - 1))
    r.fail("align", concat("must be a power of two, got ", param.align));
  auto expectArgument = [&](ArgumentKind want) -> const ArgumentSpec & {
    int64_t index = r.integer("argument", 0, kMaxInt32);
    if (index >= int64_t(m.arguments.size()))
      r.fail("argument",
             concat("names argument ", index, ", but the program has ",
                    m.arguments.size(), " argument(s)"));
    const ArgumentSpec &arg = m.arguments[index];
    if (arg.kind != want)
      r.fail("argument", concat("names argument ", index, " (",
                                inQuotes(arg.name), "), which is ",
                                arg.kind == ArgumentKind::Mailbox ? "a mailbox"
                                                                  : "a buffer",
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
                 concat("the descriptor of mailbox ", inQuotes(mailbox.name),
                        " is 40 + 8 * tp bytes, tp = ", mailbox.tp));
  } else if (kind == "buffer") {
    param.kind = ParamKind::Buffer;
    const ArgumentSpec &argument = expectArgument(ArgumentKind::Buffer);
    expectLayout(8, 8, "a device pointer");
    param.io = r.has("io") ? readBufferIO(r) : argument.io;
    if (r.has("role"))
      param.role = r.identifier("role");
  } else if (kind == "tensor_map") {
    param.kind = ParamKind::TensorMap;
    const ArgumentSpec &argument = expectArgument(ArgumentKind::Buffer);
    expectLayout(128, 64, "a CUtensorMap");
    // What cuTensorMapEncodeTiled takes and the runtime encodes: a dense
    // [outer, inner] BF16 buffer of static shape, rows a multiple of 16
    // bytes, a box of at most 256 elements a side within it and whole 16
    // bytes wide.
    if (argument.dtype != DType::BF16 || argument.shape.size() != 2 ||
        argument.shape[0] < 0 || argument.shape[1] < 0 || argument.shape[1] % 8)
      r.fail("argument",
             concat("names buffer '", argument.name,
                    "': a tensor map describes a 2-D bf16 buffer of static "
                    "shape whose rows are a multiple of 16 bytes"));
    const json &box = r.array("box");
    if (box.size() != 2)
      r.fail("box",
             concat("must have 2 elements (inner, outer), got ", box.size()));
    for (std::size_t i = 0; i < box.size(); ++i)
      param.box.push_back(r.integerAt(concat("box[", i, "]"), box[i], 1, 256));
    if (param.box[0] % 8 || param.box[0] > argument.shape[1] ||
        param.box[1] > argument.shape[0])
      r.fail("box", concat(param.box[0], " x ", param.box[1],
                           " must lie within the buffer's ", argument.shape[1],
                           " x ", argument.shape[0],
                           " (inner, outer), its inner side a multiple of 8"));
  } else {
    param.kind = ParamKind::Tokens;
    expectLayout(4, 4, "an i32 token count");
  }
  return param;
}

/// What a kernel written before `mailbox_use` does to its mailbox, read off
/// its op: the rule of the runtimes that read those manifests.
KernelSpec::MailboxUse legacyMailboxUse(const KernelSpec &kernel) {
  if (kernel.op == "all_reduce_dual_norm" &&
      std::any_of(kernel.params.begin(), kernel.params.end(),
                  [](const ParamSpec &p) { return p.role == "partial"; }))
    return KernelSpec::MailboxUse::PublishAndPoll;
  if (kernel.op == "publish_rows" || kernel.op == "gemm_publish")
    return KernelSpec::MailboxUse::Publish;
  return KernelSpec::MailboxUse::Poll;
}

/// Reads `mailbox_use` of a kernel whose params are read.
void parseMailboxUse(const Reader &r, KernelSpec &kernel) {
  bool takesMailbox = std::any_of(
      kernel.params.begin(), kernel.params.end(),
      [](const ParamSpec &p) { return p.kind == ParamKind::Mailbox; });
  if (!r.has("mailbox_use")) {
    kernel.mailboxUse =
        takesMailbox ? legacyMailboxUse(kernel) : KernelSpec::MailboxUse::None;
    return;
  }
  std::string use = r.oneOf("mailbox_use", "mailbox use",
                            {"publish", "poll", "publish_and_poll"});
  if (!takesMailbox)
    r.fail("mailbox_use", concat("is ", inQuotes(use),
                                 ", but the kernel takes no mailbox "
                                 "parameter"));
  kernel.mailboxUse = use == "publish" ? KernelSpec::MailboxUse::Publish
                      : use == "poll"  ? KernelSpec::MailboxUse::Poll
                                       : KernelSpec::MailboxUse::PublishAndPoll;
}

KernelSpec parseKernel(const Reader &r, const Manifest &m) {
  KernelSpec kernel;
  kernel.name = r.identifier("name");
  kernel.op = r.identifier("op");
  for (const char *key : {"ptx", "cubin"}) {
    std::string file = r.string(key);
    if (file.empty() || file.find('/') != std::string::npos || file == "." ||
        file == "..")
      r.fail(key, concat("must be a file name inside the bundle, got ",
                         inQuotes(file)));
    (std::string(key) == "ptx" ? kernel.ptx : kernel.cubin) = file;
  }
  kernel.grid = r.dims3("grid", {kMaxInt32, 65535, 65535});
  kernel.block = r.dims3("block", {1024, 1024, 64});
  kernel.cluster = r.dims3("cluster", {8, 8, 8});
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
      r.fail("attributes",
             concat("must be a JSON object, got ", shown(attributes)));
    for (auto it = attributes.begin(); it != attributes.end(); ++it) {
      const json &value = it.value();
      if (!value.is_string() && !value.is_number() && !value.is_boolean())
        r.fail(concat("attributes.", cut(it.key())),
               concat("must be a string, a number or true or false, got ",
                      shown(value)));
      kernel.attributes[it.key()] =
          value.is_string() ? value.get<std::string>() : value.dump();
    }
  }
  const json &params = r.array("params");
  for (std::size_t i = 0; i < params.size(); ++i)
    kernel.params.push_back(
        parseParam(Reader(r.origin, r.child("params", i), params[i]), m));
  // A tensor map is encoded from the buffer's own parameter (its address).
  for (std::size_t i = 0; i < kernel.params.size(); ++i)
    if (kernel.params[i].kind == ParamKind::TensorMap &&
        std::none_of(kernel.params.begin(), kernel.params.end(),
                     [&](const ParamSpec &p) {
                       return p.kind == ParamKind::Buffer &&
                              p.argument == kernel.params[i].argument;
                     }))
      r.fail(concat("params[", i, "]"),
             concat("is the tensor map of argument ", kernel.params[i].argument,
                    ", which the kernel does not take as a buffer"));
  parseMailboxUse(r, kernel);
  return kernel;
}

/// The top-level fields before the arrays.
void parseHeader(const Reader &r, Manifest &m) {
  std::string format = r.string("format");
  if (format != "lamport-bundle")
    r.fail("format",
           concat("is ", inQuotes(format), ", expected 'lamport-bundle'"));
  const json &version = r.field("version");
  if (!version.is_number_integer())
    r.fail("version", concat("must be an integer, got ", shown(version)));
  if (!integerIn(version, kManifestVersion, kManifestVersion))
    r.fail("version", concat("manifest version ", version.dump(),
                             " is not supported (this runtime reads version ",
                             kManifestVersion, ")"));
  m.version = kManifestVersion;
  m.chip = r.string("chip");
  if (!isChip(m.chip))
    r.fail("chip", concat("must name an SM such as 'sm_90' or 'sm_100a', got ",
                          inQuotes(m.chip)));
  m.transport = r.oneOf("transport", "transport", {"unicast", "multicast"});
  m.program = r.has("program") ? r.string("program") : std::string();
}

/// `mailboxes` and `arguments`, with the rules between their entries.
void parseMailboxesAndArguments(const Reader &r, Manifest &m) {
  const json &mailboxes = r.array("mailboxes");
  std::set<std::string> names;
  for (std::size_t i = 0; i < mailboxes.size(); ++i) {
    Reader mr(r.origin, r.child("mailboxes", i), mailboxes[i]);
    m.mailboxes.push_back(parseMailbox(mr, i));
    if (!names.insert(m.mailboxes.back().name).second)
      mr.fail("name", concat("mailbox name ", inQuotes(m.mailboxes.back().name),
                             " is used twice"));
  }
  for (const MailboxSpec &mailbox : m.mailboxes)
    if (mailbox.tp != m.mailboxes.front().tp)
      r.fail("mailboxes", concat("mailbox ", inQuotes(mailbox.name),
                                 " has tp = ", mailbox.tp, " but mailbox ",
                                 inQuotes(m.mailboxes.front().name),
                                 " has tp = ", m.mailboxes.front().tp,
                                 "; one program runs on one TP group"));

  const json &arguments = r.array("arguments");
  names.clear();
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    Reader ar(r.origin, r.child("arguments", i), arguments[i]);
    m.arguments.push_back(parseArgument(ar, i, m.mailboxes));
    if (!names.insert(m.arguments.back().name).second)
      ar.fail("name",
              concat("argument name ", inQuotes(m.arguments.back().name),
                     " is used twice"));
  }
}

/// `launches`, which name kernels, and the choices by M among them.
void parseLaunches(const Reader &r, Manifest &m) {
  // Without a mailbox no step runs, but a `tokens` range still needs an
  // upper bound: the 16 tokens of a decode step.
  int bound = m.maxTokens() > 0 ? m.maxTokens() : kMaxTokensWithoutMailbox;
  const json &launches = r.array("launches");
  if (launches.empty())
    r.fail("launches", "must hold at least one launch");
  for (std::size_t i = 0; i < launches.size(); ++i) {
    Reader lr(r.origin, r.child("launches", i), launches[i]);
    std::string name = lr.string("kernel");
    auto it = std::find_if(m.kernels.begin(), m.kernels.end(),
                           [&](const KernelSpec &k) { return k.name == name; });
    if (it == m.kernels.end())
      lr.fail("kernel", concat("names kernel ", inQuotes(name),
                               ", which the manifest does not list"));
    m.launches.push_back(int(it - m.kernels.begin()));
    if (!lr.has("tokens")) {
      m.launchTokens.push_back(std::nullopt);
      continue;
    }
    const json &range = lr.array("tokens", 2);
    int64_t lo = lr.integerAt("tokens[0]", range[0], 1, 1 << 16);
    int64_t hi = lr.integerAt("tokens[1]", range[1], 1, 1 << 16);
    if (lo > hi || hi > bound)
      lr.fail("tokens", concat("must be [lo, hi] with 1 <= lo <= hi <= ", bound,
                               " (the largest mailbox capacity), got [", lo,
                               ", ", hi, "]"));
    m.launchTokens.push_back(TokenRange{int(lo), int(hi)});
  }
  checkChoices(r.origin, m, bound);
}

Manifest parseRoot(const json &root, const std::string &origin) {
  Reader r(origin, "", root);
  Manifest m;
  parseHeader(r, m);
  parseMailboxesAndArguments(r, m);
  const json &kernels = r.array("kernels");
  if (kernels.empty())
    r.fail("kernels", "must name at least one kernel");
  std::set<std::string> names;
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    Reader kr(origin, r.child("kernels", i), kernels[i]);
    m.kernels.push_back(parseKernel(kr, m));
    if (!names.insert(m.kernels.back().name).second)
      kr.fail("name", concat("kernel name ", inQuotes(m.kernels.back().name),
                             " is used twice"));
  }
  parseLaunches(r, m);
  return m;
}

} // namespace

Manifest parseManifest(const std::string &text, const std::string &origin) {
  json root;
  try {
    root = json::parse(text);
  } catch (const json::exception &e) {
    // Also a number past a double's range (out_of_range): not JSON we read.
    throw Error(concat(origin, ": not valid JSON: ", printable(e.what())));
  }
  try {
    return parseRoot(root, origin);
  } catch (const json::exception &e) {
    // Every read above is checked first; this keeps a missed case an Error.
    throw Error(concat(origin, ": ", printable(e.what())));
  }
}

} // namespace runtime
} // namespace lamport
