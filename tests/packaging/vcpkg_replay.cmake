# Replays ports/tally/portfile.cmake without vcpkg: the vcpkg helpers the portfile calls
# are defined here as small stand-ins that do what vcpkg does for this port (configure
# and install one release build into the package folder, move the CMake package to
# share/<port> and correct its relative paths, make .pc files relative, install the
# copyright). Then vcpkg's post-build checks that apply to a header-only port are run,
# the package is copied into an "installed" tree, and consumed from there.
# Inputs (besides common.cmake's): WORK, a scratch folder.
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")

file(REMOVE_RECURSE "${WORK}")
set(PORT tally)
set(TARGET_TRIPLET x64-linux)
set(VCPKG_TARGET_IS_LINUX ON)
set(CURRENT_PACKAGES_DIR "${WORK}/packages/${PORT}_${TARGET_TRIPLET}")
set(CURRENT_BUILDTREES_DIR "${WORK}/buildtrees/${PORT}")
set(CURRENT_INSTALLED_DIR "${WORK}/installed/${TARGET_TRIPLET}")
set(tally_port_dir "${TALLY_SOURCE_DIR}/ports/${PORT}")
file(READ "${tally_port_dir}/vcpkg.json" manifest)
string(JSON VERSION GET "${manifest}" version)

# --- stand-ins for vcpkg's helpers ------------------------------------------------------

function(vcpkg_cmake_configure)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "SOURCE_PATH" "OPTIONS;OPTIONS_RELEASE;OPTIONS_DEBUG")
  if(NOT VCPKG_BUILD_TYPE STREQUAL "release")
    message(FATAL_ERROR "a header-only port must set(VCPKG_BUILD_TYPE release) before configuring")
  endif()
  set(build "${CURRENT_BUILDTREES_DIR}/${TARGET_TRIPLET}-rel")
  # The cache entries vcpkg_cmake_configure itself passes that matter to this build.
  set(command "${CMAKE_COMMAND}" -S "${arg_SOURCE_PATH}" -B "${build}" ${tally_toolchain_args}
    -DCMAKE_BUILD_TYPE=Release "-DCMAKE_INSTALL_PREFIX=${CURRENT_PACKAGES_DIR}"
    -DCMAKE_INSTALL_BINDIR=bin -DCMAKE_INSTALL_LIBDIR=lib
    -DCMAKE_EXPORT_NO_PACKAGE_REGISTRY=ON -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON
    -DFETCHCONTENT_FULLY_DISCONNECTED=ON
    ${arg_OPTIONS} ${arg_OPTIONS_RELEASE})
  tally_run("vcpkg_cmake_configure" COMMAND ${command} OUTPUT_VARIABLE out)
  # vcpkg reports port options the project never reads: they are dead settings.
  foreach(option IN LISTS arg_OPTIONS arg_OPTIONS_RELEASE)
    if(option MATCHES "^-D([A-Za-z0-9_]+)")
      set(name "${CMAKE_MATCH_1}")
      if(out MATCHES "not used by the project:[^\n]*\n([ \t]*[A-Za-z0-9_]+\n)*[ \t]*${name}\n")
        message(FATAL_ERROR "the port passes ${name}, which tally does not use:\n${out}")
      endif()
    endif()
  endforeach()
  set_property(GLOBAL PROPERTY tally_replay_build "${build}")
endfunction()

function(vcpkg_cmake_install)
  get_property(build GLOBAL PROPERTY tally_replay_build)
  if(NOT build)
    message(FATAL_ERROR "vcpkg_cmake_install before vcpkg_cmake_configure")
  endif()
  tally_run("vcpkg_cmake_install" COMMAND "${CMAKE_COMMAND}" --build "${build}" --config Release --target install)
endfunction()

function(vcpkg_cmake_config_fixup)
  cmake_parse_arguments(PARSE_ARGV 0 arg "DO_NOT_DELETE_PARENT_CONFIG_PATH;NO_PREFIX_CORRECTION"
                        "PACKAGE_NAME;CONFIG_PATH" "")
  if(NOT arg_PACKAGE_NAME)
    set(arg_PACKAGE_NAME "${PORT}")
  endif()
  if(NOT arg_CONFIG_PATH)
    set(arg_CONFIG_PATH "share/${arg_PACKAGE_NAME}")
  endif()
  set(from "${CURRENT_PACKAGES_DIR}/${arg_CONFIG_PATH}")
  set(to "${CURRENT_PACKAGES_DIR}/share/${arg_PACKAGE_NAME}")
  if(NOT EXISTS "${from}")
    message(FATAL_ERROR "vcpkg_cmake_config_fixup: '${from}' does not exist (CONFIG_PATH does not match the install)")
  endif()
  if(NOT from STREQUAL to)
    file(GLOB files "${from}/*")
    file(COPY ${files} DESTINATION "${to}")
    file(REMOVE_RECURSE "${from}")
    # An emptied parent folder named cmake goes too (share/cmake).
    get_filename_component(parent "${from}" DIRECTORY)
    get_filename_component(parent_name "${parent}" NAME)
    string(TOLOWER "${parent_name}" parent_name)
    if(parent_name STREQUAL "cmake" AND NOT arg_DO_NOT_DELETE_PARENT_CONFIG_PATH)
      file(REMOVE_RECURSE "${parent}")
    endif()
  endif()
  # The files now sit two levels below the prefix (share/<name>): vcpkg rewrites the
  # generated prefix computations to climb exactly two levels.
  file(GLOB_RECURSE cmake_files "${to}/*.cmake")
  foreach(file IN LISTS cmake_files)
    file(READ "${file}" contents)
    if(NOT arg_NO_PREFIX_CORRECTION)
      string(REGEX REPLACE
        "get_filename_component\\(_IMPORT_PREFIX \"\\\${CMAKE_CURRENT_LIST_FILE}\" PATH\\)(\nget_filename_component\\(_IMPORT_PREFIX \"\\\${_IMPORT_PREFIX}\" PATH\\))*"
        "get_filename_component(_IMPORT_PREFIX \"\${CMAKE_CURRENT_LIST_FILE}\" PATH)\nget_filename_component(_IMPORT_PREFIX \"\${_IMPORT_PREFIX}\" PATH)\nget_filename_component(_IMPORT_PREFIX \"\${_IMPORT_PREFIX}\" PATH)"
        contents "${contents}")
      string(REGEX REPLACE
        "get_filename_component\\(PACKAGE_PREFIX_DIR \"\\\${CMAKE_CURRENT_LIST_DIR}/\\.\\./(\\.\\./)*\" ABSOLUTE\\)"
        "get_filename_component(PACKAGE_PREFIX_DIR \"\${CMAKE_CURRENT_LIST_DIR}/../../\" ABSOLUTE)"
        contents "${contents}")
    endif()
    string(REPLACE "${CURRENT_INSTALLED_DIR}" "\${_IMPORT_PREFIX}" contents "${contents}")
    string(REPLACE "${CURRENT_PACKAGES_DIR}" "\${_IMPORT_PREFIX}" contents "${contents}")
    file(WRITE "${file}" "${contents}")
  endforeach()
