# What `cktune --version` names besides the version: the GPU backend and the source revision (git
# describe when configured from a git checkout, "unknown" otherwise). Written to a generated header that
# only src/cli/app.cpp includes, so a new revision rebuilds one file. The device code targets come from
# the CKTUNE_GPU_ARCHS definition src/gpu/CMakeLists.txt gives cktune_core (what discover reports too).
if(CKTUNE_GPU_RESOLVED STREQUAL "cuda" OR CKTUNE_GPU_RESOLVED STREQUAL "hip")
  set(CKTUNE_BUILD_BACKEND ${CKTUNE_GPU_RESOLVED})
else()
  set(CKTUNE_BUILD_BACKEND cpu)
endif()
set(CKTUNE_REVISION "unknown")
find_package(Git QUIET)
if(GIT_FOUND AND EXISTS "${PROJECT_SOURCE_DIR}/.git")
  execute_process(COMMAND "${GIT_EXECUTABLE}" describe --always --dirty --tags
    WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}" OUTPUT_VARIABLE _cktune_describe
    OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE _cktune_git_rc)
  if(_cktune_git_rc EQUAL 0 AND NOT _cktune_describe STREQUAL "")
    set(CKTUNE_REVISION "${_cktune_describe}")
  endif()
endif()
message(STATUS "cktune build: backend ${CKTUNE_BUILD_BACKEND}, revision ${CKTUNE_REVISION}")
configure_file("${PROJECT_SOURCE_DIR}/cmake/cktune_build_info.hpp.in"
  "${PROJECT_BINARY_DIR}/generated/cktune_build_info.hpp" @ONLY)
