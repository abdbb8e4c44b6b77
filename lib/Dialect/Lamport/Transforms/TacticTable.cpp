//===- TacticTable.cpp - A chip's table of tuned tactics ------------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#include "TacticTable.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"

#include <cmath>
#include <dlfcn.h>
#include <limits>

using namespace mlir;
using namespace mlir::lamport;

const TacticTableEntry *TacticTable::lookup(const GemmProblem &problem,
                                            int64_t m) const {
  for (const TacticTableEntry &entry : entries)
    if (entry.n == problem.n && entry.k == problem.k &&
        entry.publishes == problem.publishes && entry.firstM <= m &&
        m <= entry.lastM &&
        (!entry.transport || !problem.publishes ||
         *entry.transport == problem.transport))
      return &entry;
  return nullptr;
}

SmallVector<const MeasuredPoint *>
TacticTable::nearestMeasured(const GemmProblem &problem, int64_t m,
                             size_t count) const {
  auto distance = [&](const MeasuredPoint &point) {
    return std::hypot(std::log(double(point.n) / problem.n),
                      std::log(double(point.k) / problem.k));
  };
  // Whether `a` serves m better than `b` of the same shape: publishing as
  // the problem does, then the least M at or above m, else the greatest.
  auto better = [&](const MeasuredPoint &a, const MeasuredPoint &b) {
    if (a.publishes != b.publishes)
      return a.publishes == problem.publishes;
    bool aCovers = a.m >= m, bCovers = b.m >= m;
    if (aCovers != bCovers)
      return aCovers;
    return aCovers ? a.m < b.m : a.m > b.m;
  };
  SmallVector<const MeasuredPoint *> shapes;
  for (const MeasuredPoint &point : measured) {
    if (point.n == problem.n && point.k == problem.k)
      continue;
    auto *same = llvm::find_if(shapes, [&](const MeasuredPoint *other) {
      return other->n == point.n && other->k == point.k;
    });
    if (same == shapes.end())
      shapes.push_back(&point);
    else if (better(point, **same))
      *same = &point;
  }
  std::stable_sort(shapes.begin(), shapes.end(),
                   [&](const MeasuredPoint *a, const MeasuredPoint *b) {
                     return distance(*a) < distance(*b);
                   });
  if (shapes.size() > count)
    shapes.resize(count);
  return shapes;
}

/// Reads the count `key` of `object` into `value` (kept where absent and
/// `optional`); false with `error` set where it is not a count.
static bool readCount(const llvm::json::Object &object, StringRef key,
                      int64_t &value, bool optional, std::string &error) {
  const llvm::json::Value *field = object.get(key);
  if (!field) {
    if (!optional)
      error = ("'" + key + "' is missing").str();
    return optional;
  }
  std::optional<int64_t> number = field->getAsInteger();
  if (!number || *number < 0) {
    error = ("'" + key + "' must be a count").str();
    return false;
  }
  value = *number;
  return true;
}

/// The same into a knob of the attribute, which takes it as an unsigned.
static bool readCount(const llvm::json::Object &object, StringRef key,
                      unsigned &value, bool optional, std::string &error) {
  int64_t wide = value;
  if (!readCount(object, key, wide, optional, error))
    return false;
  if (wide > std::numeric_limits<unsigned>::max()) {
    error = ("'" + key + "' is out of range").str();
    return false;
  }
  value = unsigned(wide);
  return true;
}

/// Reads the boolean `key` of `object` into `value` (kept where absent and
/// `optional`); false with `error` set where it is not true or false.
static bool readFlag(const llvm::json::Object &object, StringRef key,
                     bool &value, bool optional, std::string &error) {
  const llvm::json::Value *field = object.get(key);
  std::optional<bool> flag = field ? field->getAsBoolean() : std::nullopt;
  if (!flag) {
    if (field || !optional)
      error = ("'" + key + "' must be true or false").str();
    return !field && optional;
  }
  value = *flag;
  return true;
}

/// The string `key` of `object`, none where absent; false with `error` set
/// where it is not a string.
static bool readText(const llvm::json::Object &object, StringRef key,
                     std::optional<StringRef> &value, std::string &error) {
  const llvm::json::Value *field = object.get(key);
  if (!field)
    return true;
  value = field->getAsString();
  if (!value)
    error = ("'" + key + "' must be a string").str();
  return value.has_value();
}

