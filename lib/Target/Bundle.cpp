//===- Bundle.cpp - Write a bundle: PTX, cubin and manifest.json ----------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// The writer of the directory a runtime loads (docs/bundle.md): the PTX of
// each kernel as the lowering produced it, the cubin ptxas assembles from
// it, and manifest.json, the launch plan in the runtime's words.
//
//===----------------------------------------------------------------------===//

#include "lamport/Target/Bundle.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::lamport;

/// The chips lamport-compile targets, in the order messages name them.
static constexpr llvm::StringLiteral kSupportedChips[] = {"sm_90", "sm_100a"};

bool mlir::lamport::isSupportedChip(StringRef chip) {
  return llvm::is_contained(kSupportedChips, chip);
}

std::string mlir::lamport::unsupportedChipMessage(StringRef chip) {
  std::string message = "unknown chip '" + chip.str() + "': Lamport targets ";
  for (auto [index, supported] : llvm::enumerate(kSupportedChips)) {
    if (index)
      message += index + 1 == std::size(kSupportedChips) ? " and " : ", ";
    message += supported;
  }
  return message;
}

FailureOr<llvm::MapVector<StringRef, StringRef>>
mlir::lamport::getKernelAssembly(ModuleOp module) {
  llvm::MapVector<StringRef, StringRef> assembly;
  for (auto binary : module.getOps<gpu::BinaryOp>()) {
    gpu::ObjectAttr ptx;
    for (Attribute object : binary.getObjects())
      if (auto candidate = dyn_cast<gpu::ObjectAttr>(object);
          candidate &&
          candidate.getFormat() == gpu::CompilationTarget::Assembly)
        ptx = candidate;
    if (!ptx)
      return binary.emitOpError() << "holds no PTX: the lowering must end with "
                                     "gpu-module-to-binary{format=isa}";
    assembly.insert({binary.getName(), ptx.getObject().getValue()});
  }
  return assembly;
}

/// A JSON array of three launch dimensions.
static llvm::json::Array toJson(const std::array<int64_t, 3> &dims) {
  return llvm::json::Array{dims[0], dims[1], dims[2]};
}

static StringRef stringifyParamKind(PlanParam::Kind kind) {
  switch (kind) {
  case PlanParam::Kind::Mailbox:
    return "mailbox";
  case PlanParam::Kind::Buffer:
    return "buffer";
  case PlanParam::Kind::Tokens:
    return "tokens";
  case PlanParam::Kind::TensorMap:
    return "tensor_map";
  }
  llvm_unreachable("unknown parameter kind");
}

llvm::json::Value mlir::lamport::buildManifest(const LaunchPlan &plan,
                                               const BundleTarget &target) {
  llvm::json::Array mailboxes;
  for (const PlanMailbox &mailbox : plan.mailboxes)
    mailboxes.push_back(llvm::json::Object{{"id", mailbox.id},
                                           {"name", mailbox.name},
                                           {"tp", mailbox.tp},
                                           {"capacity", mailbox.capacity},
                                           {"width", mailbox.width}});
  llvm::json::Array arguments;
  for (const PlanArgument &argument : plan.arguments) {
    llvm::json::Object entry{{"index", argument.index},
                             {"name", argument.name}};
    if (argument.kind == PlanArgument::Kind::Mailbox) {
      entry["kind"] = "mailbox";
      entry["mailbox"] = argument.mailbox;
    } else {
      entry["kind"] = "buffer";
      entry["dtype"] = argument.dtype;
      entry["shape"] = llvm::json::Array(argument.shape);
      entry["io"] = argument.io;
    }
    arguments.push_back(std::move(entry));
  }
  llvm::json::Array kernels;
  for (const PlanKernel &kernel : plan.kernels) {
    llvm::json::Array params;
    for (const PlanParam &param : kernel.params) {
      llvm::json::Object entry{{"kind", stringifyParamKind(param.kind)},
                               {"size", param.size},
                               {"align", param.align}};
      if (param.argument)
        entry["argument"] = *param.argument;
      if (!param.io.empty())
        entry["io"] = param.io;
      if (!param.role.empty())
        entry["role"] = param.role;
      if (!param.box.empty())
        entry["box"] = llvm::json::Array(param.box);
      params.push_back(std::move(entry));
    }
    llvm::json::Object entry{
        {"name", kernel.name},
        {"op", kernel.op},
        {"ptx", kernel.name + ".ptx"},
        {"cubin", kernel.name + ".cubin"},
        {"grid", toJson(kernel.grid)},
        {"block", toJson(kernel.block)},
        {"cluster", toJson(kernel.cluster)},
        {"shared_bytes", kernel.sharedBytes},
        {"pdl", kernel.pdl},
        {"attributes", llvm::json::Object(kernel.attributes)},
        {"params", std::move(params)}};
    if (!kernel.mailboxUse.empty())
      entry["mailbox_use"] = kernel.mailboxUse;
    kernels.push_back(std::move(entry));
  }
  llvm::json::Array launches;
  for (const PlanLaunch &launch : plan.launches) {
    llvm::json::Object entry{{"kernel", launch.kernel}};
    if (launch.tokens)
      entry["tokens"] =
          llvm::json::Array{launch.tokens->first, launch.tokens->second};
    launches.push_back(std::move(entry));
  }
  return llvm::json::Object{{"format", "lamport-bundle"},
                            {"version", kBundleVersion},
                            {"chip", target.chip},
                            {"transport", target.transport},
                            {"program", plan.program},
                            {"mailboxes", std::move(mailboxes)},
                            {"arguments", std::move(arguments)},
                            {"kernels", std::move(kernels)},
                            {"launches", std::move(launches)}};
}

