# Loads the installed tallyConfigVersion.cmake the way find_package does and checks its
# answers: SameMajorVersion, and ARCH_INDEPENDENT (a 32-bit consumer accepts the package
# installed by a 64-bit build).
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")

# CMake's ARCH_INDEPENDENT file still contains the pointer-size comparison, behind an
# early return(), so the check is what the file answers, not what it contains.
set(version_file "${PREFIX}/share/cmake/tally/tallyConfigVersion.cmake")

# What the version file answers for a request of <version> from a consumer whose
# pointers have <pointer_size> bytes: unsuitable, exact, compatible or incompatible.
function(probe version pointer_size out)
  set(PACKAGE_FIND_NAME tally)
  set(PACKAGE_FIND_VERSION ${version})
  string(REPLACE "." ";" parts "${version}")
  list(LENGTH parts PACKAGE_FIND_VERSION_COUNT)
  list(APPEND parts 0 0 0)
  list(GET parts 0 PACKAGE_FIND_VERSION_MAJOR)
  list(GET parts 1 PACKAGE_FIND_VERSION_MINOR)
  list(GET parts 2 PACKAGE_FIND_VERSION_PATCH)
  set(CMAKE_SIZEOF_VOID_P ${pointer_size})
  include("${version_file}")
  if(PACKAGE_VERSION_UNSUITABLE)
    set(${out} unsuitable PARENT_SCOPE)
  elseif(PACKAGE_VERSION_EXACT)
    set(${out} exact PARENT_SCOPE)
  elseif(PACKAGE_VERSION_COMPATIBLE)
    set(${out} compatible PARENT_SCOPE)
  else()
    set(${out} incompatible PARENT_SCOPE)
  endif()
endfunction()

# Expected answers follow from the installed version (0.1.0 now) and SameMajorVersion:
# same major and not newer than installed is compatible; a different major never is.
file(STRINGS "${PREFIX}/include/tally/version.hpp" lines REGEX "#define TALLY_VERSION_(MAJOR|MINOR|PATCH) ")
foreach(line IN LISTS lines)
  if(line MATCHES "TALLY_VERSION_([A-Z]+) ([0-9]+)")
    set(${CMAKE_MATCH_1} ${CMAKE_MATCH_2})
  endif()
endforeach()
math(EXPR next_major "${MAJOR} + 1")
math(EXPR next_minor "${MINOR} + 1")
set(cases
  "${MAJOR}.${MINOR}.${PATCH}|exact"
  "${MAJOR}.${MINOR}|compatible"
  "${MAJOR}|compatible"
  "${MAJOR}.${next_minor}|incompatible"
  "${next_major}.0|incompatible")
if(MINOR GREATER 0)
  math(EXPR previous_minor "${MINOR} - 1")
  list(APPEND cases "${MAJOR}.${previous_minor}|compatible")
endif()
foreach(case IN LISTS cases)
  string(REPLACE "|" ";" case "${case}")
  list(GET case 0 version)
  list(GET case 1 expected)
  foreach(pointer_size 4 8)
    probe(${version} ${pointer_size} answer)
    if(NOT answer STREQUAL expected)
      message(FATAL_ERROR "tally ${MAJOR}.${MINOR}.${PATCH} asked for ${version} with ${pointer_size}-byte pointers "
                          "answers ${answer}; expected ${expected}")
    endif()
  endforeach()
endforeach()
message(STATUS "version file: ${MAJOR}.${MINOR}.${PATCH}, ${cases}")
