#===- cmake/LamportFuzzing.cmake - A build instrumented for libFuzzer ----===#
#
# With LAMPORT_ENABLE_FUZZERS every Lamport library (compiler and runtime
# halves) is compiled with libFuzzer's coverage instrumentation and the
# sanitizers of LAMPORT_FUZZ_SANITIZERS, so a fuzz target sees the edges of
# our code and a memory error or undefined behaviour ends the input with a
# report. MLIR and LLVM themselves are Debian's uninstrumented libMLIR.so
# and libLLVM.so: they were built by GCC against libstdc++, which clang uses
# too, so clang-built objects link against them unchanged.
#
# Included before any library is declared, so that every target takes the
# flags; test/Fuzz declares the fuzz targets themselves.
#
#===----------------------------------------------------------------------===#

if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR "LAMPORT_ENABLE_FUZZERS needs clang (libFuzzer): "
    "configure with CC=clang CXX=clang++ in a build directory of its own "
    "(scripts/fuzz.sh)")
endif()

set(LAMPORT_FUZZ_SANITIZERS "address,undefined" CACHE STRING
  "Sanitizers of the fuzz build, as -fsanitize= takes them")

# Line tables are enough for symbolized crash reports. UBSan aborts instead
# of printing and going on, so undefined behaviour is a finding. -O1 for the
# runtime half; the compiler half is built at -O0 (lamport_fuzz_compiler).
add_compile_options(
  -O1
  -gline-tables-only
  -fno-omit-frame-pointer
  -fsanitize=fuzzer-no-link,${LAMPORT_FUZZ_SANITIZERS}
  -fno-sanitize-recover=all)
add_link_options(-fsanitize=${LAMPORT_FUZZ_SANITIZERS})

# Unity builds: each library's sources compile in batches, so the MLIR
# headers are parsed once a batch instead of once a file. The fuzz build
# takes a quarter of the time (80 s instead of 350 s on 2 cores), which
# keeps it affordable in CI. -DCMAKE_UNITY_BUILD=OFF turns it off.
if(NOT DEFINED CMAKE_UNITY_BUILD)
  set(CMAKE_UNITY_BUILD ON)
endif()

# For the compiler half, declared after the runtime: -O0. Its code is MLIR
# templates that take 2.5 times as long to compile at -O1 with the
# sanitizers, while a compiler fuzz target spends most of its time in the
# uninstrumented libMLIR.so anyway.
# And LLVM's allocators must not poison memory our code shares with the
# uninstrumented libMLIR.so (test/Fuzz/UninstrumentedLLVM.h says why).
macro(lamport_fuzz_compiler)
  add_compile_options(-O0
    "SHELL:-include ${LAMPORT_SOURCE_DIR}/test/Fuzz/UninstrumentedLLVM.h")
endmacro()
