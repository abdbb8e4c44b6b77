//===- LamportModule.cpp - The lamport._lamport extension -------*- C++ -*-===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// Python classes over the C API (mlir-c/ and lamport-c/ in
// libLamportCAPI.so), named as upstream's MLIR Python bindings name them:
// Context, Location, Module, Operation, Block, Value, Type, Attribute and
// InsertionPoint, with `with ctx, loc:` and `with InsertionPoint(block):`.
// The typed op builders (lamport.dialects) are Python over
// Operation.create. Errors raise lamport.Error; verification errors raise
// lamport.MLIRError with every diagnostic and its location.
//
// Ownership: a Context owns its modules; a Module owns its ops, blocks and
// values, and every Python handle to one of them keeps its Module alive.
// Context.close() destroys the modules at once: handles into them then
// raise instead of reading freed memory.
//
//===----------------------------------------------------------------------===//

#include "lamport-c/Compiler.h"
#include "lamport-c/Dialects.h"
#include "lamport-c/Passes.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"
#include "mlir-c/RegisterEverything.h"

#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace nb = nanobind;
using namespace nb::literals;

namespace {

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

/// One diagnostic as MLIRError carries it.
struct Diagnostic {
  std::string severity;
  std::string location;
  std::string message;
  std::vector<Diagnostic> notes;
};

/// Raised as lamport.Error (no diagnostics) or lamport.MLIRError.
struct LamportError {
  std::string message;
  std::optional<std::vector<Diagnostic>> diagnostics;
};

[[noreturn]] void fail(std::string message) {
  throw LamportError{std::move(message), std::nullopt};
}

std::string toString(MlirStringRef ref) {
  return std::string(ref.data ? ref.data : "", ref.length);
}

MlirStringRef toRef(const std::string &text) {
  return mlirStringRefCreate(text.data(), text.size());
}

void appendTo(MlirStringRef ref, void *userData) {
  static_cast<std::string *>(userData)->append(ref.data, ref.length);
}

/// `file:line:col` for a file location (also under a name), else MLIR's form.
std::string describeLocation(MlirLocation location) {
  if (mlirLocationIsAName(location)) {
    MlirLocation child = mlirLocationNameGetChildLoc(location);
    if (mlirLocationIsAFileLineColRange(child))
      return describeLocation(child);
  }
  if (mlirLocationIsAFileLineColRange(location))
    return toString(mlirIdentifierStr(
               mlirLocationFileLineColRangeGetFilename(location))) +
           ":" +
           std::to_string(mlirLocationFileLineColRangeGetStartLine(location)) +
           ":" +
           std::to_string(mlirLocationFileLineColRangeGetStartColumn(location));
  std::string text;
  mlirLocationPrint(location, appendTo, &text);
  return text;
}

Diagnostic toDiagnostic(MlirDiagnostic diagnostic) {
  Diagnostic result;
  switch (mlirDiagnosticGetSeverity(diagnostic)) {
  case MlirDiagnosticError:
    result.severity = "error";
    break;
  case MlirDiagnosticWarning:
    result.severity = "warning";
    break;
  case MlirDiagnosticNote:
    result.severity = "note";
    break;
  case MlirDiagnosticRemark:
    result.severity = "remark";
    break;
  }
  result.location = describeLocation(mlirDiagnosticGetLocation(diagnostic));
  mlirDiagnosticPrint(diagnostic, appendTo, &result.message);
  for (intptr_t i = 0, e = mlirDiagnosticGetNumNotes(diagnostic); i < e; ++i)
    result.notes.push_back(toDiagnostic(mlirDiagnosticGetNote(diagnostic, i)));
  return result;
}

/// Collects the diagnostics of a context while it lives, instead of their
/// being printed to stderr.
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(MlirContext context) : context(context) {
    id = mlirContextAttachDiagnosticHandler(context, handle, this, nullptr);
  }
  ~DiagnosticCollector() { mlirContextDetachDiagnosticHandler(context, id); }

  /// Raises lamport.MLIRError with `what` and the diagnostics collected.
  [[noreturn]] void raise(const std::string &what) {
    std::string message = what;
    for (const Diagnostic &d : diagnostics) {
      message += "\n" + d.location + ": " + d.severity + ": " + d.message;
      for (const Diagnostic &note : d.notes)
        message += "\n" + note.location + ": note: " + note.message;
    }
    throw LamportError{message, diagnostics};
  }

  std::vector<Diagnostic> diagnostics;

private:
  static MlirLogicalResult handle(MlirDiagnostic diagnostic, void *userData) {
    static_cast<DiagnosticCollector *>(userData)->diagnostics.push_back(
        toDiagnostic(diagnostic));
    return mlirLogicalResultSuccess();
  }

  MlirContext context;
  MlirDiagnosticHandlerID id;
};

//===----------------------------------------------------------------------===//
// Context and Module
//===----------------------------------------------------------------------===//

struct PyModule;

struct PyContext {
  PyContext() : context(mlirLamportContextCreate()) {}
  PyContext(const PyContext &) = delete;
  PyContext &operator=(const PyContext &) = delete;
  ~PyContext() { close(); }

  void close();
  bool closed() const { return mlirContextIsNull(context); }
  MlirContext get() const {
    if (closed())
      fail("the context is closed");
    return context;
  }

  MlirContext context;
  /// The modules to destroy with the context.
  std::vector<PyModule *> modules;
};

