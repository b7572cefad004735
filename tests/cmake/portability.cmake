# Portability of the headers (issue 12, docs/platforms.md). Label: portability.
#
# check_include.sh greps include/ for what breaks other compilers or <windows.h>: compiler-
# specific spellings outside detail/config.hpp, unprotected min/max calls, %zu-style
# formats. Its self-test proves that each rule reports a sample violation.
find_program(TALLY_BASH NAMES bash)
if(TALLY_BASH)
  add_test(NAME portability.check_include
           COMMAND ${TALLY_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/portability/check_include.sh ${PROJECT_SOURCE_DIR}/include)
  add_test(NAME portability.check_include_self_test
           COMMAND ${TALLY_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/portability/check_include.sh --self-test)
  set_tests_properties(portability.check_include portability.check_include_self_test PROPERTIES LABELS portability)
else()
  message(STATUS "tally: bash not found; the include/ portability check is not registered")
endif()

# tally without threads (TALLY_NO_THREADS): portability/no_threads.cpp, and
# test_threads_and_chunks.cpp, whose every thread count and host hook must give the same
# bits with the tasks run inline or on the hook. Once, not per SIMD variant: the
# threading does not depend on it.
add_executable(test_no_threads ${CMAKE_CURRENT_SOURCE_DIR}/portability/no_threads.cpp
                               ${CMAKE_CURRENT_SOURCE_DIR}/test_threads_and_chunks.cpp)
target_link_libraries(test_no_threads PRIVATE tally::tally tally_warnings tally_test_main)
target_compile_definitions(test_no_threads PRIVATE TALLY_NO_THREADS=1)
# Unoptimized: what it tests is the control flow without threads, and the optimized
# kernels are the other programs' (GCC 12: 33 s to compile against 173 s at -O2; it then
# runs in 7 s against 1). It cannot share their compiled kernels: those have threads.
target_compile_options(test_no_threads PRIVATE $<$<CXX_COMPILER_ID:GNU,Clang,AppleClang>:-O0>)
add_test(NAME portability.no_threads COMMAND test_no_threads)
set_tests_properties(portability.no_threads PROPERTIES LABELS portability)
