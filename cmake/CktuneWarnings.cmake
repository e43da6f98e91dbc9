# One INTERFACE target carries warnings and language settings for every cktune target.
add_library(cktune_warnings INTERFACE)
target_compile_options(cktune_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wcast-align -Woverloaded-virtual -Wnull-dereference>)
target_compile_features(cktune_warnings INTERFACE cxx_std_20)

# GCC 12 false positive: constructing a std::string from std::istreambuf_iterator inlines
# basic_streambuf::egptr()/gptr() and warns "potential null pointer dereference" inside libstdc++
# (GCC PR 105580, fixed in GCC 13): src/core/io.cpp and src/core/lock.cpp (/proc/self/cmdline). The same -O3 null-path analysis flags std::string's copy inside
# std::vector<std::pair<...>>::emplace_back's reallocation in src/tune/tuner.cpp (tuned_row), where both
# pointers come from live objects. Only those files lose the warning, and only on GCC < 13;
# src/CMakeLists.txt calls this after it declares its sources, tests/CMakeLists.txt after its own.
function(cktune_gcc12_workarounds)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    if(CMAKE_CURRENT_SOURCE_DIR STREQUAL "${PROJECT_SOURCE_DIR}/src")
      set_source_files_properties(${PROJECT_SOURCE_DIR}/src/core/io.cpp ${PROJECT_SOURCE_DIR}/src/core/lock.cpp
        ${PROJECT_SOURCE_DIR}/src/tune/tuner.cpp PROPERTIES COMPILE_OPTIONS -Wno-null-dereference)
    elseif(CMAKE_CURRENT_SOURCE_DIR STREQUAL "${PROJECT_SOURCE_DIR}/tests")
      # The same PR 105580 pattern (a file read into a std::string) in two test files, and in a third
      # GCC 12's -Wrestrict false positive on an inlined std::string insert (PR 105329).
      set_source_files_properties(${PROJECT_SOURCE_DIR}/tests/unit/core/io_test.cpp
        ${PROJECT_SOURCE_DIR}/tests/unit/core/lock_test.cpp PROPERTIES COMPILE_OPTIONS -Wno-null-dereference)
      set_source_files_properties(${PROJECT_SOURCE_DIR}/tests/unit/formats/table_test.cpp
        PROPERTIES COMPILE_OPTIONS -Wno-restrict)
    endif()
  endif()
endfunction()
