# Every dependency comes from a Debian 12 package installed by scripts/install-deps.sh.
find_package(Qt6 6.4 REQUIRED COMPONENTS Core Gui Widgets Test Concurrent Svg Network)
find_package(yaml-cpp REQUIRED)
find_package(simdjson REQUIRED)
find_package(nlohmann_json 3.11 REQUIRED)
find_package(CURL REQUIRED)
find_package(SQLite3 REQUIRED)
find_package(ZLIB REQUIRED) # gzip-rotated audit logs
find_package(PkgConfig REQUIRED)
pkg_check_modules(ZSTD REQUIRED IMPORTED_TARGET libzstd)
pkg_check_modules(LIBPQ REQUIRED IMPORTED_TARGET libpq) # a team's shared history on PostgreSQL

# Debian ships QScintilla for Qt 6 without a CMake package.
find_library(QSCINTILLA_LIBRARY NAMES qscintilla2_qt6 REQUIRED)
find_path(QSCINTILLA_INCLUDE_DIR Qsci/qsciscintilla.h PATH_SUFFIXES qt6 x86_64-linux-gnu/qt6 REQUIRED)
add_library(QScintilla::QScintilla UNKNOWN IMPORTED)
set_target_properties(QScintilla::QScintilla PROPERTIES
  IMPORTED_LOCATION "${QSCINTILLA_LIBRARY}"
  INTERFACE_INCLUDE_DIRECTORIES "${QSCINTILLA_INCLUDE_DIR}"
  INTERFACE_LINK_LIBRARIES "Qt6::Widgets")

# yaml-cpp 0.7's config names the target yaml-cpp (newer: yaml-cpp::yaml-cpp).
if(NOT TARGET yaml-cpp::yaml-cpp)
  add_library(yaml-cpp::yaml-cpp ALIAS yaml-cpp)
endif()
