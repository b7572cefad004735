# NumPy as an independent reference: a small shared library exposes tally's typed layer
# through a C function (tests/numpy_bridge.cpp) and tests/test_numpy.py drives it with
# ctypes, comparing thousands of random strided, overlapping views with np.cumsum/cumprod.
#
# It needs a Python 3 that can import numpy. Debian's python3-numpy installs for
# /usr/bin/python3, which is tried first (a pyenv or venv python3 earlier on PATH often
# lacks numpy); TALLY_NUMPY_PYTHON picks another one. Without one, nothing is registered.

set(TALLY_NUMPY_PYTHON "" CACHE FILEPATH "Python 3 with numpy for the NumPy comparison test (empty: search)")

# The host's Python cannot load a module built for another target (a MinGW DLL, an
# aarch64 .so): cross builds leave this test to the native ones.
if(CMAKE_CROSSCOMPILING)
  message(STATUS "tally: cross-compiling; the NumPy comparison test is not registered")
  return()
endif()

set(tally_numpy_candidates ${TALLY_NUMPY_PYTHON} /usr/bin/python3)
find_program(tally_numpy_path_python NAMES python3 NO_CACHE)
if(tally_numpy_path_python)
  list(APPEND tally_numpy_candidates ${tally_numpy_path_python})
endif()

set(tally_numpy_python "")
foreach(candidate IN LISTS tally_numpy_candidates)
  if(EXISTS "${candidate}")
    execute_process(COMMAND "${candidate}" -c "import sys, numpy; sys.exit(sys.version_info[0] != 3)"
                    RESULT_VARIABLE tally_numpy_rc OUTPUT_QUIET ERROR_QUIET)
    if(tally_numpy_rc EQUAL 0)
      set(tally_numpy_python "${candidate}")
      break()
    endif()
  endif()
endforeach()

if(NOT tally_numpy_python)
  message(STATUS "tally: no Python 3 with numpy found (tried: ${tally_numpy_candidates}); "
                 "the NumPy comparison test is not registered (apt-get install python3-numpy)")
  return()
endif()
message(STATUS "tally: NumPy comparison test uses ${tally_numpy_python}")

# MODULE: loaded with dlopen by ctypes, never linked against.
add_library(tally_numpy_bridge MODULE ${CMAKE_CURRENT_SOURCE_DIR}/numpy_bridge.cpp)
target_link_libraries(tally_numpy_bridge PRIVATE tally::tally tally_warnings tally_test_kernels)
set_target_properties(tally_numpy_bridge PROPERTIES CXX_VISIBILITY_PRESET hidden PREFIX "")

# A sanitized bridge inside an unsanitized python needs the ASan runtime loaded first.
# (CPython itself leaks by design, so leak checking is off for this test.)
set(tally_numpy_environment "")
if(CMAKE_CXX_FLAGS MATCHES "-fsanitize=[^ ]*address")
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    set(tally_numpy_asan_name libasan.so)
  else()
    set(tally_numpy_asan_name libclang_rt.asan-${CMAKE_SYSTEM_PROCESSOR}.so)
  endif()
  execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=${tally_numpy_asan_name}
                  OUTPUT_VARIABLE tally_numpy_asan OUTPUT_STRIP_TRAILING_WHITESPACE)
  # The C++ runtime too: ASan resolves its __cxa_throw interceptor at start-up, and python
  # itself does not load libstdc++, so without it the first exception aborts.
  execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libstdc++.so.6
                  OUTPUT_VARIABLE tally_numpy_cxx_runtime OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(IS_ABSOLUTE "${tally_numpy_asan}" AND EXISTS "${tally_numpy_asan}" AND EXISTS "${tally_numpy_cxx_runtime}")
    list(APPEND tally_numpy_environment "LD_PRELOAD=${tally_numpy_asan}:${tally_numpy_cxx_runtime}"
         "ASAN_OPTIONS=detect_leaks=0")
  else()
    message(STATUS "tally: ASan runtime ${tally_numpy_asan_name} not found; the NumPy test is not registered")
    return()
  endif()
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    # Clang links sanitizer runtimes into executables only; the module takes them from the preload.
    target_link_options(tally_numpy_bridge PRIVATE -shared-libsan)
  endif()
endif()

foreach(variant IN LISTS TALLY_TEST_SIMD_VARIANTS)
  add_test(NAME numpy.${variant}
           COMMAND ${tally_numpy_python} ${CMAKE_CURRENT_SOURCE_DIR}/test_numpy.py $<TARGET_FILE:tally_numpy_bridge>)
  set(tally_numpy_test_environment ${tally_numpy_environment})
  if(NOT variant STREQUAL "native")
    list(APPEND tally_numpy_test_environment "TALLY_SIMD=${variant}")
  endif()
  if(tally_numpy_test_environment)
    set_tests_properties(numpy.${variant} PROPERTIES ENVIRONMENT "${tally_numpy_test_environment}")
  endif()
endforeach()
