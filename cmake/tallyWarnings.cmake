# Warnings as errors for the project's own targets only (tests, examples, benchmarks):
# tally_warnings is linked PRIVATE by them and never by the tally INTERFACE target, so
# nothing here reaches a user's target.
add_library(tally_warnings INTERFACE)
if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang" AND NOT CMAKE_CXX_SIMULATE_ID STREQUAL "MSVC")
  target_compile_options(tally_warnings INTERFACE -Wall -Wextra -Wpedantic -Werror)
elseif(MSVC)
  # MSVC and clang-cl. /permissive- for standard conformance (two-phase lookup among
  # others). /Zc:__cplusplus is not needed: tally never reads __cplusplus.
  target_compile_options(tally_warnings INTERFACE /W4 /WX /permissive-)
endif()
