# Install rules for tally: headers, the exported CMake package (share/cmake/tally) and a
# pkg-config file (share/pkgconfig/tally.pc). Included by the root CMakeLists.txt when
# TALLY_INSTALL is ON. Why each choice is made: docs/packaging.md.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# INCLUDES DESTINATION puts <prefix>/include on the exported target: the generator
# expression in the root CMakeLists is evaluated before GNUInstallDirs has defined
# CMAKE_INSTALL_INCLUDEDIR on a first configure, so it cannot be relied on alone.
install(TARGETS tally EXPORT tallyTargets INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR})

# Header-only: everything lives under share/ (DATADIR), never lib/, so one install
# serves every architecture and vcpkg's lib-free header-only layout.
set(TALLY_CMAKE_DIR ${CMAKE_INSTALL_DATADIR}/cmake/tally)
install(EXPORT tallyTargets NAMESPACE tally:: DESTINATION ${TALLY_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/tallyConfig.cmake.in
  ${PROJECT_BINARY_DIR}/tallyConfig.cmake
  INSTALL_DESTINATION ${TALLY_CMAKE_DIR})
# A header-only library has no architecture: the version file must not check pointer size.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/tallyConfigVersion.cmake
  COMPATIBILITY SameMajorVersion ARCH_INDEPENDENT)
install(FILES ${PROJECT_BINARY_DIR}/tallyConfig.cmake ${PROJECT_BINARY_DIR}/tallyConfigVersion.cmake
  DESTINATION ${TALLY_CMAKE_DIR})

# pkg-config: the prefix is computed from the .pc file's own location (${pcfiledir}), so
# the installed tree can be moved. Only the relative depth of the pkgconfig folder is
# baked in; an absolute DATADIR or INCLUDEDIR is kept as given.
set(TALLY_PKGCONFIG_DIR ${CMAKE_INSTALL_DATADIR}/pkgconfig)
if(IS_ABSOLUTE "${TALLY_PKGCONFIG_DIR}")
  set(TALLY_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
else()
  file(RELATIVE_PATH tally_pc_up "/tally-prefix/${TALLY_PKGCONFIG_DIR}" "/tally-prefix")
  string(REGEX REPLACE "/$" "" tally_pc_up "${tally_pc_up}")
  set(TALLY_PC_PREFIX "\${pcfiledir}/${tally_pc_up}")
endif()
if(IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(TALLY_PC_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}")
else()
  set(TALLY_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
configure_file(${PROJECT_SOURCE_DIR}/cmake/tally.pc.in ${PROJECT_BINARY_DIR}/tally.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/tally.pc DESTINATION ${TALLY_PKGCONFIG_DIR})