/// Why `object` has a field `known` does not list, or an empty string: a
/// misspelt knob would otherwise take its default without a word.
static std::string unknownField(const llvm::json::Object &object,
                                ArrayRef<StringLiteral> known) {
  SmallVector<StringRef> unknown;
  for (const auto &field : object)
    if (StringRef name = field.first; !llvm::is_contained(known, name))
      unknown.push_back(name);
  if (unknown.empty())
    return "";
  // The smallest name, so the message does not follow the map's order.
  return ("unknown field '" + *llvm::min_element(unknown) +
          "' (the fields: " + llvm::join(known, ", ") + ")")
      .str();
}

/// The fields of the table, of an entry, of a timed point and of one of its
/// candidates (docs/tactics.schema.json); a tactic's are its knobs but
/// token_tiles, which the entry's range of M gives.
static constexpr StringLiteral kTableFields[] = {"chip", "description",
                                                 "entries", "measured"};
static constexpr StringLiteral kEntryFields[] = {
    "n", "k", "m", "publishes", "transport", "tactic", "source"};
static constexpr StringLiteral kPointFields[] = {
    "n", "k", "m", "publishes", "transport", "source", "candidates"};
static constexpr StringLiteral kCandidateFields[] = {"tactic", "over_best"};

/// An error of the table's reading, its message as given.
static llvm::Error fail(const Twine &message) {
  return llvm::createStringError(message);
}

/// The tactic `knobs` names for an [n, k] weight, or an error.
static llvm::Expected<TacticAttr> readTactic(MLIRContext *ctx,
                                             const llvm::json::Object *knobs,
                                             int64_t n, int64_t k) {
  if (!knobs)
    return fail("'tactic' must be an object");
  std::string error =
      unknownField(*knobs, TacticAttr::getKnobNames().drop_back());
  if (!error.empty())
    return fail("tactic: " + error);
  // Each knob left out takes the attribute's default.
  TacticAttr::Knobs read;
  int64_t earlyReads = -1;
  std::optional<StringRef> pipeline;
  if (!readCount(*knobs, "splits", read.splits, false, error) ||
      !readCount(*knobs, "kw", read.kw, false, error) ||
      !readCount(*knobs, "accs", read.accs, false, error) ||
      !readCount(*knobs, "tiles", read.tiles, true, error) ||
      !readCount(*knobs, "passes", read.passes, true, error) ||
      !readCount(*knobs, "min_ctas_per_sm", read.minCtasPerSm, true, error) ||
      !readCount(*knobs, "late_chunks", read.lateChunks, true, error) ||
      !readCount(*knobs, "stages", read.stages, true, error) ||
      !readCount(*knobs, "stage_bytes", read.stageBytes, true, error) ||
      !readCount(*knobs, "producer_lanes", read.producerLanes, true, error) ||
      !readCount(*knobs, "early_reads", earlyReads, true, error) ||
      !readFlag(*knobs, "early_dependents", read.earlyDependents, true,
                error) ||
      !readText(*knobs, "pipeline", pipeline, error))
    return fail("tactic: " + error);
  if (pipeline) {
    std::optional<GemmPipeline> parsed = symbolizeGemmPipeline(*pipeline);
    if (!parsed)
      return fail("tactic: 'pipeline' must be registers or bulk");
    read.pipeline = *parsed;
  }
  if (earlyReads >= 0)
    read.earlyReads = unsigned(earlyReads);
  TacticAttr tactic = TacticAttr::get(ctx, read);
  std::string reason = GemmPublishOp::launchUnsupported(n, k, tactic);
  if (!reason.empty())
    return fail("tactic cannot launch N = " + Twine(n) + ", K = " + Twine(k) +
                ": " + reason);
  return tactic;
}

/// The object `value` holds, with the fields an entry and a timed point
/// share read into `record`: the shape, whether it publishes, over which
/// transport, and where it comes from.
template <typename Record>
static llvm::Expected<const llvm::json::Object *>
readShape(const llvm::json::Value &value, ArrayRef<StringLiteral> fields,
          Record &record) {
  const llvm::json::Object *object = value.getAsObject();
  if (!object)
    return fail("is not an object");
  std::string error = unknownField(*object, fields);
  std::optional<StringRef> transport, source;
  if (!error.empty() || !readCount(*object, "n", record.n, false, error) ||
      !readCount(*object, "k", record.k, false, error) ||
      !readFlag(*object, "publishes", record.publishes, false, error) ||
      !readText(*object, "transport", transport, error) ||
      !readText(*object, "source", source, error))
    return fail(error);
  if (transport) {
    record.transport = symbolizeTransport(*transport);
    if (!record.transport)
      return fail("'transport' must be unicast or multicast");
  }
  if (source)
    record.source = source->str();
  return object;
}

