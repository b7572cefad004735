# Packaging tests: tally is installed into a scratch prefix (tests off, as a user or a
# package manager would build it) and tiny consumer projects under tests/packaging/ are
# configured, built and run against it: find_package, add_subdirectory, pkg-config, a
# moved prefix, the version file, and a replay of the vcpkg port. Each sub-build uses
# this build's generator, compiler and flags. Label: packaging (ctest -L / -LE packaging).
set(tally_packaging_source ${PROJECT_SOURCE_DIR}/tests/packaging)
set(tally_packaging_work ${CMAKE_CURRENT_BINARY_DIR}/packaging)
set(tally_packaging_prefix ${tally_packaging_work}/prefix)
set(tally_packaging_build ${tally_packaging_work}/tally-build)
find_program(TALLY_PKG_CONFIG_EXECUTABLE NAMES pkg-config pkgconf)
if(NOT TALLY_PKG_CONFIG_EXECUTABLE)
  message(STATUS "tally packaging tests: pkg-config not found, its tests are skipped")
  set(TALLY_PKG_CONFIG_EXECUTABLE "")
endif()

set(tally_packaging_args
  "-DTALLY_SOURCE_DIR=${PROJECT_SOURCE_DIR}"
  "-DTALLY_GENERATOR=${CMAKE_GENERATOR}"
  "-DTALLY_MAKE_PROGRAM=${CMAKE_MAKE_PROGRAM}"
  "-DTALLY_CXX_COMPILER=${CMAKE_CXX_COMPILER}"
  "-DTALLY_CXX_FLAGS=${CMAKE_CXX_FLAGS}"
  "-DTALLY_EXE_LINKER_FLAGS=${CMAKE_EXE_LINKER_FLAGS}"
  "-DTALLY_BUILD_TYPE=${CMAKE_BUILD_TYPE}"
  "-DTALLY_CTEST_COMMAND=${CMAKE_CTEST_COMMAND}"
  "-DTALLY_PKG_CONFIG=${TALLY_PKG_CONFIG_EXECUTABLE}"
  "-DTALLY_TOOLCHAIN_FILE=${CMAKE_TOOLCHAIN_FILE}")

# A custom build type (e.g. a sanitizer one) only exists in this build: hand its flags on.
if(CMAKE_BUILD_TYPE)
  string(TOUPPER "${CMAKE_BUILD_TYPE}" tally_config_upper)
  list(APPEND tally_packaging_args
    "-DTALLY_CXX_FLAGS_CONFIG=${CMAKE_CXX_FLAGS_${tally_config_upper}}"
    "-DTALLY_EXE_LINKER_FLAGS_CONFIG=${CMAKE_EXE_LINKER_FLAGS_${tally_config_upper}}")
endif()

# tally_add_packaging_test(<name> <script> [FIXTURE] [-D<var>=<value>...]): runs
# tests/packaging/<script>.cmake; FIXTURE makes it wait for the installed prefix.
function(tally_add_packaging_test name script)
  set(defines ${ARGN})
  list(REMOVE_ITEM defines FIXTURE)
  add_test(NAME packaging.${name}
    COMMAND ${CMAKE_COMMAND} ${tally_packaging_args} ${defines} -P ${tally_packaging_source}/${script}.cmake)
  set_tests_properties(packaging.${name} PROPERTIES LABELS packaging TIMEOUT 300)
  if("FIXTURE" IN_LIST ARGN)
    set_tests_properties(packaging.${name} PROPERTIES FIXTURES_REQUIRED tally_installed)
  endif()
endfunction()

tally_add_packaging_test(install install
  "-DBUILD=${tally_packaging_build}" "-DPREFIX=${tally_packaging_prefix}")
set_tests_properties(packaging.install PROPERTIES FIXTURES_SETUP tally_installed)

# find_package(tally 0.1): the same major version is accepted (no version: relocated, vcpkg_replay).
tally_add_packaging_test(find_package consume FIXTURE
  -DCONSUMER=find_package "-DBUILD=${tally_packaging_work}/find_package" "-DPREFIX=${tally_packaging_prefix}"
  -DVERSION=0.1)
tally_add_packaging_test(find_package_other_major_rejected consume FIXTURE
  -DCONSUMER=find_package "-DBUILD=${tally_packaging_work}/find_package_1_0" "-DPREFIX=${tally_packaging_prefix}"
  -DVERSION=1.0 "-DEXPECT_FAILURE=compatible.+requested.+version.+1[.]0")
tally_add_packaging_test(version_file version_file FIXTURE "-DPREFIX=${tally_packaging_prefix}")
tally_add_packaging_test(relocated relocate FIXTURE
  "-DBUILD=${tally_packaging_build}" "-DWORK=${tally_packaging_work}/relocated")
tally_add_packaging_test(add_subdirectory consume
  -DCONSUMER=add_subdirectory "-DBUILD=${tally_packaging_work}/add_subdirectory" "-DSOURCE=${PROJECT_SOURCE_DIR}")
if(TALLY_PKG_CONFIG_EXECUTABLE)
  tally_add_packaging_test(pkg_config_cmake consume FIXTURE
    -DCONSUMER=pkg_config "-DBUILD=${tally_packaging_work}/pkg_config" "-DPREFIX=${tally_packaging_prefix}")
  tally_add_packaging_test(pkg_config_command pkg_config_command FIXTURE
    "-DBUILD=${tally_packaging_work}/pkg_config_command" "-DPREFIX=${tally_packaging_prefix}")
endif()
tally_add_packaging_test(vcpkg_replay vcpkg_replay "-DWORK=${tally_packaging_work}/vcpkg")

# Every public entity has a Doxygen comment: Doxygen, when installed, must not warn.
if(TARGET tally_docs)
  add_test(NAME docs.doxygen_warnings
    COMMAND ${CMAKE_COMMAND} ${tally_packaging_args} "-DDOXYGEN=$<TARGET_FILE:Doxygen::doxygen>"
            "-DDOXYFILE=${PROJECT_BINARY_DIR}/docs/Doxyfile" "-DWORK=${CMAKE_CURRENT_BINARY_DIR}/doxygen"
            -P ${tally_packaging_source}/doxygen_warnings.cmake)
  set_tests_properties(docs.doxygen_warnings PROPERTIES LABELS docs TIMEOUT 300)
endif()
