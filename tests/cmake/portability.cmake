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
