# Warnings as errors for the project's own targets only; never put on the INTERFACE target.
add_library(tally_warnings INTERFACE)
if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
  target_compile_options(tally_warnings INTERFACE -Wall -Wextra -Wpedantic -Werror)
elseif(MSVC)
  target_compile_options(tally_warnings INTERFACE /W4 /WX)
endif()