struct PyModule {
  PyModule(nb::object contextObject, MlirModule module)
      : contextObject(std::move(contextObject)), module(module) {
    context().modules.push_back(this);
  }
  ~PyModule() {
    destroy();
    if (!context().closed()) {
      auto &modules = context().modules;
      modules.erase(std::remove(modules.begin(), modules.end(), this),
                    modules.end());
    }
  }

  PyModule(const PyModule &) = delete;
  PyModule &operator=(const PyModule &) = delete;

  PyContext &context() const { return nb::cast<PyContext &>(contextObject); }
  void destroy() {
    if (!mlirModuleIsNull(module))
      mlirModuleDestroy(module);
    module = MlirModule{nullptr};
  }
  MlirModule get() const {
    if (mlirModuleIsNull(module))
      fail("the module was destroyed with its context");
    return module;
  }

  nb::object contextObject;
  MlirModule module;
};

/// A new Python Module that owns `module` (constructed in place: the
/// context keeps its address).
nb::object newModule(nb::object context, MlirModule module) {
  return nb::cast(new PyModule(std::move(context), module),
                  nb::rv_policy::take_ownership);
}

void PyContext::close() {
  if (closed())
    return;
  for (PyModule *module : modules)
    module->destroy();
  modules.clear();
  mlirContextDestroy(context);
  context = MlirContext{nullptr};
}

//===----------------------------------------------------------------------===//
// The thread's current context, location and insertion point
//===----------------------------------------------------------------------===//

/// What `with` made current, innermost last.
struct Stacks {
  std::vector<nb::object> contexts, locations, insertionPoints;
};

Stacks &stacks() {
  static thread_local Stacks instance;
  return instance;
}

nb::object top(std::vector<nb::object> &stack) {
  return stack.empty() ? nb::none() : stack.back();
}

void pop(std::vector<nb::object> &stack, nb::handle expected,
         const char *what) {
  if (stack.empty() || !stack.back().is(expected))
    fail(std::string("a ") + what + " left a `with` it did not enter last");
  stack.pop_back();
}

/// `context` or, when it is None, the current one.
nb::object resolveContext(nb::object context) {
  if (!context.is_none())
    return context;
  nb::object current = top(stacks().contexts);
  if (current.is_none())
    fail("no current context: pass context=, or build inside `with "
         "Context():`");
  return current;
}

MlirContext contextOf(const nb::object &context) {
  return nb::cast<PyContext &>(context).get();
}

//===----------------------------------------------------------------------===//
// Location, Type, Attribute
//===----------------------------------------------------------------------===//

/// A value owned by a context (locations, types, attributes are uniqued).
template <typename T> struct ContextOwned {
  ContextOwned(nb::object context, T value)
      : contextObject(std::move(context)), value(value) {}
  T get() const {
    nb::cast<PyContext &>(contextObject).get();
    return value;
  }
  nb::object contextObject;
  T value;
};

struct PyLocation : ContextOwned<MlirLocation> {
  using ContextOwned::ContextOwned;
};
struct PyType : ContextOwned<MlirType> {
  using ContextOwned::ContextOwned;
};
struct PyAttribute : ContextOwned<MlirAttribute> {
  using ContextOwned::ContextOwned;
};

/// Fails unless `owned` (a type, attribute or location) is of `context`:
/// MLIR does not check that an op's parts share its context.
template <typename T>
const T &sameContext(const nb::object &context, const T &owned,
                     const std::string &what) {
  if (!owned.contextObject.is(context))
    fail(what + " of another context");
  return owned;
}

/// `location` or, when it is None, the current one.
PyLocation &resolveLocation(nb::object location) {
  if (location.is_none())
    location = top(stacks().locations);
  if (location.is_none())
    fail("no current location: pass loc=, or build inside `with Location`");
  return nb::cast<PyLocation &>(location);
}

template <typename Print, typename T>
std::string printed(Print print, T value) {
  std::string text;
  print(value, appendTo, &text);
  return text;
}

//===----------------------------------------------------------------------===//
// Operation, Block, Value, InsertionPoint
//===----------------------------------------------------------------------===//

/// A handle into a module: keeps the module alive, fails once it is gone.
template <typename T> struct ModuleOwned {
  ModuleOwned(nb::object module, T value)
      : moduleObject(std::move(module)), value(value) {}
  PyModule &module() const { return nb::cast<PyModule &>(moduleObject); }
  T get() const {
    module().get();
    return value;
  }
  nb::object moduleObject;
  T value;
};

struct PyOperation : ModuleOwned<MlirOperation> {
  using ModuleOwned::ModuleOwned;
};
struct PyBlock : ModuleOwned<MlirBlock> {
  using ModuleOwned::ModuleOwned;
};
struct PyValue : ModuleOwned<MlirValue> {
  using ModuleOwned::ModuleOwned;
};

struct PyInsertionPoint {
  nb::object block;
  /// The op to insert before, or None to append.
  nb::object before;
};

/// Raises lamport.MLIRError when `operation` does not verify.
void verifyOperation(const PyOperation &operation) {
  MlirOperation op = operation.get();
  DiagnosticCollector collector(mlirOperationGetContext(op));
  if (!mlirOperationVerify(op))
    collector.raise("'" +
                    toString(mlirIdentifierStr(mlirOperationGetName(op))) +
                    "' does not verify:");
}

