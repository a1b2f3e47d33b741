# perf_link_for_fast_start(<executable>): links a tool so that its process
# starts in a few milliseconds, where a small estimate's whole run is its
# start.
#
# On the virtual machines perf is measured on, each page a process faults in
# costs tens of microseconds and each shared library about a millisecond
# (mapping, relocating, its own faults). A 10k-kernel estimate took 15 ms,
# of which the start was 9 (`perf-opt --version`). Measured with `perf stat`
# on that estimate (docs/performance.md): libstdc++, libgcc and SQLite linked in
# (their code is then relocated with the binary's, and three libraries fewer
# are searched for and mapped) 15 -> 12 ms; no position-independent
# executable (no relocation of the binary's 170 KB of vtables and tables at
# start, each page of them a fault) 12 -> 11 ms; no run path (below).
#
# Not for sanitizer builds (their runtimes expect the shared C++ library)
# nor for tools that exchange C++ objects with a shared library (ONNX and
# protobuf in perf-translate): a second copy of libstdc++ is only safe
# behind a C interface, as XGBoost's is (loaded by dlopen, with its own
# libstdc++.so).
option(PERF_FAST_START
  "Link perf-opt with libstdc++ and SQLite built in and without PIE (faster start)"
  ON)
# The startup order: the functions a small estimate runs, listed in
# cmake/startup.order (scripts/startup-order.py writes it), placed first in
# the binary's code and one after another by lld's --symbol-ordering-file.
# Linked in the default order, the code a 10k-kernel estimate touches lay
# over the whole 10 MB text segment and faulted in about 60 windows of
# 64 KB; packed, it takes 1.3 MB: 177 -> 146 page faults, 11.8 -> 10.4 ms
# (docs/performance.md). GNU ld 2.40 has no such option: without lld the
# tools are linked as before.
option(PERF_STARTUP_ORDER
  "Link the fast-start tools with lld in the order of cmake/startup.order"
  ON)
set(PERF_STARTUP_ORDER_FILE "${CMAKE_CURRENT_LIST_DIR}/startup.order")
# A fully static link of those tools, where the C library's archives are
# there: no dynamic loader, and no libc, libm and libz to map and relocate
# at every start. A 10-op estimate 5.73 -> 4.23 ms, the 10k-kernel step
# 9.9 -> 8.5 ms (docs/performance.md). perf-opt loads no shared library
# once running (the learned models walk their boosters in place;
# perf-translate is run beside it for an .onnx input); a static program
# cannot load one (XGBoost's, which only training loads, faulted in its
# thread-local storage), and XGBoostLibrary.cpp refuses to try.
option(PERF_STATIC_TOOLS
  "Link the fast-start tools fully static where libc.a and the archives of zlib, zstd, protobuf-lite and SQLite are installed"
  ON)

find_package(SQLite3 REQUIRED)
find_library(PERF_SQLITE3_ARCHIVE NAMES libsqlite3.a)
find_library(PERF_MATH_LIBRARY m)

# perf_archive_when(<name> <property> <archive> <shared>): an interface
# library <name> that links <archive> (a file or a list of them) into an
# executable whose <property> is set (read on the executable being linked;
# perf_link_for_fast_start sets them) and <shared> (a target or library)
# into everything else, or wherever <archive> was not found. A shared
# library of perf cannot take Debian's archives, which are not built as PIC.
function(perf_archive_when name property archive shared)
  add_library(${name} INTERFACE)
  if(archive)
    target_link_libraries(${name} INTERFACE
      "$<IF:$<BOOL:$<TARGET_PROPERTY:${property}>>,${archive},${shared}>")
  else()
    target_link_libraries(${name} INTERFACE ${shared})
  endif()
endfunction()

# SQLite for every target: the archive (and libm, which it needs) for an
# executable linked for a fast start (PERF_LINK_STATIC_SQLITE), the shared
# library otherwise.
set(_perf_sqlite_archive "")
if(PERF_SQLITE3_ARCHIVE)
  set(_perf_sqlite_archive "${PERF_SQLITE3_ARCHIVE}")
  if(PERF_MATH_LIBRARY)
    list(APPEND _perf_sqlite_archive "${PERF_MATH_LIBRARY}")
  endif()
endif()
perf_archive_when(PerfSQLite PERF_LINK_STATIC_SQLITE "${_perf_sqlite_archive}"
                  SQLite::SQLite3)

# The archives a static tool links in place of the shared libraries
# (perf_archive_when with PERF_LINK_STATIC: PerfZlib in lib/Support,
# PerfProtobufLite in lib/Comm).
find_library(PERF_LIBC_ARCHIVE NAMES libc.a)
find_library(PERF_ZLIB_ARCHIVE NAMES libz.a)
find_library(PERF_ZSTD_ARCHIVE NAMES libzstd.a)
find_library(PERF_PROTOBUF_LITE_ARCHIVE NAMES libprotobuf-lite.a)

