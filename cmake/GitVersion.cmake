# Run at build time (cmake -P): writes OUT (a header defining FIELDSCOPE_GIT_VERSION) from
# `git describe`, and rewrites it only when the text changes, so a commit recompiles one file.
#   -DSOURCE_DIR=... -DOUT=... -DBASE_VERSION=0.1.0
# A tag "v1.2.3" gives "1.2.3" (plus "+N.gHASH" after it); without tags the version is
# BASE_VERSION+git.gHASH; a tree with changes adds ".dirty"; no git at all gives BASE_VERSION.
# The result is a valid Debian version (starts with a digit; only [0-9A-Za-z.+~-]).
execute_process(COMMAND git -C "${SOURCE_DIR}" describe --tags --long --dirty=.dirty --match "v[0-9]*"
                OUTPUT_VARIABLE described RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(rc EQUAL 0 AND described MATCHES "^v([0-9][^-]*)-([0-9]+)-g([0-9a-f]+)(\\.dirty)?$")
  set(version "${CMAKE_MATCH_1}")
  if(NOT CMAKE_MATCH_2 STREQUAL "0")
    set(version "${version}+${CMAKE_MATCH_2}.g${CMAKE_MATCH_3}")
  endif()
  set(version "${version}${CMAKE_MATCH_4}")
else()
  execute_process(COMMAND git -C "${SOURCE_DIR}" describe --always --dirty=.dirty
                  OUTPUT_VARIABLE described RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(rc EQUAL 0 AND NOT described STREQUAL "")
    set(version "${BASE_VERSION}+git.g${described}")
  else()
    set(version "${BASE_VERSION}")
  endif()
endif()
set(text "#pragma once\n#define FIELDSCOPE_GIT_VERSION \"${version}\"\n")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUT}" "${text}")
endif()
if(DEFINED VERSION_FILE)
  file(WRITE "${VERSION_FILE}" "${version}")
endif()
