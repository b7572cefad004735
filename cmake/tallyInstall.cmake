include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS tally EXPORT tallyTargets)
install(DIRECTORY include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

set(TALLY_CMAKE_DIR ${CMAKE_INSTALL_DATADIR}/cmake/tally)
install(EXPORT tallyTargets NAMESPACE tally:: DESTINATION ${TALLY_CMAKE_DIR})
configure_package_config_file(cmake/tallyConfig.cmake.in
  ${PROJECT_BINARY_DIR}/tallyConfig.cmake
  INSTALL_DESTINATION ${TALLY_CMAKE_DIR})
# A header-only library has no architecture: the version file must not check pointer size.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/tallyConfigVersion.cmake
  COMPATIBILITY SameMajorVersion ARCH_INDEPENDENT)
install(FILES ${PROJECT_BINARY_DIR}/tallyConfig.cmake ${PROJECT_BINARY_DIR}/tallyConfigVersion.cmake
  DESTINATION ${TALLY_CMAKE_DIR})
