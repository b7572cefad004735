# Installs tally from an existing build tree (BUILD) into one prefix, moves the whole
# prefix elsewhere, and consumes it from the new place through CMake and pkg-config:
# nothing in the package may remember where it was installed.
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")

file(REMOVE_RECURSE "${WORK}")
tally_run("install tally" COMMAND "${CMAKE_COMMAND}" --install "${BUILD}" --config ${tally_config}
  --prefix "${WORK}/installed-here")
file(MAKE_DIRECTORY "${WORK}/elsewhere")
file(RENAME "${WORK}/installed-here" "${WORK}/elsewhere/moved")
set(moved "${WORK}/elsewhere/moved")

tally_consume(find_package "${WORK}/find_package" PREFIX "${moved}")
if(TALLY_PKG_CONFIG)
  tally_check_pkg_config("${moved}")
endif()