/// One entry of the table, or an error.
static llvm::Expected<TacticTableEntry>
readEntry(MLIRContext *ctx, const llvm::json::Value &value) {
  TacticTableEntry entry;
  llvm::Expected<const llvm::json::Object *> shape =
      readShape(value, kEntryFields, entry);
  if (!shape)
    return shape.takeError();
  const llvm::json::Object *object = *shape;
  const llvm::json::Array *range = object->getArray("m");
  if (!range || range->size() != 2 || !(*range)[0].getAsInteger() ||
      !(*range)[1].getAsInteger())
    return fail("'m' must be [first, last]");
  entry.firstM = *(*range)[0].getAsInteger();
  entry.lastM = *(*range)[1].getAsInteger();
  if (entry.firstM < 1 || entry.lastM < entry.firstM ||
      entry.lastM > LamportDialect::kMaxTokens)
    return fail("'m' must be [first, last] with 1 <= first <= last <= 16");
  llvm::Expected<TacticAttr> tactic =
      readTactic(ctx, object->getObject("tactic"), entry.n, entry.k);
  if (!tactic)
    return tactic.takeError();
  entry.tactic = *tactic;
  return entry;
}

/// One timed point of the table, or an error.
static llvm::Expected<MeasuredPoint>
readMeasuredPoint(MLIRContext *ctx, const llvm::json::Value &value) {
  MeasuredPoint point;
  llvm::Expected<const llvm::json::Object *> shape =
      readShape(value, kPointFields, point);
  if (!shape)
    return shape.takeError();
  const llvm::json::Object *object = *shape;
  std::optional<int64_t> m = object->getInteger("m");
  if (!m || *m < 1 || *m > LamportDialect::kMaxTokens)
    return fail("'m' must be the tokens timed, 1..16");
  point.m = *m;
  const llvm::json::Array *candidates = object->getArray("candidates");
  if (!candidates || candidates->empty())
    return fail("'candidates' must be a list of timed tactics");
  for (auto [index, candidate] : llvm::enumerate(*candidates)) {
    auto failCandidate = [&](const Twine &message) -> llvm::Error {
      return fail("candidate " + Twine(index) + " " + message);
    };
    const llvm::json::Object *fields = candidate.getAsObject();
    if (!fields)
      return failCandidate("is not an object");
    if (std::string unknown = unknownField(*fields, kCandidateFields);
        !unknown.empty())
      return failCandidate(unknown);
    std::optional<double> overBest = fields->getNumber("over_best");
    if (!overBest || !std::isfinite(*overBest) || *overBest < 1)
      return failCandidate(
          "'over_best' must be its time over the best, at least 1");
    llvm::Expected<TacticAttr> tactic =
        readTactic(ctx, fields->getObject("tactic"), point.n, point.k);
    if (!tactic)
      return failCandidate(llvm::toString(tactic.takeError()));
    point.candidates.push_back({*tactic, *overBest});
  }
  return point;
}

/// Whether `later` serves an M that `earlier` serves too: the same shape,
/// publishing or not and transport (absent is one more), M ranges that meet.
static bool overlaps(const TacticTableEntry &earlier,
                     const TacticTableEntry &later) {
  return earlier.n == later.n && earlier.k == later.k &&
         earlier.publishes == later.publishes &&
         earlier.transport == later.transport &&
         earlier.firstM <= later.lastM && later.firstM <= earlier.lastM;
}

/// The most bytes a tactic table may hold (the sm_90 table is under 1 MiB):
/// a path to something endless (/dev/zero, a pipe that never closes) is an
/// error, not a hang.
static constexpr size_t kMaxTableBytes = 64u << 20;

/// The contents of `path`, read up to kMaxTableBytes.
static llvm::Expected<std::string> readBounded(StringRef path) {
  llvm::Expected<llvm::sys::fs::file_t> file =
      llvm::sys::fs::openNativeFileForRead(path);
  if (!file)
    return file.takeError();
  llvm::scope_exit close([&] { llvm::sys::fs::closeFile(*file); });
  std::string text;
  char chunk[1 << 16];
  while (true) {
    llvm::Expected<size_t> read = llvm::sys::fs::readNativeFile(*file, chunk);
    if (!read)
      return read.takeError();
    if (*read == 0)
      return text;
    if (text.size() + *read > kMaxTableBytes)
      return llvm::createStringError(
          llvm::formatv("larger than {0} MiB, the most a table may hold",
                        kMaxTableBytes >> 20)
              .str());
    text.append(chunk, *read);
  }
}