/// Creates an op and inserts it at `ip` (or the current insertion point).
nb::object createOperation(const std::string &name,
                           const std::vector<const PyType *> &results,
                           const std::vector<const PyValue *> &operands,
                           const nb::dict &attributes, int regions,
                           nb::object loc, nb::object ip) {
  if (ip.is_none())
    ip = top(stacks().insertionPoints);
  if (ip.is_none())
    fail("no insertion point: create '" + name +
         "' inside `with InsertionPoint(block):`");
  auto &point = nb::cast<PyInsertionPoint &>(ip);
  auto &block = nb::cast<PyBlock &>(point.block);
  MlirBlock blockValue = block.get();
  PyLocation &location = resolveLocation(loc);
  const nb::object &contextObject = block.module().contextObject;
  sameContext(contextObject, location, "'" + name + "': the location is one");
  MlirContext context = mlirLocationGetContext(location.get());

  MlirOperationState state = mlirOperationStateGet(toRef(name), location.get());
  std::vector<MlirType> resultTypes;
  for (const PyType *type : results)
    resultTypes.push_back(
        sameContext(contextObject, *type, "'" + name + "': a result type is")
            .get());
  mlirOperationStateAddResults(&state, resultTypes.size(), resultTypes.data());
  std::vector<MlirValue> operandValues;
  for (const PyValue *value : operands) {
    if (!value->module().get().ptr ||
        value->module().get().ptr != block.module().get().ptr)
      fail("'" + name + "': an operand is a value of another module");
    operandValues.push_back(value->get());
  }
  mlirOperationStateAddOperands(&state, operandValues.size(),
                                operandValues.data());
  std::vector<MlirNamedAttribute> named;
  for (auto [key, value] : attributes) {
    std::string attrName = nb::cast<std::string>(key);
    named.push_back(mlirNamedAttributeGet(
        mlirIdentifierGet(context, toRef(attrName)),
        sameContext(contextObject, nb::cast<PyAttribute &>(value),
                    "'" + name + "': attribute '" + attrName + "' is one")
            .get()));
  }
  mlirOperationStateAddAttributes(&state, named.size(), named.data());
  std::vector<MlirRegion> ownedRegions;
  for (int i = 0; i < regions; ++i)
    ownedRegions.push_back(mlirRegionCreate());
  mlirOperationStateAddOwnedRegions(&state, ownedRegions.size(),
                                    ownedRegions.data());

  DiagnosticCollector collector(context);
  MlirOperation op = mlirOperationCreate(&state);
  if (mlirOperationIsNull(op))
    collector.raise("cannot create '" + name + "':");
  if (point.before.is_none())
    mlirBlockAppendOwnedOperation(blockValue, op);
  else
    mlirBlockInsertOwnedOperationBefore(
        blockValue, nb::cast<PyOperation &>(point.before).get(), op);
  return nb::cast(PyOperation(block.moduleObject, op));
}

std::vector<PyValue> valuesOf(const nb::object &module, intptr_t count,
                              MlirValue (*get)(MlirOperation, intptr_t),
                              MlirOperation op) {
  std::vector<PyValue> values;
  for (intptr_t i = 0; i < count; ++i)
    values.emplace_back(module, get(op, i));
  return values;
}

//===----------------------------------------------------------------------===//
// Compiling
//===----------------------------------------------------------------------===//

/// Fills MlirLamportCompileOptions; the strings must outlive the call.
struct CompileOptions {
  CompileOptions(const std::string &chip, const std::string &transport,
                 std::optional<int64_t> timeoutNs,
                 const std::optional<std::string> &program,
                 const std::optional<std::string> &tacticTable,
                 const std::string &bulkCopies, bool checkProtocol,
                 bool explainTactics, bool assembleCubins)
      : chip(chip), transport(transport), program(program.value_or("")),
        tacticTable(tacticTable.value_or("")), bulkCopies(bulkCopies) {
    options = mlirLamportCompileOptionsGetDefault();
    options.chip = toRef(this->chip);
    options.transport = toRef(this->transport);
    if (timeoutNs)
      options.timeoutNs = *timeoutNs;
    options.program = toRef(this->program);
    options.tacticTable = toRef(this->tacticTable);
    options.bulkCopies = toRef(this->bulkCopies);
    options.checkProtocol = checkProtocol;
    options.explainTactics = explainTactics;
    options.assembleCubins = assembleCubins;
    options.remarkCallback = appendTo;
    options.remarkUserData = &remarks;
  }
  /// `options` points into this object.
  CompileOptions(const CompileOptions &) = delete;
  CompileOptions &operator=(const CompileOptions &) = delete;
  std::string chip, transport, program, tacticTable, bulkCopies;
  /// The warnings and remarks of a compilation that succeeded.
  std::string remarks;
  MlirLamportCompileOptions options;
};

void check(MlirLogicalResult result, const std::string &errors,
           const std::string &fallback) {
  if (mlirLogicalResultIsFailure(result))
    fail(errors.empty() ? fallback : errors);
}

uint32_t count(const char *what, int64_t value) {
  if (value < 0 || value > UINT32_MAX)
    throw nb::value_error((std::string(what) +
                           " must be in [0, 4294967295], "
                           "got " +
                           std::to_string(value))
                              .c_str());
  return uint32_t(value);
}