llvm::Expected<std::string> mlir::lamport::findPtxas() {
  if (std::optional<std::string> cudaPath =
          llvm::sys::Process::GetEnv("CUDA_PATH")) {
    SmallString<256> path(*cudaPath);
    llvm::sys::path::append(path, "bin", "ptxas");
    if (llvm::sys::fs::can_execute(path))
      return std::string(path);
  }
  if (llvm::ErrorOr<std::string> path = llvm::sys::findProgramByName("ptxas"))
    return *path;
  if (llvm::sys::fs::can_execute("/usr/local/cuda/bin/ptxas"))
    return std::string("/usr/local/cuda/bin/ptxas");
  return llvm::createStringError(
      "ptxas not found: set CUDA_PATH or put the CUDA toolkit's bin on PATH, "
      "or write the PTX alone (lamport-compile --cubins=false; the C API's "
      "assembleCubins, Python's cubins=False), which the driver JIT-compiles "
      "when the runtime loads the bundle");
}

llvm::Error mlir::lamport::assemblePtx(StringRef ptxas, StringRef ptxPath,
                                       StringRef cubinPath, StringRef chip) {
  SmallString<128> log;
  if (std::error_code error =
          llvm::sys::fs::createTemporaryFile("ptxas", "log", log))
    return llvm::createStringError(error, "cannot create a ptxas log file");
  llvm::FileRemover removeLog(log);
  std::string arch = ("-arch=" + chip).str();
  SmallVector<StringRef> args = {ptxas, arch, "-o", cubinPath, ptxPath};
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(log),
                                          StringRef(log)};
  std::string launchError;
  int status = llvm::sys::ExecuteAndWait(ptxas, args, /*Env=*/std::nullopt,
                                         redirects, /*SecondsToWait=*/0,
                                         /*MemoryLimit=*/0, &launchError);
  if (status == 0)
    return llvm::Error::success();
  std::string message;
  if (auto buffer = llvm::MemoryBuffer::getFile(log))
    message = (*buffer)->getBuffer().rtrim().str();
  if (message.empty())
    message = launchError.empty() ? "exit status " + std::to_string(status)
                                  : launchError;
  return llvm::createStringError("ptxas failed on " + ptxPath.str() + ":\n" +
                                 message);
}

//===----------------------------------------------------------------------===//
// Printing the manifest
//===----------------------------------------------------------------------===//

/// Keys in the order docs/bundle.md lists them; llvm::json::Object keeps no
/// order, and a person reads the manifest.
static constexpr StringLiteral kKeyOrder[] = {
    "format",    "version",     "chip",       "transport", "program",
    "mailboxes", "arguments",   "kernels",    "launches",  "id",
    "index",     "name",        "kind",       "kernel",    "tokens",
    "op",        "mailbox",     "argument",   "dtype",     "shape",
    "io",        "tp",          "capacity",   "width",     "ptx",
    "cubin",     "grid",        "block",      "cluster",   "shared_bytes",
    "pdl",       "mailbox_use", "attributes", "params",    "size",
    "align"};

/// The entries of `object` in manifest order (unknown keys last, sorted).
static SmallVector<const llvm::json::Object::value_type *>
getOrderedEntries(const llvm::json::Object &object) {
  auto rank = [](StringRef key) {
    return llvm::find(kKeyOrder, key) - std::begin(kKeyOrder);
  };
  SmallVector<const llvm::json::Object::value_type *> entries;
  for (const auto &entry : object)
    entries.push_back(&entry);
  llvm::sort(entries, [&](const auto *a, const auto *b) {
    return std::make_pair(rank(a->first), StringRef(a->first)) <
           std::make_pair(rank(b->first), StringRef(b->first));
  });
  return entries;
}