llvm::Expected<TacticTable> mlir::lamport::readTacticTable(MLIRContext *ctx,
                                                           StringRef path) {
  llvm::Expected<std::string> file = readBounded(path);
  if (!file)
    return llvm::createStringError("tactic table '" + path +
                                   "': " + llvm::toString(file.takeError()));
  llvm::Expected<llvm::json::Value> json = llvm::json::parse(*file);
  if (!json)
    return llvm::createStringError("tactic table '" + path +
                                   "': " + llvm::toString(json.takeError()));
  TacticTable table;
  table.path = path.str();
  const llvm::json::Object *root = json->getAsObject();
  const llvm::json::Array *entries = root ? root->getArray("entries") : nullptr;
  std::optional<StringRef> chip = root ? root->getString("chip") : std::nullopt;
  if (!entries || !chip)
    return llvm::createStringError("tactic table '" + path +
                                   "': needs a 'chip' and an 'entries' list");
  std::string error = unknownField(*root, kTableFields);
  std::optional<StringRef> description;
  if (!error.empty() || !readText(*root, "description", description, error))
    return llvm::createStringError("tactic table '" + path + "': " + error);
  table.chip = chip->str();
  for (auto [index, value] : llvm::enumerate(*entries)) {
    llvm::Expected<TacticTableEntry> entry = readEntry(ctx, value);
    if (!entry)
      return llvm::createStringError("tactic table '" + path + "': entry " +
                                     Twine(index) + " " +
                                     llvm::toString(entry.takeError()));
    entry->index = index;
    // The first entry that covers an M serves it: a later one would be
    // dead, or the file's order would decide without a word.
    for (const TacticTableEntry &earlier : table.entries)
      if (overlaps(earlier, *entry))
        return llvm::createStringError(
            "tactic table '" + path + "': entry " + Twine(index) +
            " serves M = " + Twine(std::max(earlier.firstM, entry->firstM)) +
            " of N = " + Twine(entry->n) + ", K = " + Twine(entry->k) +
            ", as entry " + Twine(earlier.index) +
            " does: entries of one shape, publishing or not and transport "
            "must not overlap in M");
    table.entries.push_back(std::move(*entry));
  }
  if (const llvm::json::Value *measured = root->get("measured")) {
    const llvm::json::Array *points = measured->getAsArray();
    if (!points)
      return llvm::createStringError("tactic table '" + path +
                                     "': 'measured' must be a list");
    for (auto [index, value] : llvm::enumerate(*points)) {
      llvm::Expected<MeasuredPoint> point = readMeasuredPoint(ctx, value);
      if (!point)
        return llvm::createStringError("tactic table '" + path +
                                       "': measured point " + Twine(index) +
                                       " " + llvm::toString(point.takeError()));
      table.measured.push_back(std::move(*point));
    }
  }
  return table;
}

/// The file of the shared library or executable that holds this code, or an
/// empty string where the loader does not say.
static std::string thisObjectFile() {
  Dl_info info;
  if (dladdr(reinterpret_cast<void *>(&thisObjectFile), &info) == 0 ||
      !info.dli_fname)
    return "";
  // The loader keeps the path it was given (`$ORIGIN/../../lib/...`).
  SmallString<256> path;
  if (llvm::sys::fs::real_path(info.dli_fname, path))
    return "";
  return path.str().str();
}

/// `<file's directory>/../share/lamport/tactics/<name>`.
static std::string besideBinary(StringRef file, StringRef name) {
  SmallString<256> path(
      llvm::sys::path::parent_path(llvm::sys::path::parent_path(file)));
  llvm::sys::path::append(path, "share", "lamport", "tactics", name);
  return path.str().str();
}

std::string mlir::lamport::findTacticTable(StringRef chip) {
  // sm_90a runs sm_90's kernels (sm_100a and sm_100f sm_100's).
  std::string name = chip.str();
  if (name.size() > 5 && (name.back() == 'a' || name.back() == 'f'))
    name.pop_back();
  name += ".json";
  SmallVector<std::string> places;
  // The library holding the pass first: a program that loads it (Python,
  // mlir-opt with the plugin) has its own bin/, which says nothing of ours.
  std::string object = thisObjectFile();
  if (!object.empty())
    places.push_back(besideBinary(object, name));
  static int anchor;
  std::string executable = llvm::sys::fs::getMainExecutable(nullptr, &anchor);
  if (!executable.empty())
    places.push_back(besideBinary(executable, name));
#ifdef LAMPORT_TACTICS_INSTALL_DIR
  places.push_back(std::string(LAMPORT_TACTICS_INSTALL_DIR) + "/" + name);
#endif
#ifdef LAMPORT_TACTICS_SOURCE_DIR
  places.push_back(std::string(LAMPORT_TACTICS_SOURCE_DIR) + "/" + name);
#endif
  for (const std::string &place : places)
    if (llvm::sys::fs::exists(place))
      return place;
  return "";
}
