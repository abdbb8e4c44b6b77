#===- cmake/LamportInstall.cmake - cmake --install and find_package -----===#
#
# What `cmake --install` puts under the prefix, for projects that take the
# dialect or the runtime without adopting our tools (docs/tools.md):
#   include/lamport, include/lamport-c   headers, .td files, generated .inc
#   lib/                                 the dialect, pass and bundle-writer
#                                        libraries, libLamportCAPI.so,
#                                        LamportPlugin.so,
#                                        libLamportRuntimeC.so,
#                                        libLamportCudaRuntime.so
#   bin/                                 lamport-opt, lamport-compile,
#                                        lamport-run
#   python/lamport/                      the Python package, which finds
#                                        lib/libLamportCAPI.so beside it,
#                                        and bundle.schema.json
#   lib/cmake/lamport/                   LamportConfig.cmake, its version
#                                        file and the exported targets
# The compiler's parts when LAMPORT_ENABLE_COMPILER is on, the runtime's when
# LAMPORT_ENABLE_RUNTIME is. Each part is a component, so a test can install
# what it built. Nothing installed names the prefix: the tree works from
# wherever it is moved.
#
#===----------------------------------------------------------------------===#

include(CMakePackageConfigHelpers)

set(LAMPORT_INSTALL_LIBDIR lib${LLVM_LIBDIR_SUFFIX})
set(LAMPORT_INSTALL_CMAKE_DIR ${LAMPORT_INSTALL_LIBDIR}/cmake/lamport)
# The components `cmake --install` needs for find_package(Lamport) to work,
# in the order test/Install installs them; each half appends its own.
set(LAMPORT_INSTALL_COMPONENTS lamport-cmake-config)

#===----------------------------------------------------------------------===#
# The compiler: dialect, passes, C API, plugin, tools, Python package
#===----------------------------------------------------------------------===#

if(LAMPORT_ENABLE_COMPILER)
  # The C++ headers of the runtime and of the check library are not part of
  # the package: an embedding runs bundles through the runtime's C API
  # (lamport-c/Runtime.h, installed with the runtime below).
  install(DIRECTORY
    ${LAMPORT_SOURCE_DIR}/include/lamport
    ${LAMPORT_SOURCE_DIR}/include/lamport-c
    DESTINATION include
    COMPONENT lamport-headers
    FILES_MATCHING PATTERN "*.h" PATTERN "*.td"
    PATTERN "Runtime" EXCLUDE
    PATTERN "Runtime.h" EXCLUDE
    PATTERN "RuntimeRank.h" EXCLUDE
    PATTERN "Check" EXCLUDE)
  install(DIRECTORY ${LAMPORT_BINARY_DIR}/include/lamport
    DESTINATION include
    COMPONENT lamport-headers
    FILES_MATCHING PATTERN "*.inc"
    PATTERN "CMakeFiles" EXCLUDE)

  # add_mlir_library gives a shared library LLVM's version as its SONAME
  # (libLamportCAPI.so.22.1); ours carries Lamport's.
  set_target_properties(LamportCAPI PROPERTIES
    VERSION ${PROJECT_VERSION}
    SOVERSION ${LAMPORT_SOVERSION})

  # Installed binaries find ours through LLVM's default install RPATH
  # ($ORIGIN/../lib) and libMLIR.so and libLLVM.so where the MLIR packages
  # keep them.
  set_property(TARGET LamportCAPI LamportPlugin lamport-opt lamport-compile
    APPEND PROPERTY INSTALL_RPATH "${LLVM_LIBRARY_DIR}")

  # add_mlir_tool exports lamport-opt and lamport-compile as imported
  # executables (Lamport::lamport-opt); they are installed here too, under
  # one component.
  install(TARGETS lamport-opt lamport-compile
    RUNTIME DESTINATION bin
    COMPONENT lamport-tools)
  # The tactic tables lamport-select-tactics reads: share/lamport/tactics
  # beside bin/ and lib/ (docs/tactics.md), and lamport-tune beside the
  # tools.
  install(DIRECTORY ${LAMPORT_SOURCE_DIR}/data/tactics
    DESTINATION share/lamport
    COMPONENT lamport-tools
    FILES_MATCHING PATTERN "*.json")
  install(PROGRAMS ${LAMPORT_SOURCE_DIR}/tools/lamport-tune/lamport-tune
    DESTINATION bin
    COMPONENT lamport-tools)
  install(TARGETS LamportPlugin
    LIBRARY DESTINATION ${LAMPORT_INSTALL_LIBDIR}
    COMPONENT lamport-plugin)

  install(DIRECTORY ${LAMPORT_SOURCE_DIR}/python/lamport
    DESTINATION python
    COMPONENT lamport-python
    FILES_MATCHING PATTERN "*.py"
    PATTERN "__pycache__" EXCLUDE)
  # The manifest schema lamport.Bundle checks bundles against; its one copy
  # in the source tree is docs/bundle.schema.json.
  install(FILES ${LAMPORT_SOURCE_DIR}/docs/bundle.schema.json
    DESTINATION python/lamport
    COMPONENT lamport-python)

  # add_mlir_library puts every library of ours in the export set MLIRTargets
  # (the only one an out-of-tree MLIR project has); it is written under our
  # own file name and namespace.
  install(EXPORT MLIRTargets
    FILE LamportTargets.cmake
    NAMESPACE Lamport::
    DESTINATION ${LAMPORT_INSTALL_CMAKE_DIR}
    COMPONENT lamport-cmake-exports)

  list(APPEND LAMPORT_INSTALL_COMPONENTS
    lamport-headers
    MLIRLamportDialect
    MLIRLamportTransforms
    MLIRLamportToNVVM
    MLIRLamportHostToLLVM
    MLIRLamportPipelines
    MLIRLamportTarget
    LamportCAPI
    lamport-plugin
    lamport-tools
    lamport-python
    lamport-cmake-exports)