/// _CompileOptions: lamport-compile's options, checked by ir.py's
/// _options, for Context._compile and Module._compile.
void bindCompileOptions(nb::module_ &m) {
  nb::class_<CompileOptions>(m, "_CompileOptions",
                             "The options of one compilation.")
      .def(nb::init<const std::string &, const std::string &,
                    std::optional<int64_t>, const std::optional<std::string> &,
                    const std::optional<std::string> &, const std::string &,
                    bool, bool, bool>(),
           "chip"_a, "transport"_a, "timeout_ns"_a.none(), "program"_a.none(),
           "tactic_table"_a.none(), "bulk_copies"_a, "protocol_check"_a,
           "explain_tactics"_a, "cubins"_a);
}

/// lamport._lamport.Context: the context, `with`, text and bundle entry points.
void bindContext(nb::module_ &m) {
  nb::class_<PyContext>(m, "Context",
                        "An MLIR context that knows the lamport dialect and "
                        "everything its programs and lowering use.")
      .def(nb::init<>())
      .def("close", &PyContext::close,
           "Destroys the context and every module in it.")
      .def_prop_ro("closed", &PyContext::closed)
      .def("__enter__",
           [](nb::object self) {
             stacks().contexts.push_back(self);
             return self;
           })
      .def("__exit__",
           [](nb::object self, nb::args) {
             pop(stacks().contexts, self, "context");
           })
      .def_prop_ro_static(
          "current", [](nb::handle) { return top(stacks().contexts); },
          "The innermost context of `with`, or None.")
      .def(
          "_parse",
          [](nb::object self, const std::string &text,
             const std::string &name) {
            std::string errors;
            MlirModule module = mlirLamportModuleCreateParse(
                contextOf(self), toRef(text), toRef(name), appendTo, &errors);
            if (mlirModuleIsNull(module))
              fail(errors.empty() ? name + ": does not parse" : errors);
            return newModule(self, module);
          },
          "text"_a, "name"_a)
      .def(
          "_compile",
          [](nb::object self, const std::string &text, const std::string &name,
             const std::string &directory, CompileOptions &options) {
            options.remarks.clear();
            std::string errors;
            check(mlirLamportCompileSourceToBundle(
                      contextOf(self), toRef(text), toRef(name),
                      toRef(directory), options.options, appendTo, &errors),
                  errors, name + ": compilation failed");
            return options.remarks;
          },
          "text"_a, "name"_a, "directory"_a, "options"_a,
          "Compiles; returns the warnings and remarks.");
}

/// Location: unknown, file, name; `with loc:`.
void bindLocation(nb::module_ &m) {
  nb::class_<PyLocation>(m, "Location",
                         "A source location of ops and "
                         "diagnostics.")
      .def_static(
          "unknown",
          [](nb::object context) {
            context = resolveContext(context);
            return PyLocation(context,
                              mlirLocationUnknownGet(contextOf(context)));
          },
          "context"_a = nb::none())
      .def_static(
          "file",
          [](const std::string &filename, unsigned line, unsigned col,
             nb::object context) {
            context = resolveContext(context);
            return PyLocation(
                context, mlirLocationFileLineColGet(
                             contextOf(context), toRef(filename), line, col));
          },
          "filename"_a, "line"_a, "col"_a, "context"_a = nb::none())
      .def_static(
          "name",
          [](const std::string &name, nb::object childLoc, nb::object context) {
            MlirContext ctx;
            MlirLocation child;
            if (childLoc.is_none()) {
              context = resolveContext(context);
              ctx = contextOf(context);
              child = mlirLocationUnknownGet(ctx);
            } else {
              auto &parent = nb::cast<PyLocation &>(childLoc);
              context = parent.contextObject;
              child = parent.get();
              ctx = mlirLocationGetContext(child);
            }
            return PyLocation(context,
                              mlirLocationNameGet(ctx, toRef(name), child));
          },
          "name"_a, "childLoc"_a = nb::none(), "context"_a = nb::none())
      .def_prop_ro("context",
                   [](PyLocation &self) { return self.contextObject; })
      .def("__enter__",
           [](nb::object self) {
             stacks().locations.push_back(self);
             stacks().contexts.push_back(
                 nb::cast<PyLocation &>(self).contextObject);
             return self;
           })
      .def("__exit__",
           [](nb::object self, nb::args) {
             pop(stacks().contexts, nb::cast<PyLocation &>(self).contextObject,
                 "context");
             pop(stacks().locations, self, "location");
           })
      .def_prop_ro_static(
          "current", [](nb::handle) { return top(stacks().locations); },
          "The innermost location of `with`, or None.")
      .def("__str__",
           [](PyLocation &self) { return describeLocation(self.get()); })
      .def("__repr__", [](PyLocation &self) {
        return printed(mlirLocationPrint, self.get());
      });
}

/// Type: printing, equality, parsing.
void bindType(nb::module_ &m) {
  nb::class_<PyType>(m, "Type", "An MLIR type.")
      .def_static(
          "parse",
          [](const std::string &text, nb::object context) {
            context = resolveContext(context);
            DiagnosticCollector collector(contextOf(context));
            MlirType type = mlirTypeParseGet(contextOf(context), toRef(text));
            if (mlirTypeIsNull(type))
              collector.raise("'" + text + "' is not a type:");
            return PyType(context, type);
          },
          "text"_a, "context"_a = nb::none())
      .def_prop_ro("context", [](PyType &self) { return self.contextObject; })
      .def("__eq__",
           [](PyType &self, nb::object other) {
             return nb::isinstance<PyType>(other) &&
                    mlirTypeEqual(self.get(), nb::cast<PyType &>(other).get());
           })
      .def("__hash__",
           [](PyType &self) {
             return std::hash<const void *>()(self.value.ptr);
           })
      .def("__str__",
           [](PyType &self) { return printed(mlirTypePrint, self.get()); })
      .def("__repr__", [](PyType &self) {
        return "Type(" + printed(mlirTypePrint, self.get()) + ")";
      });
}

