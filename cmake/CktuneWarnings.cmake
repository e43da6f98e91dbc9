# One INTERFACE target carries warnings and language settings for every cktune target.
add_library(cktune_warnings INTERFACE)
target_compile_options(cktune_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wcast-align -Woverloaded-virtual -Wnull-dereference>)
target_compile_features(cktune_warnings INTERFACE cxx_std_20)