# Whether the fast-start link applies to this build.
set(PERF_FAST_START_APPLIES OFF)
if(PERF_FAST_START AND NOT PERF_SANITIZE AND NOT PERF_FUZZ
   AND CMAKE_SYSTEM_NAME STREQUAL "Linux"
   AND CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
  set(PERF_FAST_START_APPLIES ON)
endif()

set(PERF_STATIC_APPLIES OFF)
if(PERF_FAST_START_APPLIES AND PERF_STATIC_TOOLS AND PERF_LIBC_ARCHIVE
   AND PERF_ZLIB_ARCHIVE AND PERF_ZSTD_ARCHIVE AND PERF_PROTOBUF_LITE_ARCHIVE
   AND PERF_SQLITE3_ARCHIVE)
  set(PERF_STATIC_APPLIES ON)
elseif(PERF_FAST_START_APPLIES AND PERF_STATIC_TOOLS)
  message(STATUS "perf: no libc.a, libz.a, libzstd.a, libprotobuf-lite.a or "
                 "libsqlite3.a: the fast-start tools are linked dynamically")
endif()

set(PERF_STARTUP_ORDER_APPLIES OFF)
if(PERF_FAST_START_APPLIES AND PERF_STARTUP_ORDER)
  include(CheckLinkerFlag)
  check_linker_flag(CXX "-fuse-ld=lld" PERF_HAVE_LLD)
  if(PERF_HAVE_LLD)
    set(PERF_STARTUP_ORDER_APPLIES ON)
    # For the test that reads the order back from the binary.
    find_package(Python3 COMPONENTS Interpreter)
  else()
    message(STATUS "perf: no lld (apt-get install lld): the fast-start "
                   "tools are linked without the startup order")
  endif()
endif()

function(perf_link_for_fast_start target)
  if(NOT PERF_FAST_START_APPLIES)
    return()
  endif()
  if(PERF_STATIC_APPLIES)
    target_link_options(${target} PRIVATE -static -no-pie)
    set_target_properties(${target} PROPERTIES PERF_LINK_STATIC ON)
  else()
    target_link_options(${target} PRIVATE
      -static-libstdc++ -static-libgcc -no-pie)
  endif()
  # No run path: the libraries left are the system's, and the dynamic loader
  # tried each of them in every directory of LLVM's run path first (three
  # directories and an empty entry, the working directory, each under a dozen
  # hardware subdirectories: a hundred failed system calls).
  set_target_properties(${target} PROPERTIES
    SKIP_BUILD_RPATH ON BUILD_WITH_INSTALL_RPATH OFF INSTALL_RPATH "")
  if(PERF_SQLITE3_ARCHIVE)
    set_target_properties(${target} PROPERTIES PERF_LINK_STATIC_SQLITE ON)
  endif()
  if(PERF_STARTUP_ORDER_APPLIES)
    # Names the build no longer has are skipped, quietly: a stale list only
    # orders less (the startup-order test says when to write it again).
    target_link_options(${target} PRIVATE -fuse-ld=lld
      "-Wl,--symbol-ordering-file=${PERF_STARTUP_ORDER_FILE}"
      -Wl,--no-warn-symbol-ordering)
    set_property(TARGET ${target} APPEND PROPERTY
      LINK_DEPENDS "${PERF_STARTUP_ORDER_FILE}")
  endif()
endfunction()

# The link above, checked on the binary: no libstdc++, libgcc or SQLite to
# load, no run path, and not position-independent.
function(perf_test_fast_start target)
  if(NOT PERF_FAST_START_APPLIES OR NOT CMAKE_READELF)
    return()
  endif()
  add_test(NAME ${target}-fast-start-link
    COMMAND ${CMAKE_READELF} --file-header --dynamic $<TARGET_FILE:${target}>)
  set_tests_properties(${target}-fast-start-link PROPERTIES
    PASS_REGULAR_EXPRESSION "Type: +EXEC "
    FAIL_REGULAR_EXPRESSION "libstdc\\+\\+|libgcc_s|libsqlite3|RPATH|RUNPATH")
  if(PERF_STATIC_APPLIES)
    add_test(NAME ${target}-static-link
      COMMAND ${CMAKE_READELF} --program-headers --dynamic
              $<TARGET_FILE:${target}>)
    set_tests_properties(${target}-static-link PROPERTIES
      PASS_REGULAR_EXPRESSION "no dynamic section"
      FAIL_REGULAR_EXPRESSION "INTERP|NEEDED")
  endif()
  if(PERF_STARTUP_ORDER_APPLIES AND Python3_EXECUTABLE)
    add_test(NAME ${target}-startup-order
      COMMAND ${Python3_EXECUTABLE}
        ${PROJECT_SOURCE_DIR}/scripts/startup-order.py
        --check $<TARGET_FILE:${target}> --order ${PERF_STARTUP_ORDER_FILE})
  endif()
endfunction()
