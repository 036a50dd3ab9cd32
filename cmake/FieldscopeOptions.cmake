# One INTERFACE target carries the language standard, warnings and Qt strictness; every
# Fieldscope target links it privately (house style). No global flags.
add_library(fieldscope_options INTERFACE)
target_compile_features(fieldscope_options INTERFACE cxx_std_20)
target_compile_options(fieldscope_options INTERFACE -Wall -Wextra -Wpedantic
  -Wno-missing-field-initializers
  # GCC 12 reports false -Wrestrict positives inside libstdc++'s std::string at -O2 (GCC PR 105329).
  $<$<CXX_COMPILER_ID:GNU>:-Wno-restrict>
  $<$<BOOL:${FIELDSCOPE_WERROR}>:-Werror>)
target_compile_definitions(fieldscope_options INTERFACE
  QT_NO_CAST_FROM_ASCII QT_NO_CAST_TO_ASCII QT_NO_URL_CAST_FROM_STRING
  QT_NO_FOREACH QT_NO_KEYWORDS
  FIELDSCOPE_VERSION="${PROJECT_VERSION}")

# Helper: a Fieldscope library in its own folder = one namespace.
function(fieldscope_library name)
  add_library(${name} STATIC ${ARGN})
  target_link_libraries(${name} PRIVATE fieldscope_options)
  target_include_directories(${name} PUBLIC "${PROJECT_SOURCE_DIR}")
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
endfunction()