endfunction()

function(vcpkg_fixup_pkgconfig)
  file(GLOB_RECURSE pc_files "${CURRENT_PACKAGES_DIR}/*.pc")
  foreach(file IN LISTS pc_files)
    string(FIND "${file}" "${CURRENT_PACKAGES_DIR}/debug/" position)
    if(position EQUAL 0)
      continue()
    endif()
    get_filename_component(dir "${file}" DIRECTORY)
    file(RELATIVE_PATH up "${dir}" "${CURRENT_PACKAGES_DIR}")
    string(REGEX REPLACE "/$" "" up "${up}")
    file(READ "${file}" contents)
    string(REPLACE "${CURRENT_PACKAGES_DIR}" "\${prefix}" contents "${contents}")
    string(REGEX REPLACE "(^|\n)prefix=\\\${prefix}" "\\1prefix=\${pcfiledir}/${up}" contents "${contents}")
    file(WRITE "${file}" "${contents}")
  endforeach()
endfunction()

function(vcpkg_install_copyright)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "" "FILE_LIST")
  set(text "")
  foreach(file IN LISTS arg_FILE_LIST)
    if(NOT EXISTS "${file}")
      message(FATAL_ERROR "vcpkg_install_copyright: ${file} does not exist")
    endif()
    file(READ "${file}" contents)
    string(APPEND text "${contents}")
  endforeach()
  file(WRITE "${CURRENT_PACKAGES_DIR}/share/${PORT}/copyright" "${text}")
endfunction()

# --- the port itself ---------------------------------------------------------------------

include("${tally_port_dir}/portfile.cmake")

# --- vcpkg's post-build checks that apply to a header-only port ---------------------------

tally_check_files("${CURRENT_PACKAGES_DIR}"
  include/tally/tally.hpp share/${PORT}/copyright share/${PORT}/usage
  share/${PORT}/tallyConfig.cmake share/${PORT}/tallyConfigVersion.cmake share/${PORT}/tallyTargets.cmake
  share/pkgconfig/tally.pc)
foreach(dir debug lib bin share/cmake share/doc)
  if(EXISTS "${CURRENT_PACKAGES_DIR}/${dir}")
    message(FATAL_ERROR "the port leaves ${dir}/ in the package")
  endif()
endforeach()
file(READ "${CURRENT_PACKAGES_DIR}/share/${PORT}/copyright" copyright)
if(NOT copyright MATCHES "MIT License")
  message(FATAL_ERROR "share/${PORT}/copyright is not tally's license")
endif()
tally_check_no_paths("${CURRENT_PACKAGES_DIR}" "${CURRENT_PACKAGES_DIR}" "${CURRENT_BUILDTREES_DIR}"
  "${TALLY_SOURCE_DIR}")
# A .pc file may sit in share/pkgconfig (architecture independent) only if it has no
# Libs or Libs.private value; vcpkg's misplaced-pkgconfig check enforces this.
file(GLOB pc_files "${CURRENT_PACKAGES_DIR}/share/pkgconfig/*.pc")
foreach(file IN LISTS pc_files)
  file(STRINGS "${file}" libs_lines REGEX "^Libs(\\.private)?:[ \t]*[^ \t]")
  if(libs_lines)
    message(FATAL_ERROR "${file} is in share/pkgconfig but links something: ${libs_lines}")
  endif()
endforeach()
# The port and the project agree on the version.
file(READ "${CURRENT_PACKAGES_DIR}/share/${PORT}/tallyConfigVersion.cmake" version_file)
if(NOT version_file MATCHES "set\\(PACKAGE_VERSION \"${VERSION}\"\\)")
  message(FATAL_ERROR "ports/tally/vcpkg.json says ${VERSION}; the installed package says otherwise")
endif()

# --- "vcpkg install": the package is copied into the installed tree, then used -----------

file(MAKE_DIRECTORY "${CURRENT_INSTALLED_DIR}")
file(GLOB package_contents "${CURRENT_PACKAGES_DIR}/*")
file(COPY ${package_contents} DESTINATION "${CURRENT_INSTALLED_DIR}")
tally_consume(find_package "${WORK}/find_package" PREFIX "${CURRENT_INSTALLED_DIR}")
if(TALLY_PKG_CONFIG)
  tally_check_pkg_config("${CURRENT_INSTALLED_DIR}")
endif()