/// Attribute: printing, equality, parsing.
void bindAttribute(nb::module_ &m) {
  nb::class_<PyAttribute>(m, "Attribute", "An MLIR attribute.")
      .def_static(
          "parse",
          [](const std::string &text, nb::object context) {
            context = resolveContext(context);
            DiagnosticCollector collector(contextOf(context));
            MlirAttribute attribute =
                mlirAttributeParseGet(contextOf(context), toRef(text));
            if (mlirAttributeIsNull(attribute))
              collector.raise("'" + text + "' is not an attribute:");
            return PyAttribute(context, attribute);
          },
          "text"_a, "context"_a = nb::none())
      .def_prop_ro("context",
                   [](PyAttribute &self) { return self.contextObject; })
      .def("__eq__",
           [](PyAttribute &self, nb::object other) {
             return nb::isinstance<PyAttribute>(other) &&
                    mlirAttributeEqual(self.get(),
                                       nb::cast<PyAttribute &>(other).get());
           })
      .def("__hash__",
           [](PyAttribute &self) {
             return std::hash<const void *>()(self.value.ptr);
           })
      .def("__str__",
           [](PyAttribute &self) {
             return printed(mlirAttributePrint, self.get());
           })
      .def("__repr__", [](PyAttribute &self) {
        return "Attribute(" + printed(mlirAttributePrint, self.get()) + ")";
      });
}

/// Module: creation, body, pipelines, compiling.
void bindModule(nb::module_ &m) {
  nb::class_<PyModule>(m, "Module", "A module, owned by its Context.")
      .def_static(
          "create",
          [](nb::object loc) {
            PyLocation &location = resolveLocation(loc);
            return newModule(location.contextObject,
                             mlirModuleCreateEmpty(location.get()));
          },
          "loc"_a = nb::none())
      .def_prop_ro("context", [](PyModule &self) { return self.contextObject; })
      .def_prop_ro(
          "operation",
          [](nb::object self) {
            return PyOperation(
                self, mlirModuleGetOperation(nb::cast<PyModule &>(self).get()));
          })
      .def_prop_ro("body",
                   [](nb::object self) {
                     return PyBlock(
                         self,
                         mlirModuleGetBody(nb::cast<PyModule &>(self).get()));
                   })
      .def("close", &PyModule::destroy, "Destroys the module now.")
      .def(
          "_run_pipeline",
          [](PyModule &self, const std::string &pipeline) {
            std::string errors, remarks;
            check(mlirLamportModuleRunPassPipelineWithRemarks(
                      self.get(), toRef(pipeline), appendTo, &errors, appendTo,
                      &remarks),
                  errors, "pipeline '" + pipeline + "' failed");
            return remarks;
          },
          "pipeline"_a, "Runs the pipeline; returns its warnings and remarks.")
      .def(
          "_compile",
          [](PyModule &self, const std::string &directory,
             CompileOptions &options) {
            options.remarks.clear();
            std::string errors;
            check(mlirLamportCompileModuleToBundle(self.get(), toRef(directory),
                                                   options.options, appendTo,
                                                   &errors),
                  errors, "compilation failed");
            return options.remarks;
          },
          "directory"_a, "options"_a,
          "Compiles; returns the warnings and remarks.");
}

/// Block: its arguments and ops.
void bindBlock(nb::module_ &m) {
  nb::class_<PyBlock>(m, "Block", "A block of a module's op.")
      .def_prop_ro("arguments",
                   [](PyBlock &self) {
                     std::vector<PyValue> values;
                     MlirBlock block = self.get();
                     for (intptr_t i = 0, e = mlirBlockGetNumArguments(block);
                          i < e; ++i)
                       values.emplace_back(self.moduleObject,
                                           mlirBlockGetArgument(block, i));
                     return values;
                   })
      .def_prop_ro("operations", [](PyBlock &self) {
        std::vector<PyOperation> ops;
        for (MlirOperation op = mlirBlockGetFirstOperation(self.get());
             !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op))
          ops.emplace_back(self.moduleObject, op);
        return ops;
      });
}

/// Value: its type.
void bindValue(nb::module_ &m) {
  nb::class_<PyValue>(m, "Value",
                      "An SSA value: an op result or a block "
                      "argument.")
      .def_prop_ro("type",
                   [](PyValue &self) {
                     return PyType(self.module().contextObject,
                                   mlirValueGetType(self.get()));
                   })
      .def("__eq__",
           [](PyValue &self, nb::object other) {
             return nb::isinstance<PyValue>(other) &&
                    mlirValueEqual(self.get(),
                                   nb::cast<PyValue &>(other).get());
           })
      .def("__hash__",
           [](PyValue &self) {
             return std::hash<const void *>()(self.value.ptr);
           })
      .def("__str__",
           [](PyValue &self) { return printed(mlirValuePrint, self.get()); });
}

