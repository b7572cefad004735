# Helpers shared by the packaging test scripts (each run with `cmake -P`).
#
# Every script receives, from tests/cmake/packaging.cmake, the parent build's settings so
# that sub-builds use the same toolchain:
#   TALLY_SOURCE_DIR, TALLY_GENERATOR, TALLY_MAKE_PROGRAM, TALLY_CXX_COMPILER,
#   TALLY_CXX_FLAGS, TALLY_EXE_LINKER_FLAGS, TALLY_BUILD_TYPE, TALLY_CTEST_COMMAND,
#   TALLY_PKG_CONFIG (may be empty), TALLY_TOOLCHAIN_FILE (a cross build's, e.g. MinGW's:
#   the consumers are then built for that target and run through its emulator), and with
#   a build type TALLY_CXX_FLAGS_CONFIG and TALLY_EXE_LINKER_FLAGS_CONFIG (that type's flags).
cmake_minimum_required(VERSION 3.16)

set(tally_packaging_dir "${CMAKE_CURRENT_LIST_DIR}")
if(TALLY_BUILD_TYPE)
  set(tally_config "${TALLY_BUILD_TYPE}")
else()
  set(tally_config Release)
endif()

# Cache arguments that give a sub-build the parent's generator, compiler and flags.
set(tally_toolchain_args -G "${TALLY_GENERATOR}"
  "-DCMAKE_CXX_COMPILER=${TALLY_CXX_COMPILER}"
  "-DCMAKE_CXX_FLAGS=${TALLY_CXX_FLAGS}"
  "-DCMAKE_EXE_LINKER_FLAGS=${TALLY_EXE_LINKER_FLAGS}"
  "-DCMAKE_BUILD_TYPE=${TALLY_BUILD_TYPE}")
if(TALLY_BUILD_TYPE)
  string(TOUPPER "${TALLY_BUILD_TYPE}" config_upper)
  list(APPEND tally_toolchain_args "-DCMAKE_CXX_FLAGS_${config_upper}=${TALLY_CXX_FLAGS_CONFIG}"
    "-DCMAKE_EXE_LINKER_FLAGS_${config_upper}=${TALLY_EXE_LINKER_FLAGS_CONFIG}")
endif()
if(TALLY_MAKE_PROGRAM)
  list(APPEND tally_toolchain_args "-DCMAKE_MAKE_PROGRAM=${TALLY_MAKE_PROGRAM}")
endif()
if(TALLY_TOOLCHAIN_FILE)
  list(APPEND tally_toolchain_args "-DCMAKE_TOOLCHAIN_FILE=${TALLY_TOOLCHAIN_FILE}")
endif()

# tally_run(<what> COMMAND <args>... [OUTPUT_VARIABLE <var>]): runs a command and stops
# the test with its output when it fails.
function(tally_run what)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "OUTPUT_VARIABLE" "COMMAND")
  execute_process(COMMAND ${arg_COMMAND} RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT result EQUAL 0)
    string(REPLACE ";" " " command_line "${arg_COMMAND}")
    message(FATAL_ERROR "${what} failed (${result}):\n  ${command_line}\n${out}")
  endif()
  if(arg_OUTPUT_VARIABLE)
    set(${arg_OUTPUT_VARIABLE} "${out}" PARENT_SCOPE)
  endif()
endfunction()

# tally_install_tree(<source> <build> <prefix> [<extra cache args>...]): configures tally
# with its tests, examples and benchmarks off, builds it and installs it into <prefix>.
function(tally_install_tree source build prefix)
  file(REMOVE_RECURSE "${build}" "${prefix}")
  tally_run("configure tally" COMMAND "${CMAKE_COMMAND}" -S "${source}" -B "${build}" ${tally_toolchain_args}
    -DTALLY_BUILD_TESTS=OFF -DTALLY_BUILD_EXAMPLES=OFF -DTALLY_BUILD_BENCHMARKS=OFF
    "-DCMAKE_INSTALL_PREFIX=${prefix}" ${ARGN})
  tally_run("build tally" COMMAND "${CMAKE_COMMAND}" --build "${build}" --config ${tally_config})
  tally_run("install tally" COMMAND "${CMAKE_COMMAND}" --install "${build}" --config ${tally_config})
endfunction()

