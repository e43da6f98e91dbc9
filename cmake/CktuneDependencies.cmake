# Every dependency comes from Debian's packages (or the GPU toolkit) through find_package.
find_package(Threads REQUIRED)
find_package(CLI11 CONFIG REQUIRED)
find_package(fmt CONFIG REQUIRED)
find_package(spdlog CONFIG REQUIRED)
find_package(nlohmann_json CONFIG REQUIRED)
find_package(ZLIB REQUIRED)

# Debian's libre2-dev ships pkg-config data and no CMake package; wrap it in an imported target.
find_package(re2 CONFIG QUIET)
if(NOT TARGET re2::re2)
  find_package(PkgConfig REQUIRED)
  pkg_check_modules(RE2 REQUIRED IMPORTED_TARGET re2)
  if(CKTUNE_PORTABLE)
    find_library(RE2_STATIC_LIB NAMES libre2.a REQUIRED)
    add_library(re2::re2 STATIC IMPORTED GLOBAL)
    set_target_properties(re2::re2 PROPERTIES IMPORTED_LOCATION ${RE2_STATIC_LIB}
      INTERFACE_INCLUDE_DIRECTORIES "${RE2_INCLUDE_DIRS}" INTERFACE_COMPILE_OPTIONS "${RE2_CFLAGS_OTHER}"
      INTERFACE_LINK_LIBRARIES Threads::Threads)
  else()
    add_library(re2::re2 ALIAS PkgConfig::RE2)
  endif()
endif()

if(CKTUNE_BUILD_TESTS)
  find_package(GTest CONFIG REQUIRED)
endif()

# fmt: its headers without FMT_HEADER_ONLY, its implementation compiled once in src/core/fmt.cpp (part
# of cktune_core): header-only fmt compiled format-inl.h again in every file that includes fmt (+5 s a
# file at -O3, +14 s under the sanitizers). Nothing to carry to the GPU machine either way; spdlog stays
# header-only (14 files include it).
add_library(cktune_fmt INTERFACE)
get_target_property(_cktune_fmt_includes fmt::fmt-header-only INTERFACE_INCLUDE_DIRECTORIES)
target_include_directories(cktune_fmt INTERFACE ${_cktune_fmt_includes})
set(CKTUNE_FMT_TARGET cktune_fmt)
set(CKTUNE_SPDLOG_TARGET spdlog::spdlog_header_only)
