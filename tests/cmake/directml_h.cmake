# tally/directml.hpp against Microsoft's real DirectML.h (microsoft/DirectX-Headers, MIT),
# at several DML_TARGET_VERSIONs: one program per version (tests/directml/real_header.cpp
# with tally_declarations.cpp), run once (the SIMD variant does not matter here).
#
# TALLY_DIRECTML_INCLUDE_DIR (a cache variable, or the environment variable of that name)
# is the folder holding DirectML.h; else it is searched for (a Windows SDK, a sysroot
# that has one). Nothing is registered without one. The header is never copied into
# this repository: scripts/run-tests.sh and .ci/mingw-wine.sh use
# ../shared/third_party/DirectX-Headers/include/directx when it exists. Under MinGW
# DirectML.h includes the SDK's d3d12.h; elsewhere tests/directml/windows_sdk_stub/
# stands in for the few Windows declarations it needs (DirectML itself is never faked).
find_path(TALLY_DIRECTML_INCLUDE_DIR DirectML.h HINTS ENV TALLY_DIRECTML_INCLUDE_DIR
          DOC "Folder with Microsoft's DirectML.h, for the DirectML.h tests")
if(NOT TALLY_DIRECTML_INCLUDE_DIR)
  message(STATUS "tally: DirectML.h not found (TALLY_DIRECTML_INCLUDE_DIR); the real-header tests are not registered")
  return()
endif()
message(STATUS "tally: DirectML.h tests use ${TALLY_DIRECTML_INCLUDE_DIR}/DirectML.h")

# 0x1000 is the oldest target (no cumulative operators: tally must still compile and
# refuse them); 0x2100 adds the summation, 0x3100 the product, 0x6400 is the newest.
set(TALLY_DIRECTML_TARGET_VERSIONS 0x1000 0x2100 0x3100 0x6400 CACHE STRING "DML_TARGET_VERSIONs the DirectML.h tests build")

# tally's own declarations do not depend on the version: compiled once.
add_library(tally_directml_declarations OBJECT ${CMAKE_CURRENT_SOURCE_DIR}/directml/tally_declarations.cpp)
target_link_libraries(tally_directml_declarations PRIVATE tally::tally tally_warnings tally_test_kernels)

foreach(version IN LISTS TALLY_DIRECTML_TARGET_VERSIONS)
  set(target test_directml_h_${version})
  add_executable(${target} ${CMAKE_CURRENT_SOURCE_DIR}/directml/real_header.cpp
                           $<TARGET_OBJECTS:tally_directml_declarations>)
  target_link_libraries(${target} PRIVATE tally::tally tally_warnings tally_test_main tally_test_kernels)
  # Not DML_TARGET_VERSION itself: tally_declarations.cpp must not see one.
  target_compile_definitions(${target} PRIVATE TALLY_TEST_DML_TARGET_VERSION=${version})
  # SYSTEM: the project's warnings are for tally, not for Microsoft's header.
  target_include_directories(${target} SYSTEM PRIVATE ${TALLY_DIRECTML_INCLUDE_DIR})
  if(WIN32)
    # MinGW-w64's <sal.h> lacks the _Maybenull_ annotation DirectML.h uses.
    if(MINGW)
      target_compile_definitions(${target} PRIVATE _Maybenull_=)
    endif()
  else()
    target_include_directories(${target} SYSTEM PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/directml/windows_sdk_stub)
  endif()
  add_test(NAME directml_h.${version} COMMAND ${target})
  set_tests_properties(directml_h.${version} PROPERTIES LABELS directml_h)
endforeach()
