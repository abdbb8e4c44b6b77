//===- TacticTable.cpp - A chip's table of tuned tactics ------------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#include "TacticTable.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cmath>

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

SmallVector<const TacticTableEntry *>
TacticTable::nearest(const GemmProblem &problem, int64_t m,
                     size_t count) const {
  auto distance = [&](const TacticTableEntry &entry) {
    return std::hypot(std::log(double(entry.n) / problem.n),
                      std::log(double(entry.k) / problem.k));
  };
  // One entry per shape: the first covering m, replaced by one that
  // publishes as the problem does.
  SmallVector<const TacticTableEntry *> shapes;
  for (const TacticTableEntry &entry : entries) {
    if (m < entry.firstM || entry.lastM < m ||
        (entry.n == problem.n && entry.k == problem.k))
      continue;
    auto *same = llvm::find_if(shapes, [&](const TacticTableEntry *other) {
      return other->n == entry.n && other->k == entry.k;
    });
    if (same == shapes.end())
      shapes.push_back(&entry);
    else if ((*same)->publishes != problem.publishes &&
             entry.publishes == problem.publishes)
      *same = &entry;
  }
  std::stable_sort(shapes.begin(), shapes.end(),
                   [&](const TacticTableEntry *a, const TacticTableEntry *b) {
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

/// One entry of the table, or an error.
static llvm::Expected<TacticTableEntry>
readEntry(MLIRContext *ctx, const llvm::json::Value &value) {
  auto fail = [](const Twine &message) -> llvm::Error {
    return llvm::createStringError(message);
  };
  const llvm::json::Object *object = value.getAsObject();
  if (!object)
    return fail("is not an object");
  TacticTableEntry entry;
  std::string error;
  if (!readCount(*object, "n", entry.n, false, error) ||
      !readCount(*object, "k", entry.k, false, error))
    return fail(error);
  const llvm::json::Array *range = object->getArray("m");
  if (!range || range->size() != 2 || !(*range)[0].getAsInteger() ||
      !(*range)[1].getAsInteger())
    return fail("'m' must be [first, last]");
  entry.firstM = *(*range)[0].getAsInteger();
  entry.lastM = *(*range)[1].getAsInteger();
  if (entry.firstM < 1 || entry.lastM < entry.firstM ||
      entry.lastM > LamportDialect::kMaxTokens)
    return fail("'m' must be [first, last] with 1 <= first <= last <= 16");
  std::optional<bool> publishes = object->getBoolean("publishes");
  if (!publishes)
    return fail("'publishes' must be true or false");
  entry.publishes = *publishes;
  if (std::optional<StringRef> transport = object->getString("transport")) {
    entry.transport = symbolizeTransport(*transport);
    if (!entry.transport)
      return fail("'transport' must be unicast or multicast");
  }
  if (std::optional<StringRef> source = object->getString("source"))
    entry.source = source->str();
  const llvm::json::Object *knobs = object->getObject("tactic");
  if (!knobs)
    return fail("'tactic' must be an object");
  int64_t splits = 0, kw = 0, accs = 0, tiles = 1, passes = 1, hint = 0,
          late = 0, stages = 4, stageBytes = 16384, producerLanes = 1;
  if (!readCount(*knobs, "splits", splits, false, error) ||
      !readCount(*knobs, "kw", kw, false, error) ||
      !readCount(*knobs, "accs", accs, false, error) ||
      !readCount(*knobs, "tiles", tiles, true, error) ||
      !readCount(*knobs, "passes", passes, true, error) ||
      !readCount(*knobs, "min_ctas_per_sm", hint, true, error) ||
      !readCount(*knobs, "late_chunks", late, true, error) ||
      !readCount(*knobs, "stages", stages, true, error) ||
      !readCount(*knobs, "stage_bytes", stageBytes, true, error) ||
      !readCount(*knobs, "producer_lanes", producerLanes, true, error))
    return fail("tactic: " + error);
  bool early = knobs->getBoolean("early_dependents").value_or(false);
  GemmPipeline pipeline = GemmPipeline::registers;
  if (std::optional<StringRef> name = knobs->getString("pipeline")) {
    std::optional<GemmPipeline> parsed = symbolizeGemmPipeline(*name);
    if (!parsed)
      return fail("tactic: 'pipeline' must be registers or bulk");
    pipeline = *parsed;
  }
  entry.tactic =
      TacticAttr::get(ctx, splits, kw, accs, tiles, passes, hint, early, late,
                      pipeline, stages, stageBytes, producerLanes, {});
  std::string reason =
      GemmPublishOp::launchUnsupported(entry.n, entry.k, entry.tactic);
  if (!reason.empty())
    return fail("tactic cannot launch N = " + Twine(entry.n) +
                ", K = " + Twine(entry.k) + ": " + reason);
  return entry;
}

llvm::Expected<TacticTable> mlir::lamport::readTacticTable(MLIRContext *ctx,
                                                           StringRef path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFile(path);
  if (!file)
    return llvm::createStringError("tactic table '" + path +
                                   "': " + file.getError().message());
  llvm::Expected<llvm::json::Value> json =
      llvm::json::parse((*file)->getBuffer());
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
  table.chip = chip->str();
  for (auto [index, value] : llvm::enumerate(*entries)) {
    llvm::Expected<TacticTableEntry> entry = readEntry(ctx, value);
    if (!entry)
      return llvm::createStringError("tactic table '" + path + "': entry " +
                                     Twine(index) + " " +
                                     llvm::toString(entry.takeError()));
    entry->index = index;
    table.entries.push_back(std::move(*entry));
  }
  return table;
}

std::string mlir::lamport::findTacticTable(StringRef chip) {
  // sm_90a and sm_90f run sm_90's kernels.
  std::string name = chip.str();
  if (name.size() > 5 && (name.back() == 'a' || name.back() == 'f'))
    name.pop_back();
  name += ".json";
  SmallVector<std::string> places;
  static int anchor;
  std::string executable = llvm::sys::fs::getMainExecutable(nullptr, &anchor);
  if (!executable.empty()) {
    SmallString<256> path(
        llvm::sys::path::parent_path(llvm::sys::path::parent_path(executable)));
    llvm::sys::path::append(path, "share", "lamport", "tactics", name);
    places.push_back(path.str().str());
  }
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
