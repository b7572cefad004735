# Builds tally from its source tree with tests off and installs it into PREFIX (using
# BUILD as the build tree); the other packaging tests consume that install.
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")

tally_install_tree("${TALLY_SOURCE_DIR}" "${BUILD}" "${PREFIX}")

# tally's own tests and examples were not configured.
foreach(dir tests examples)
  if(EXISTS "${BUILD}/${dir}")
    message(FATAL_ERROR "tally configured ${dir}/ although TALLY_BUILD_TESTS/EXAMPLES are OFF")
  endif()
endforeach()

tally_check_files("${PREFIX}"
  include/tally/tally.hpp include/tally/version.hpp
  share/cmake/tally/tallyConfig.cmake share/cmake/tally/tallyConfigVersion.cmake
  share/cmake/tally/tallyTargets.cmake share/pkgconfig/tally.pc share/doc/tally/LICENSE)
# Header-only and architecture independent: nothing may land in lib/ or bin/.
foreach(dir lib lib64 bin)
  if(EXISTS "${PREFIX}/${dir}")
    message(FATAL_ERROR "the install created ${PREFIX}/${dir}; a header-only package lives in include/ and share/")
  endif()
endforeach()
tally_check_no_paths("${PREFIX}" "${PREFIX}" "${BUILD}" "${TALLY_SOURCE_DIR}")
