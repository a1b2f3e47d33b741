# What `cmake --install build --prefix P` puts under P: headers (written and
# generated), the libraries with an exported CMake package (PerfConfig.cmake:
# find_package(Perf) gives Perf::CostModel, Perf::Schedule, Perf::Transforms,
# Perf::CAPI with their link dependencies), the tools, and libperf-c.so, the
# C API as one self-contained shared library with perf.pc for pkg-config.
include(CMakePackageConfigHelpers)
include(GNUInstallDirs)

set(PERF_VERSION ${PROJECT_VERSION})
set(PERF_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/perf)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.h" PATTERN "*.td")
install(DIRECTORY ${PROJECT_BINARY_DIR}/include/
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.h" PATTERN "*.inc"
  PATTERN "CMakeFiles" EXCLUDE)

# Every library add_mlir_library made and the Chakra protobuf code under
# PerfComm, in one export set.
get_property(perf_libraries GLOBAL PROPERTY MLIR_ALL_LIBS)
list(FILTER perf_libraries INCLUDE REGEX "^(Perf|MLIRPerf)")
install(TARGETS ${perf_libraries} PerfChakraProto
  EXPORT PerfTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT PerfTargets NAMESPACE Perf::
  DESTINATION ${PERF_INSTALL_CMAKEDIR})

# libperf-c.so: the C API and everything under it linked in, only the
# perf* functions visible (a C program links it alone, no C++ runtime flags).
# Not in the sanitizer and fuzz builds: a shared library there would need
# the sanitizer runtimes, which only executables link.
if(NOT PERF_SANITIZE AND NOT PERF_FUZZ)
  add_library(perf-c SHARED $<TARGET_OBJECTS:obj.PerfCAPI>)
  target_link_libraries(perf-c PRIVATE PerfCAPI)
  target_link_options(perf-c PRIVATE -Wl,--exclude-libs,ALL
    -Wl,--version-script=${PROJECT_SOURCE_DIR}/lib/CAPI/perf-c.map)
  set_target_properties(perf-c PROPERTIES
    LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/lib
    VERSION ${PERF_VERSION} SOVERSION 0
    LINK_DEPENDS ${PROJECT_SOURCE_DIR}/lib/CAPI/perf-c.map)
  install(TARGETS perf-c EXPORT PerfTargets
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()
configure_file(${PROJECT_SOURCE_DIR}/cmake/perf.pc.in
  ${PROJECT_BINARY_DIR}/perf.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/perf.pc
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

install(TARGETS perf-opt perf-translate perf-trace perf-eval perf-train
  perf-sweep RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The shipped learned models, which perf-opt --estimate reads by default.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/data/models
  DESTINATION ${CMAKE_INSTALL_DATADIR}/perf)
# The host catalog (--perf-host-overhead=table=NAME, perf-opt --list-hosts).
install(DIRECTORY ${PROJECT_SOURCE_DIR}/data/hosts
  DESTINATION ${CMAKE_INSTALL_DATADIR}/perf)

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/PerfConfig.cmake.in
  ${PROJECT_BINARY_DIR}/PerfConfig.cmake
  INSTALL_DESTINATION ${PERF_INSTALL_CMAKEDIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/PerfConfigVersion.cmake
  VERSION ${PERF_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/PerfConfig.cmake
  ${PROJECT_BINARY_DIR}/PerfConfigVersion.cmake
  DESTINATION ${PERF_INSTALL_CMAKEDIR})

# Installs to a temporary prefix, builds examples/consumer against it and
# checks what it prints (scripts/test-package.sh). Not in the sanitizer and
# fuzz builds: their libraries need the sanitizer runtimes a plain consumer
# does not link.
if(NOT PERF_SANITIZE AND NOT PERF_FUZZ)
  add_test(NAME package-consumer
    COMMAND bash ${PROJECT_SOURCE_DIR}/scripts/test-package.sh
      ${PROJECT_BINARY_DIR} ${PROJECT_SOURCE_DIR})
  set_tests_properties(package-consumer PROPERTIES TIMEOUT 900
    ENVIRONMENT "PYTHON=${PERF_PYTHON_EXECUTABLE}")
endif()
