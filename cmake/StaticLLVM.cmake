# Links LLVM's static component libraries in place of libLLVM.so.
#
# MLIR's exported targets link the LLVM dylib (Debian builds LLVM with
# LLVM_LINK_LLVM_DYLIB). Loading it costs every process about 18 ms before
# main (the dynamic loader resolving tens of thousands of symbols and
# mapping 100 MB), most of a small estimate: perf-opt --version took 27 ms,
# 9 ms with the components perf uses linked in. The imported target LLVM is
# pointed at a GNU ld script that names those archives, so every target
# that links LLVM through MLIR gets them instead. Falls back to the dylib,
# with a message, when an archive is missing.
option(PERF_LINK_LLVM_STATIC
  "Link LLVM's static components instead of libLLVM.so (faster start)" ON)

if(PERF_LINK_LLVM_STATIC AND TARGET LLVM)
  # What perf's tools need of LLVM: Support and what MLIR's remark engine
  # and target triples pull in.
  set(_perf_llvm_components
    Support Demangle Remarks BitstreamReader TargetParser BinaryFormat)
  set(_perf_llvm_archives "")
  set(_perf_llvm_missing "")
  foreach(component IN LISTS _perf_llvm_components)
    set(archive "${LLVM_LIBRARY_DIR}/libLLVM${component}.a")
    if(EXISTS "${archive}")
      string(APPEND _perf_llvm_archives " ${archive}")
    else()
      list(APPEND _perf_llvm_missing "${archive}")
    endif()
  endforeach()
  if(_perf_llvm_missing)
    message(STATUS "perf: linking libLLVM.so (missing ${_perf_llvm_missing})")
  else()
    set(_perf_llvm_script "${CMAKE_BINARY_DIR}/lib/libPerfLLVMComponents.so")
    set(_perf_llvm_script_text
      "/* LLVM's static components in place of libLLVM.so "
      "(cmake/StaticLLVM.cmake) */\n"
      "GROUP (${_perf_llvm_archives} )\n"
      "INPUT ( -lz -lzstd )\n")
    file(WRITE "${_perf_llvm_script}" ${_perf_llvm_script_text})
    get_target_property(_perf_llvm_configs LLVM IMPORTED_CONFIGURATIONS)
    set_target_properties(LLVM PROPERTIES
      IMPORTED_LOCATION "${_perf_llvm_script}"
      IMPORTED_NO_SONAME TRUE)
    foreach(config IN LISTS _perf_llvm_configs)
      set_target_properties(LLVM PROPERTIES
        IMPORTED_LOCATION_${config} "${_perf_llvm_script}"
        IMPORTED_NO_SONAME_${config} TRUE)
    endforeach()
    message(STATUS "perf: linking LLVM's static components (${_perf_llvm_components})")
  endif()
endif()
