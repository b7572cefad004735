# Header-only: one release configuration is enough, nothing is compiled.
set(VCPKG_BUILD_TYPE release)

# Overlay port: builds the source tree this port lives in (ports/tally -> repository root).
# The port published to the vcpkg registry fetches a release instead:
#   vcpkg_from_github(
#       OUT_SOURCE_PATH SOURCE_PATH
#       REPO <owner>/tally
#       REF "v${VERSION}"
#       SHA512 <sha512 of the release archive>
#       HEAD_REF main
#   )
get_filename_component(SOURCE_PATH "${CMAKE_CURRENT_LIST_DIR}/../.." ABSOLUTE)

vcpkg_cmake_configure(
    SOURCE_PATH "${SOURCE_PATH}"
    OPTIONS
        -DTALLY_BUILD_TESTS=OFF
        -DTALLY_BUILD_EXAMPLES=OFF
        -DTALLY_BUILD_BENCHMARKS=OFF
)
vcpkg_cmake_install()

# The build installs its CMake package to share/cmake/tally; vcpkg wants share/tally.
vcpkg_cmake_config_fixup(CONFIG_PATH share/cmake/tally)
vcpkg_fixup_pkgconfig()

# Release-only leaves no debug tree; the license goes to share/tally/copyright instead of
# the build's doc folder.
file(REMOVE_RECURSE
    "${CURRENT_PACKAGES_DIR}/debug"
    "${CURRENT_PACKAGES_DIR}/share/doc"
)
file(INSTALL "${CMAKE_CURRENT_LIST_DIR}/usage" DESTINATION "${CURRENT_PACKAGES_DIR}/share/${PORT}")
vcpkg_install_copyright(FILE_LIST "${SOURCE_PATH}/LICENSE")
