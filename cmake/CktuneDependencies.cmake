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
      INTERFACE_INCLUDE_DIRECTORIES "${RE2_INCLUDE_DIRS}"
      INTERFACE_LINK_LIBRARIES Threads::Threads)
  else()
    add_library(re2::re2 ALIAS PkgConfig::RE2)
  endif()
endif()

if(CKTUNE_BUILD_TESTS)
  find_package(GTest CONFIG REQUIRED)
endif()

# fmt and spdlog header-only: nothing to carry to the GPU machine.
set(CKTUNE_FMT_TARGET fmt::fmt-header-only)
set(CKTUNE_SPDLOG_TARGET spdlog::spdlog_header_only)
