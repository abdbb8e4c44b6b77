#===- cmake/LamportInstall.cmake - cmake --install and find_package -----===#
#
# What `cmake --install` puts under the prefix, for projects that take the
# dialect without adopting our tools (docs/getting-started.md):
#   include/lamport, include/lamport-c   headers, .td files, generated .inc
#   lib/                                 the dialect, pass and bundle-writer
#                                        libraries, libLamportCAPI.so,
#                                        LamportPlugin.so
#   bin/                                 lamport-opt, lamport-compile
#   python/lamport/                      the Python package, which finds
#                                        lib/libLamportCAPI.so beside it,
#                                        and bundle.schema.json
#   lib/cmake/lamport/                   LamportConfig.cmake and the
#                                        exported targets (Lamport::...)
# Each part is a component, so a test can install what it built.
#
#===----------------------------------------------------------------------===#

include(CMakePackageConfigHelpers)

set(LAMPORT_INSTALL_CMAKE_DIR lib${LLVM_LIBDIR_SUFFIX}/cmake/lamport)

# The C++ headers of the runtime and of the check library are not part of
# the package: an embedding runs bundles through the runtime's C API
# (lamport-c/Runtime.h, libLamportRuntimeC.so from lib/Runtime/CAPI).
install(DIRECTORY
  ${LAMPORT_SOURCE_DIR}/include/lamport
  ${LAMPORT_SOURCE_DIR}/include/lamport-c
  DESTINATION include
  COMPONENT lamport-headers
  FILES_MATCHING PATTERN "*.h" PATTERN "*.td"
  PATTERN "Runtime" EXCLUDE
  PATTERN "Check" EXCLUDE)
install(DIRECTORY ${LAMPORT_BINARY_DIR}/include/lamport
  DESTINATION include
  COMPONENT lamport-headers
  FILES_MATCHING PATTERN "*.inc"
  PATTERN "CMakeFiles" EXCLUDE)

# Installed binaries find libMLIR.so and libLLVM.so where the MLIR packages
# keep them: LLVM's default install RPATH ($ORIGIN/../lib) holds only ours.
set_property(TARGET LamportCAPI LamportPlugin lamport-opt lamport-compile
  APPEND PROPERTY INSTALL_RPATH "${LLVM_LIBRARY_DIR}")

# The tools are not in the export: they are programs to run, not to link.
install(TARGETS lamport-opt lamport-compile
  RUNTIME DESTINATION bin
  COMPONENT lamport-tools)
install(TARGETS LamportPlugin
  LIBRARY DESTINATION lib${LLVM_LIBDIR_SUFFIX}
  COMPONENT lamport-plugin)

install(DIRECTORY ${LAMPORT_SOURCE_DIR}/python/lamport
  DESTINATION python
  COMPONENT lamport-python
  FILES_MATCHING PATTERN "*.py"
  PATTERN "__pycache__" EXCLUDE)
# The manifest schema lamport.Bundle checks bundles against; its one copy in
# the source tree is docs/bundle.schema.json.
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

configure_package_config_file(
  ${LAMPORT_SOURCE_DIR}/cmake/LamportConfig.cmake.in
  ${LAMPORT_BINARY_DIR}/${LAMPORT_INSTALL_CMAKE_DIR}/LamportConfig.cmake
  INSTALL_DESTINATION ${LAMPORT_INSTALL_CMAKE_DIR}
  PATH_VARS LAMPORT_INSTALL_CMAKE_DIR)
install(FILES
  ${LAMPORT_BINARY_DIR}/${LAMPORT_INSTALL_CMAKE_DIR}/LamportConfig.cmake
  DESTINATION ${LAMPORT_INSTALL_CMAKE_DIR}
  COMPONENT lamport-cmake-exports)

# The components `cmake --install` needs for find_package(Lamport) to work,
# in the order test/Install installs them.
set(LAMPORT_INSTALL_COMPONENTS
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
  lamport-cmake-exports
  CACHE INTERNAL "")
