# Eigen interop (include/tally/eigen.hpp) against Eigen's own Tensor cumsum/cumprod.
# Eigen is optional: without it (Debian: apt-get install libeigen3-dev) the test is skipped.
find_package(Eigen3 3.3 CONFIG QUIET)
if(NOT TARGET Eigen3::Eigen)
  message(STATUS "tally: Eigen3 >= 3.3 not found; the Eigen interop test is not registered")
  return()
endif()
message(STATUS "tally: Eigen interop test uses Eigen ${Eigen3_VERSION}")

# One translation unit on purpose: Eigen's Tensor module is slow to compile.
tally_add_test(test_eigen ${CMAKE_CURRENT_SOURCE_DIR}/eigen/test_eigen.cpp)
target_link_libraries(test_eigen PRIVATE Eigen3::Eigen)
