# The scan vocabulary against NumPy (tests/test_numpy_vocabulary.py over
# tests/numpy_vocabulary_bridge.cpp): cumsum/cumprod with dtype=, include_initial,
# nancumsum/nancumprod, complex. Uses the Python and the sanitizer environment that
# numpy.cmake found; registers nothing when numpy.cmake did not register its test.
if(NOT TARGET tally_numpy_bridge)
  return()
endif()

add_library(tally_numpy_vocabulary_bridge MODULE ${CMAKE_CURRENT_SOURCE_DIR}/numpy_vocabulary_bridge.cpp)
target_link_libraries(tally_numpy_vocabulary_bridge PRIVATE tally::tally tally_warnings tally_test_kernels)
set_target_properties(tally_numpy_vocabulary_bridge PROPERTIES CXX_VISIBILITY_PRESET hidden PREFIX "")
if(CMAKE_CXX_FLAGS MATCHES "-fsanitize=[^ ]*address" AND NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  target_link_options(tally_numpy_vocabulary_bridge PRIVATE -shared-libsan)
endif()

# The engine of these functions does not depend on the SIMD variant except for same-type
# cumsum/cumprod with include_initial: run under each variant like the other tests.
foreach(variant IN LISTS TALLY_TEST_SIMD_VARIANTS)
  add_test(NAME numpy_vocabulary.${variant}
           COMMAND ${tally_numpy_python} ${CMAKE_CURRENT_SOURCE_DIR}/test_numpy_vocabulary.py
                   $<TARGET_FILE:tally_numpy_vocabulary_bridge>)
  set(tally_numpy_vocabulary_environment ${tally_numpy_environment})
  if(NOT variant STREQUAL "native")
    list(APPEND tally_numpy_vocabulary_environment "TALLY_SIMD=${variant}")
  endif()
  if(tally_numpy_vocabulary_environment)
    set_tests_properties(numpy_vocabulary.${variant} PROPERTIES ENVIRONMENT "${tally_numpy_vocabulary_environment}")
  endif()
endforeach()