/// Operation: generic creation, operands, results, attributes, blocks.
void bindOperation(nb::module_ &m) {
  nb::class_<PyOperation>(m, "Operation", "An op of a module.")
      .def_static("create", &createOperation, "name"_a,
                  "results"_a = std::vector<const PyType *>(),
                  "operands"_a = std::vector<const PyValue *>(),
                  "attributes"_a = nb::dict(), "regions"_a = 0,
                  "loc"_a = nb::none(), "ip"_a = nb::none(),
                  "Creates op `name` at the insertion point; its attributes "
                  "are {name: Attribute}.")
      .def_prop_ro("name",
                   [](PyOperation &self) {
                     return toString(
                         mlirIdentifierStr(mlirOperationGetName(self.get())));
                   })
      .def_prop_ro("location",
                   [](PyOperation &self) {
                     return PyLocation(self.module().contextObject,
                                       mlirOperationGetLocation(self.get()));
                   })
      .def_prop_ro("operands",
                   [](PyOperation &self) {
                     return valuesOf(self.moduleObject,
                                     mlirOperationGetNumOperands(self.get()),
                                     mlirOperationGetOperand, self.get());
                   })
      .def_prop_ro("results",
                   [](PyOperation &self) {
                     return valuesOf(self.moduleObject,
                                     mlirOperationGetNumResults(self.get()),
                                     mlirOperationGetResult, self.get());
                   })
      .def(
          "attribute",
          [](PyOperation &self, const std::string &name) -> nb::object {
            MlirAttribute attribute =
                mlirOperationGetAttributeByName(self.get(), toRef(name));
            if (mlirAttributeIsNull(attribute))
              return nb::none();
            return nb::cast(
                PyAttribute(self.module().contextObject, attribute));
          },
          "name"_a, "The attribute `name`, or None.")
      .def(
          "add_block",
          [](PyOperation &self, unsigned region,
             const std::vector<const PyType *> &types,
             const std::vector<const PyLocation *> &locations) {
            MlirOperation op = self.get();
            if (region >= unsigned(mlirOperationGetNumRegions(op)))
              throw nb::index_error("the op has no such region");
            if (types.size() != locations.size())
              throw nb::value_error("one location per block argument");
            std::vector<MlirType> argTypes;
            std::vector<MlirLocation> argLocs;
            for (size_t i = 0; i < types.size(); ++i) {
              argTypes.push_back(sameContext(self.module().contextObject,
                                             *types[i], "an argument type is")
                                     .get());
              argLocs.push_back(sameContext(self.module().contextObject,
                                            *locations[i], "a location is")
                                    .get());
            }
            MlirBlock block = mlirBlockCreate(argTypes.size(), argTypes.data(),
                                              argLocs.data());
            mlirRegionAppendOwnedBlock(mlirOperationGetRegion(op, region),
                                       block);
            return PyBlock(self.moduleObject, block);
          },
          "region"_a, "types"_a, "locations"_a,
          "Appends a block with arguments of `types` to region `region`.")
      .def(
          "verify",
          [](PyOperation &self) {
            verifyOperation(self);
            return true;
          },
          "True, or raises lamport.MLIRError with the diagnostics.")
      .def("__str__", [](PyOperation &self) {
        return printed(mlirOperationPrint, self.get());
      });
}

/// InsertionPoint: where created ops go; `with ip:`.
void bindInsertionPoint(nb::module_ &m) {
  nb::class_<PyInsertionPoint>(m, "InsertionPoint",
                               "Where created ops go: the end of a block, "
                               "or before an op of it.")
      .def(
          "__init__",
          [](PyInsertionPoint *self, nb::object block) {
            nb::cast<PyBlock &>(block);
            new (self) PyInsertionPoint{block, nb::none()};
          },
          "block"_a)
      .def_static(
          "at_block_terminator",
          [](nb::object block) {
            auto &b = nb::cast<PyBlock &>(block);
            MlirOperation terminator = mlirBlockGetTerminator(b.get());
            if (mlirOperationIsNull(terminator))
              throw nb::value_error("the block has no terminator");
            return PyInsertionPoint{
                block, nb::cast(PyOperation(b.moduleObject, terminator))};
          },
          "block"_a)
      .def_prop_ro("block", [](PyInsertionPoint &self) { return self.block; })
      .def("__enter__",
           [](nb::object self) {
             stacks().insertionPoints.push_back(self);
             return self;
           })
      .def("__exit__",
           [](nb::object self, nb::args) {
             pop(stacks().insertionPoints, self, "insertion point");
           })
      .def_prop_ro_static(
          "current", [](nb::handle) { return top(stacks().insertionPoints); },
          "The innermost insertion point of `with`, or None.");
}

//===----------------------------------------------------------------------===//
// Builtin and lamport types and attributes
//===----------------------------------------------------------------------===//

PyType typeIn(nb::object context, MlirType (*get)(MlirContext)) {
  context = resolveContext(context);
  return PyType(context, get(contextOf(context)));
}