# tally_consume(<consumer> <build> [PREFIX <p>] [SOURCE <tally source>] [VERSION <v>]
#               [EXPECT_FAILURE <regex>]): configures tests/packaging/<consumer> against
# the package installed in <p> (or tally's source tree), builds it and runs its one test.
# With EXPECT_FAILURE, the configure step must fail with output matching <regex>.
function(tally_consume consumer build)
  cmake_parse_arguments(PARSE_ARGV 2 arg "" "PREFIX;SOURCE;VERSION;EXPECT_FAILURE" "")
  file(REMOVE_RECURSE "${build}")
  set(args)
  if(arg_PREFIX)
    # The prefix is the only place the package may come from; find_package and
    # pkg_check_modules also check that (TALLY_EXPECTED_PREFIX).
    list(APPEND args "-DCMAKE_PREFIX_PATH=${arg_PREFIX}" "-DTALLY_EXPECTED_PREFIX=${arg_PREFIX}")
    if(TALLY_TOOLCHAIN_FILE)
      # A cross build looks for packages only under its find roots (the target's sysroot):
      # the prefix becomes one, as a cross-compiling user would make it.
      list(APPEND args "-DCMAKE_FIND_ROOT_PATH=${arg_PREFIX}")
    endif()
    set(ENV{PKG_CONFIG_PATH} "${arg_PREFIX}/share/pkgconfig")
  endif()
  if(arg_SOURCE)
    list(APPEND args "-DTALLY_SOURCE_DIR=${arg_SOURCE}")
  endif()
  if(arg_VERSION)
    list(APPEND args "-DTALLY_REQUESTED_VERSION=${arg_VERSION}")
  endif()
  set(configure "${CMAKE_COMMAND}" -S "${tally_packaging_dir}/${consumer}" -B "${build}"
    ${tally_toolchain_args} ${args})
  if(arg_EXPECT_FAILURE)
    execute_process(COMMAND ${configure} RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE out)
    if(result EQUAL 0)
      message(FATAL_ERROR "configuring ${consumer} succeeded but must fail:\n${out}")
    endif()
    if(NOT out MATCHES "${arg_EXPECT_FAILURE}")
      message(FATAL_ERROR "configuring ${consumer} failed without matching '${arg_EXPECT_FAILURE}':\n${out}")
    endif()
    return()
  endif()
  tally_run("configure ${consumer}" COMMAND ${configure})
  tally_run("build ${consumer}" COMMAND "${CMAKE_COMMAND}" --build "${build}" --config ${tally_config})
  # Exactly one test: the consumer's own. More would mean tally registered its tests.
  tally_run("list the tests of ${consumer}" COMMAND "${CMAKE_COMMAND}" -E chdir "${build}" "${TALLY_CTEST_COMMAND}" -N
    OUTPUT_VARIABLE listing)
  if(NOT listing MATCHES "Total Tests: 1\n")
    message(FATAL_ERROR "${consumer} must have exactly one test:\n${listing}")
  endif()
  tally_run("run ${consumer}" COMMAND "${CMAKE_COMMAND}" -E chdir "${build}" "${TALLY_CTEST_COMMAND}" -C ${tally_config}
    --output-on-failure OUTPUT_VARIABLE out)
  message(STATUS "${consumer}: passed")
endfunction()

# tally_assert_under(<path> <prefix> <what>): <path> resolves inside <prefix>.
function(tally_assert_under path prefix what)
  file(REAL_PATH "${path}" real_path)
  file(REAL_PATH "${prefix}" real_prefix)
  string(FIND "${real_path}/" "${real_prefix}/" position)
  if(NOT position EQUAL 0)
    message(FATAL_ERROR "${what} (${path}) is not under ${prefix}")
  endif()
endfunction()

# tally_check_no_paths(<dir> <path>...): no file under <dir> mentions any <path> (an
# absolute path baked into an installed file breaks relocation).
function(tally_check_no_paths dir)
  file(GLOB_RECURSE files "${dir}/*")
  foreach(file IN LISTS files)
    file(READ "${file}" contents)
    foreach(path IN LISTS ARGN)
      string(FIND "${contents}" "${path}" position)
      if(NOT position EQUAL -1)
        message(FATAL_ERROR "${file} contains the absolute path ${path}")
      endif()
    endforeach()
  endforeach()
endfunction()

# tally_check_files(<prefix> <relative path>...): each file exists under <prefix>.
function(tally_check_files prefix)
  foreach(file IN LISTS ARGN)
    if(NOT EXISTS "${prefix}/${file}")
      message(FATAL_ERROR "${prefix}/${file} is missing")
    endif()
  endforeach()
endfunction()

# tally_check_pkg_config(<prefix>): without compiling anything, tally.pc found through
# <prefix>/share/pkgconfig points at the headers inside <prefix>.
function(tally_check_pkg_config prefix)
  set(ENV{PKG_CONFIG_PATH} "${prefix}/share/pkgconfig")
  tally_run("pkg-config --variable=includedir" COMMAND "${TALLY_PKG_CONFIG}" --variable=includedir tally
    OUTPUT_VARIABLE includedir)
  string(STRIP "${includedir}" includedir)
  tally_assert_under("${includedir}" "${prefix}" "tally's pkg-config includedir")
  tally_check_files("${includedir}" tally/tally.hpp)
  tally_run("pkg-config --cflags" COMMAND "${TALLY_PKG_CONFIG}" --cflags tally OUTPUT_VARIABLE cflags)
  string(STRIP "${cflags}" cflags)
  if(NOT cflags STREQUAL "-I${includedir} -pthread")
    message(FATAL_ERROR "pkg-config --cflags tally gives '${cflags}'; expected '-I${includedir} -pthread'")
  endif()
endfunction()
