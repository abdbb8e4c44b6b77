# -*- Python -*-
# lit configuration of the Lamport suite (ninja check-lamport).

import os
import shutil

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "LAMPORT"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test", ".c", ".py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.lamport_obj_root, "test")
# Inputs of tests, not tests: the examples live in docs/examples and are run
# by test/Examples; Inputs/ folders hold files other tests read.
config.excludes = ["Inputs", "CMakeLists.txt", "README.md", "lit.cfg.py",
                   "lit.site.cfg.py", "gpu"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%shlibext", config.llvm_shlib_ext))
config.substitutions.append(("%lamport_src_root", config.lamport_src_root))
config.substitutions.append(("%lamport_obj_root", config.lamport_obj_root))
config.substitutions.append(("%lamport_lib_dir", config.lamport_lib_dir))
config.substitutions.append(("%lamport_version", config.lamport_version))
config.substitutions.append(("%llvm_tools_dir", config.llvm_tools_dir))
# MLIR's .td files, for tests that run mlir-tblgen over the dialect.
config.substitutions.append(("%mlir_include_dir", os.path.join(
    os.path.dirname(config.llvm_tools_dir), "include")))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

tool_dirs = [config.lamport_tools_dir, config.llvm_tools_dir]
tools = [
    "lamport-opt",
    "lamport-compile",
    "lamport-capi-test",
    "mlir-tblgen",
    # LLVM 22's, not another version's on PATH: the host-lowering tests
    # translate and compile the LLVM IR that MLIR 22 writes.
    "mlir-translate",
    "llc",
    ToolSubst("%mlir-opt", os.path.join(config.llvm_tools_dir, "mlir-opt")),
]
llvm_config.add_tool_substitutions(tools, tool_dirs)

# The runtime's tests (test/Runtime) run lamport-run where the runtime is
# built; cuda-device marks a machine with an NVIDIA GPU, where the no-GPU
# tests do not apply.
if config.lamport_runtime_enabled:
    config.available_features.add("lamport-runtime")
    llvm_config.add_tool_substitutions(["lamport-run"], tool_dirs)
if os.path.exists("/dev/nvidia0"):
    config.available_features.add("cuda-device")
# The toolkit's stub libcuda exports every driver symbol but initialises no
# device: lamport-run resolves its whole driver table against it.
cuda_stub = os.path.join(config.cuda_root, "lib64", "stubs", "libcuda.so")
if os.path.exists(cuda_stub):
    config.available_features.add("cuda-stub")
    config.substitutions.append(("%cuda_stub_libcuda", cuda_stub))

# ptxas assembles every PTX the suite generates; without it those tests are
# reported unsupported instead of silently passing.
cuda_bin = os.path.join(config.cuda_root, "bin")
ptxas = shutil.which("ptxas", path=cuda_bin + os.pathsep +
                     "/usr/local/cuda/bin" + os.pathsep +
                     config.environment.get("PATH", ""))
if ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))

# LLVM 22's clang-format checks the sources' format (test/Format); the
# test is unsupported where it is not installed.
clang_format = os.path.join(config.llvm_tools_dir, "clang-format")
if os.path.exists(clang_format):
    config.available_features.add("clang-format")
    config.substitutions.append(("%clang_format", clang_format))

python = shutil.which("python3")
config.substitutions.append(("%python", python or "python3"))
# How a command ended ("exit N" or "signal NAME"), after its own output: a
# bad input must end in an error and a non-zero exit, never a signal.
config.substitutions.append(("%exit_status", "%s %s" % (
    python or "python3",
    os.path.join(config.lamport_src_root, "test", "Inputs", "exit_status.py"))))