/// The builtin and lamport types the builders need.
void bindTypeBuilders(nb::module_ &m) {
  m.def(
      "bf16_type", [](nb::object c) { return typeIn(c, mlirBF16TypeGet); },
      "context"_a = nb::none());
  m.def(
      "f32_type", [](nb::object c) { return typeIn(c, mlirF32TypeGet); },
      "context"_a = nb::none());
  m.def(
      "index_type", [](nb::object c) { return typeIn(c, mlirIndexTypeGet); },
      "context"_a = nb::none());
  m.def(
      "integer_type",
      [](unsigned width, nb::object context) {
        context = resolveContext(context);
        return PyType(context, mlirIntegerTypeGet(contextOf(context), width));
      },
      "width"_a, "context"_a = nb::none());
  m.def("dynamic_size", [] { return mlirShapedTypeGetDynamicSize(); });
  m.def(
      "memref_type",
      [](const std::vector<int64_t> &shape, const PyType &element,
         nb::object loc) {
        PyLocation &location = resolveLocation(loc);
        DiagnosticCollector collector(mlirLocationGetContext(location.get()));
        sameContext(location.contextObject, element, "the element type is");
        MlirType type = mlirMemRefTypeContiguousGetChecked(
            location.get(), element.get(), shape.size(), shape.data(),
            mlirAttributeGetNull());
        if (mlirTypeIsNull(type))
          collector.raise("not a memref type:");
        return PyType(element.contextObject, type);
      },
      "shape"_a, "element_type"_a, "loc"_a = nb::none());
  m.def(
      "function_type",
      [](const std::vector<const PyType *> &inputs,
         const std::vector<const PyType *> &results, nb::object context) {
        context = resolveContext(context);
        std::vector<MlirType> in, out;
        for (const PyType *type : inputs)
          in.push_back(sameContext(context, *type, "a type is").get());
        for (const PyType *type : results)
          out.push_back(sameContext(context, *type, "a type is").get());
        return PyType(context,
                      mlirFunctionTypeGet(contextOf(context), in.size(),
                                          in.data(), out.size(), out.data()));
      },
      "inputs"_a, "results"_a, "context"_a = nb::none());
  m.def("function_type_inputs", [](const PyType &type) {
    if (!mlirTypeIsAFunction(type.get()))
      throw nb::type_error("not a function type");
    std::vector<PyType> inputs;
    for (intptr_t i = 0, e = mlirFunctionTypeGetNumInputs(type.get()); i < e;
         ++i)
      inputs.emplace_back(type.contextObject,
                          mlirFunctionTypeGetInput(type.get(), i));
    return inputs;
  });
  m.def(
      "mailbox_type",
      [](int64_t tp, int64_t capacity, int64_t width, nb::object loc) {
        PyLocation &location = resolveLocation(loc);
        DiagnosticCollector collector(mlirLocationGetContext(location.get()));
        MlirType type = mlirLamportMailboxTypeGetChecked(
            location.get(), count("tp", tp), count("capacity", capacity),
            count("width", width));
        if (mlirTypeIsNull(type))
          collector.raise("not a mailbox type:");
        return PyType(location.contextObject, type);
      },
      "tp"_a, "capacity"_a, "width"_a, "loc"_a = nb::none());
  m.def("is_mailbox_type", [](const PyType &type) {
    return mlirTypeIsALamportMailbox(type.get());
  });
  m.def("mailbox_type_parameters", [](const PyType &type) {
    if (!mlirTypeIsALamportMailbox(type.get()))
      throw nb::type_error("not a !lamport.mailbox type");
    return nb::make_tuple(mlirLamportMailboxTypeGetTp(type.get()),
                          mlirLamportMailboxTypeGetCapacity(type.get()),
                          mlirLamportMailboxTypeGetWidth(type.get()));
  });
}

