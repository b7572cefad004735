# Builds consumer.cpp with a plain compiler command, the flags coming from
# `pkg-config --cflags/--libs tally` against PREFIX, as a Makefile user would.
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")

set(ENV{PKG_CONFIG_PATH} "${PREFIX}/share/pkgconfig")
foreach(query cflags libs modversion)
  tally_run("pkg-config --${query}" COMMAND "${TALLY_PKG_CONFIG}" --${query} tally OUTPUT_VARIABLE ${query})
  string(STRIP "${${query}}" ${query})
endforeach()
tally_check_pkg_config("${PREFIX}")

separate_arguments(cflags UNIX_COMMAND "${cflags}")
separate_arguments(libs UNIX_COMMAND "${libs}")
separate_arguments(cxx_flags UNIX_COMMAND "${TALLY_CXX_FLAGS} ${TALLY_CXX_FLAGS_CONFIG}")
separate_arguments(linker_flags UNIX_COMMAND "${TALLY_EXE_LINKER_FLAGS} ${TALLY_EXE_LINKER_FLAGS_CONFIG}")
file(REMOVE_RECURSE "${BUILD}")
file(MAKE_DIRECTORY "${BUILD}")
tally_run("compile with pkg-config flags" COMMAND "${TALLY_CXX_COMPILER}" ${cxx_flags} -std=c++17
  -Wall -Wextra -Wpedantic -Werror ${cflags} "-DTALLY_EXPECTED_VERSION=\"${modversion}\""
  "${tally_packaging_dir}/consumer.cpp" -o "${BUILD}/consumer" ${linker_flags} ${libs})
tally_run("run the pkg-config consumer" COMMAND "${BUILD}/consumer" OUTPUT_VARIABLE out)
message(STATUS "${out}")