endif()

#===----------------------------------------------------------------------===#
# The runtime: libLamportRuntimeC.so, its C header, lamport-run
#===----------------------------------------------------------------------===#

if(LAMPORT_ENABLE_RUNTIME)
  install(FILES ${LAMPORT_SOURCE_DIR}/include/lamport-c/Runtime.h
    ${LAMPORT_SOURCE_DIR}/include/lamport-c/RuntimeRank.h
    DESTINATION include/lamport-c
    COMPONENT lamport-runtime)
  # Beside libLamportCAPI.so, where the installed Python package looks.
  install(TARGETS LamportRuntimeC LamportCudaRuntime
    EXPORT LamportRuntimeTargets
    LIBRARY DESTINATION ${LAMPORT_INSTALL_LIBDIR}
    COMPONENT lamport-runtime
    INCLUDES DESTINATION include)
  install(TARGETS lamport-run
    RUNTIME DESTINATION bin
    COMPONENT lamport-runtime)
  install(EXPORT LamportRuntimeTargets
    FILE LamportRuntimeTargets.cmake
    NAMESPACE Lamport::
    DESTINATION ${LAMPORT_INSTALL_CMAKE_DIR}
    COMPONENT lamport-runtime-exports)
  list(APPEND LAMPORT_INSTALL_COMPONENTS
    lamport-runtime
    lamport-runtime-exports)
endif()

#===----------------------------------------------------------------------===#
# LamportConfig.cmake and LamportConfigVersion.cmake
#===----------------------------------------------------------------------===#

# The MLIR the compiler's libraries were built against, which the config
# finds again: by its major version, never by where this machine keeps it.
if(LAMPORT_ENABLE_COMPILER)
  set(LAMPORT_MLIR_VERSION_MAJOR ${LLVM_VERSION_MAJOR})
else()
  set(LAMPORT_MLIR_VERSION_MAJOR "")
endif()

configure_package_config_file(
  ${LAMPORT_SOURCE_DIR}/cmake/LamportConfig.cmake.in
  ${LAMPORT_BINARY_DIR}/${LAMPORT_INSTALL_CMAKE_DIR}/LamportConfig.cmake
  INSTALL_DESTINATION ${LAMPORT_INSTALL_CMAKE_DIR}
  PATH_VARS LAMPORT_INSTALL_CMAKE_DIR LAMPORT_INSTALL_LIBDIR
  NO_CHECK_REQUIRED_COMPONENTS_MACRO)
# Before 1.0 a minor release may break the APIs (the SONAME carries
# major.minor too): find_package(Lamport 0.2) accepts 0.2.x only, neither
# 0.1 nor 0.3. From 1.0 on this becomes SameMajorVersion.
write_basic_package_version_file(
  ${LAMPORT_BINARY_DIR}/${LAMPORT_INSTALL_CMAKE_DIR}/LamportConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMinorVersion)
install(FILES
  ${LAMPORT_BINARY_DIR}/${LAMPORT_INSTALL_CMAKE_DIR}/LamportConfig.cmake
  ${LAMPORT_BINARY_DIR}/${LAMPORT_INSTALL_CMAKE_DIR}/LamportConfigVersion.cmake
  DESTINATION ${LAMPORT_INSTALL_CMAKE_DIR}
  COMPONENT lamport-cmake-config)

set(LAMPORT_INSTALL_COMPONENTS ${LAMPORT_INSTALL_COMPONENTS} CACHE INTERNAL "")
