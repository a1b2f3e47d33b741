# Writes OUT (PerfRevision.inc) with the source tree's git revision, run at
# every build so a commit after configuring shows; configure_file leaves the
# file alone when the revision is the same, so nothing recompiles then.
# Called as: cmake -DSOURCE_DIR=... -DOUT=... -P PerfRevision.cmake
set(PERF_GIT_REVISION "unknown")
find_package(Git QUIET)
if(GIT_FOUND)
  execute_process(COMMAND ${GIT_EXECUTABLE} -C ${SOURCE_DIR} rev-parse --short=12 HEAD
    OUTPUT_VARIABLE revision OUTPUT_STRIP_TRAILING_WHITESPACE
    RESULT_VARIABLE failed ERROR_QUIET)
  if(NOT failed AND revision)
    set(PERF_GIT_REVISION ${revision})
    execute_process(COMMAND ${GIT_EXECUTABLE} -C ${SOURCE_DIR} diff --quiet HEAD --
      RESULT_VARIABLE dirty ERROR_QUIET)
    if(dirty)
      string(APPEND PERF_GIT_REVISION "-modified")
    endif()
  endif()
endif()
file(WRITE ${OUT}.tmp "#define PERF_GIT_REVISION \"${PERF_GIT_REVISION}\"\n")
configure_file(${OUT}.tmp ${OUT} COPYONLY)
