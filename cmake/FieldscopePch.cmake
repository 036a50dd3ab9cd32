# One precompiled header (cmake/fieldscope_pch.h) built once per build folder and reused by every
# target that links fieldscope_options by name. Measured on GCC 12 with the ci flags: 6.6 s to
# build the header, then 9 to 27% less time per translation unit (4.3 s instead of 5.5 s for
# core/history/historystore.cpp, 5.0 s instead of 6.9 s for tests/core/tst_yaml.cpp); the
# README's fresh-machine figure is measured with it.
# What a target must share with the header, or GCC refuses it (-Winvalid-pch, an error with
# -Werror): -fPIC (Qt's targets and fieldscope_library give it to all of ours today; an executable
# without Qt would get GCC's -fPIE), and every macro that the header's files read, defined the same
# way (the header's target has only fieldscope_options' and QtCore's). A target that cannot share
# it sets the property FIELDSCOPE_NO_PCH.
# Off for other compilers (the fuzz preset's clang): measured and checked on GCC only.
option(FIELDSCOPE_PCH "Share one precompiled header between all Fieldscope targets (GCC)" ON)

function(_fieldscope_targets_under dir out)
  get_property(targets DIRECTORY "${dir}" PROPERTY BUILDSYSTEM_TARGETS)
  get_property(subdirs DIRECTORY "${dir}" PROPERTY SUBDIRECTORIES)
  foreach(sub IN LISTS subdirs)
    _fieldscope_targets_under("${sub}" more)
    list(APPEND targets ${more})
  endforeach()
  set(${out} ${targets} PARENT_SCOPE)
endfunction()

# Called once, after every folder has added its targets.
function(fieldscope_precompile_headers)
  if(NOT FIELDSCOPE_PCH OR NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    return()
  endif()
  # With the header, GCC 12 at -O2 reports libstdc++'s `operator+(string&&, const char*)`, inlined
  # into our code, as -Warray-bounds (`forming offset [32, 58] is out of the bounds [0, 32]`),
  # -Wstringop-overflow (`writing 17 bytes into a region of size 16`) and -Wstringop-overread
  # (`reading 17 bytes from a region of size 16`), all at its memcpy in bits/char_traits.h: the
  # same family of false positives as the -Wrestrict one in cmake/FieldscopeOptions.cmake; none
  # fires without the header. Nine files of ours hit them, and any new string concatenation may,
  # so they are off for all (the price of the header): our own bounds stay checked at run time by
  # the asan-core suite and the fuzz replays (scripts/test.sh).
  target_compile_options(fieldscope_options INTERFACE
    -Wno-array-bounds -Wno-stringop-overflow -Wno-stringop-overread)
  add_library(fieldscope_pch OBJECT "${PROJECT_SOURCE_DIR}/cmake/fieldscope_pch.cpp")
  target_link_libraries(fieldscope_pch PRIVATE fieldscope_options Qt6::Core)
  set_target_properties(fieldscope_pch PROPERTIES POSITION_INDEPENDENT_CODE ON AUTOMOC OFF
    CXX_COMPILER_LAUNCHER
      "${PROJECT_SOURCE_DIR}/cmake/fieldscope-pch-sum.sh;${PROJECT_SOURCE_DIR};${CMAKE_CXX_COMPILER_LAUNCHER}")
  target_precompile_headers(fieldscope_pch PRIVATE "${PROJECT_SOURCE_DIR}/cmake/fieldscope_pch.h")
  _fieldscope_targets_under("${PROJECT_SOURCE_DIR}" targets)
  foreach(t IN LISTS targets)
    get_target_property(type ${t} TYPE)
    get_target_property(links ${t} LINK_LIBRARIES)
    get_target_property(opted_out ${t} FIELDSCOPE_NO_PCH)
    # A link through a generator expression or an INTERFACE library is not seen: that target
    # only compiles as before.
    if(type MATCHES "^(EXECUTABLE|STATIC_LIBRARY|OBJECT_LIBRARY)$" AND NOT t STREQUAL "fieldscope_pch"
       AND "fieldscope_options" IN_LIST links AND NOT opted_out)
      target_precompile_headers(${t} REUSE_FROM fieldscope_pch)
    endif()
  endforeach()
endfunction()