/// The builtin and lamport attributes the builders need.
void bindAttributeBuilders(nb::module_ &m) {
  auto attributeIn = [](nb::object context, auto get) {
    context = resolveContext(context);
    return PyAttribute(context, get(contextOf(context)));
  };
  m.def(
      "unit_attr",
      [=](nb::object c) { return attributeIn(c, mlirUnitAttrGet); },
      "context"_a = nb::none());
  m.def(
      "string_attr",
      [=](const std::string &text, nb::object c) {
        return attributeIn(c, [&](MlirContext ctx) {
          return mlirStringAttrGet(ctx, toRef(text));
        });
      },
      "text"_a, "context"_a = nb::none());
  m.def("type_attr", [](const PyType &type) {
    return PyAttribute(type.contextObject, mlirTypeAttrGet(type.get()));
  });
  m.def(
      "i64_attr",
      [=](int64_t value, nb::object c) {
        return attributeIn(c, [&](MlirContext ctx) {
          return mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), value);
        });
      },
      "value"_a, "context"_a = nb::none());
  m.def(
      "f32_attr",
      [=](double value, nb::object c) {
        return attributeIn(c, [&](MlirContext ctx) {
          return mlirFloatAttrDoubleGet(ctx, mlirF32TypeGet(ctx), value);
        });
      },
      "value"_a, "context"_a = nb::none());
  m.def(
      "array_attr",
      [](const std::vector<const PyAttribute *> &elements, nb::object context) {
        context = resolveContext(context);
        std::vector<MlirAttribute> values;
        for (const PyAttribute *element : elements)
          values.push_back(
              sameContext(context, *element, "an attribute is").get());
        return PyAttribute(
            context,
            mlirArrayAttrGet(contextOf(context), values.size(), values.data()));
      },
      "elements"_a, "context"_a = nb::none());
  m.def(
      "dense_i32_array_attr",
      [](const std::vector<int32_t> &values, nb::object context) {
        context = resolveContext(context);
        return PyAttribute(context,
                           mlirDenseI32ArrayGet(contextOf(context),
                                                values.size(), values.data()));
      },
      "values"_a, "context"_a = nb::none());
  m.def(
      "tactic_attr",
      [](int64_t splits, int64_t kw, int64_t accs,
         const std::vector<int64_t> &tokenTiles, std::optional<int64_t> tiles,
         std::optional<int64_t> passes, std::optional<int64_t> minCtasPerSm,
         std::optional<bool> earlyDependents, std::optional<int64_t> lateChunks,
         std::optional<std::string> pipeline, std::optional<int64_t> stages,
         std::optional<int64_t> stageBytes,
         std::optional<int64_t> producerLanes,
         std::optional<int64_t> earlyReads, nb::object context) {
        context = resolveContext(context);
        // A knob left as None keeps the attribute's own default, which only
        // the dialect states.
        MlirLamportTactic tactic = mlirLamportTacticGetDefault();
        auto setCount = [](uint32_t &knob, const char *what,
                           std::optional<int64_t> value) {
          if (value)
            knob = count(what, *value);
        };
        tactic.splits = count("splits", splits);
        tactic.kw = count("kw", kw);
        tactic.accs = count("accs", accs);
        setCount(tactic.tiles, "tiles", tiles);
        setCount(tactic.passes, "passes", passes);
        setCount(tactic.minCtasPerSm, "min_ctas_per_sm", minCtasPerSm);
        if (earlyDependents)
          tactic.earlyDependents = *earlyDependents;
        setCount(tactic.lateChunks, "late_chunks", lateChunks);
        if (pipeline) {
          if (*pipeline != "registers" && *pipeline != "bulk")
            throw nb::value_error(("pipeline must be 'registers' or 'bulk', "
                                   "got '" +
                                   *pipeline + "'")
                                      .c_str());
          tactic.bulkPipeline = *pipeline == "bulk";
        }
        setCount(tactic.stages, "stages", stages);
        setCount(tactic.stageBytes, "stage_bytes", stageBytes);
        setCount(tactic.producerLanes, "producer_lanes", producerLanes);
        // The C API keeps -1 for "left out", so the count is an int32_t.
        if (earlyReads) {
          if (*earlyReads < 0 || *earlyReads > INT32_MAX)
            throw nb::value_error(
                ("early_reads must be in [0, 2147483647], got " +
                 std::to_string(*earlyReads))
                    .c_str());
          tactic.earlyReads = int32_t(*earlyReads);
        }
        tactic.numTokenTiles = tokenTiles.size();
        tactic.tokenTiles = tokenTiles.data();
        return PyAttribute(
            context, mlirLamportTacticAttrGet(contextOf(context), tactic));
      },
      "splits"_a, "kw"_a, "accs"_a, "token_tiles"_a, "tiles"_a.none(),
      "passes"_a.none(), "min_ctas_per_sm"_a.none(),
      "early_dependents"_a.none(), "late_chunks"_a.none(), "pipeline"_a.none(),
      "stages"_a.none(), "stage_bytes"_a.none(), "producer_lanes"_a.none(),
      "early_reads"_a.none(), "context"_a = nb::none());
  m.def(
      "transport_attr",
      [](const std::string &name, nb::object context) {
        context = resolveContext(context);
        MlirAttribute attribute =
            mlirLamportTransportAttrGet(contextOf(context), toRef(name));
        if (mlirAttributeIsNull(attribute))
          throw nb::value_error(("unknown transport '" + name +
                                 "': publishes use unicast or multicast")
                                    .c_str());
        return PyAttribute(context, attribute);
      },
      "name"_a, "context"_a = nb::none());
  m.def(
      "sum_order_attr",
      [](const std::string &name, nb::object context) {
        context = resolveContext(context);
        MlirAttribute attribute =
            mlirLamportSumOrderAttrGet(contextOf(context), toRef(name));
        if (mlirAttributeIsNull(attribute))
          throw nb::value_error(
              ("unknown sum order '" + name + "': rank_ascending or pairwise")
                  .c_str());
        return PyAttribute(context, attribute);
      },
      "name"_a, "context"_a = nb::none());
}

} // namespace

NB_MODULE(_lamport, m) {
  m.doc() = "Lamport's IR builder over its C API (libLamportCAPI.so).";
  // Pipelines may name upstream passes as well as ours.
  mlirRegisterAllPasses();
  mlirRegisterLamportPasses();

  nb::register_exception_translator([](const std::exception_ptr &p, void *) {
    try {
      std::rethrow_exception(p);
    } catch (const LamportError &error) {
      nb::module_ errors = nb::module_::import_("lamport._errors");
      nb::object exception;
      if (error.diagnostics) {
        nb::list diagnostics;
        auto convert = [&](const Diagnostic &d, auto &self) -> nb::object {
          nb::list notes;
          for (const Diagnostic &note : d.notes)
            notes.append(self(note, self));
          return errors.attr("DiagnosticInfo")(d.severity, d.location,
                                               d.message, nb::tuple(notes));
        };
        for (const Diagnostic &d : *error.diagnostics)
          diagnostics.append(convert(d, convert));
        exception =
            errors.attr("MLIRError")(error.message, nb::tuple(diagnostics));
      } else {
        exception = errors.attr("Error")(error.message);
      }
      PyErr_SetObject(exception.type().ptr(), exception.ptr());
    }
  });

  bindCompileOptions(m);
  bindContext(m);
  bindLocation(m);
  bindType(m);
  bindAttribute(m);
  bindModule(m);
  bindBlock(m);
  bindValue(m);
  bindOperation(m);
  bindInsertionPoint(m);
  bindTypeBuilders(m);
  bindAttributeBuilders(m);
}