/// Whether `value` prints on one line: a scalar, or an array or object of
/// scalars and arrays of scalars.
static bool isFlat(const llvm::json::Value &value, bool nested = false) {
  if (const llvm::json::Array *array = value.getAsArray())
    return !nested && llvm::all_of(*array, [](const llvm::json::Value &e) {
      return isFlat(e, /*nested=*/true);
    });
  if (const llvm::json::Object *object = value.getAsObject())
    return !nested && llvm::all_of(*object, [](const auto &entry) {
      return isFlat(entry.second, /*nested=*/true) ||
             (entry.second.getAsArray() &&
              isFlat(entry.second, /*nested=*/false));
    });
  return true;
}

/// Prints `value` in the style of docs/bundle.md: flat arrays and objects
/// on one line, everything else one entry per line.
static void printManifestValue(raw_ostream &os, const llvm::json::Value &value,
                               unsigned indent) {
  const llvm::json::Array *array = value.getAsArray();
  const llvm::json::Object *object = value.getAsObject();
  if (!array && !object) {
    os << value;
    return;
  }
  bool flat = isFlat(value);
  // Before the i-th entry: a separator, and a new line where not flat.
  auto beginEntry = [&](size_t i) {
    if (flat) {
      os << (i ? ", " : "");
      return;
    }
    os << (i ? ",\n" : "\n");
    os.indent(indent + 2);
  };
  auto end = [&](bool empty, char close) {
    if (!flat && !empty) {
      os << "\n";
      os.indent(indent);
    }
    os << close;
  };
  if (array) {
    os << "[";
    for (auto [i, element] : llvm::enumerate(*array)) {
      beginEntry(i);
      printManifestValue(os, element, indent + 2);
    }
    end(array->empty(), ']');
    return;
  }
  os << "{";
  for (auto [i, entry] : llvm::enumerate(getOrderedEntries(*object))) {
    beginEntry(i);
    os << llvm::json::Value(entry->first.str()) << ": ";
    printManifestValue(os, entry->second, indent + 2);
  }
  end(object->empty(), '}');
}

/// Writes `contents` to `path`.
static llvm::Error writeFile(StringRef path, StringRef contents) {
  std::error_code error;
  llvm::raw_fd_ostream os(path, error);
  if (error)
    return llvm::createStringError(error, "cannot write " + path.str());
  os << contents;
  os.close();
  if (os.has_error())
    return llvm::createStringError(os.error(), "cannot write " + path.str());
  return llvm::Error::success();
}

llvm::Error
mlir::lamport::writeBundle(StringRef directory, const LaunchPlan &plan,
                           const llvm::StringMap<std::string> &assembly,
                           const BundleTarget &target, bool assembleCubins) {
  if (std::error_code error = llvm::sys::fs::create_directories(directory))
    return llvm::createStringError(error, "cannot create bundle directory " +
                                              directory.str());
  std::string ptxas;
  if (assembleCubins) {
    llvm::Expected<std::string> found = findPtxas();
    if (!found)
      return found.takeError();
    ptxas = std::move(*found);
  }
  for (const PlanKernel &kernel : plan.kernels) {
    auto ptx = assembly.find(kernel.name);
    if (ptx == assembly.end())
      return llvm::createStringError("no PTX was generated for kernel " +
                                     kernel.name);
    SmallString<256> ptxPath(directory), cubinPath(directory);
    llvm::sys::path::append(ptxPath, kernel.name + ".ptx");
    llvm::sys::path::append(cubinPath, kernel.name + ".cubin");
    if (llvm::Error error = writeFile(ptxPath, ptx->getValue()))
      return error;
    if (!assembleCubins) {
      std::error_code error = llvm::sys::fs::remove(cubinPath);
      if (error)
        return llvm::createStringError(error, "cannot remove the older " +
                                                  cubinPath.str());
      continue;
    }
    if (llvm::Error error = assemblePtx(ptxas, ptxPath, cubinPath, target.chip))
      return error;
  }
  // The manifest last: a directory with a manifest is a complete bundle.
  SmallString<256> manifestPath(directory);
  llvm::sys::path::append(manifestPath, "manifest.json");
  std::string manifest;
  llvm::raw_string_ostream os(manifest);
  printManifestValue(os, buildManifest(plan, target), /*indent=*/0);
  os << "\n";
  return writeFile(manifestPath, manifest);
}
