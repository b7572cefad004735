# The distributed scan (examples/mpi/mpi_scan.cpp) on 2 and 4 processes. The program
# compares its gathered result with one single-process call and exits non-zero on any
# difference, so its exit code is the test. Registered only when MPI and mpiexec exist
# (Debian: apt-get install libopenmpi-dev openmpi-bin).
find_package(MPI COMPONENTS CXX QUIET)
if(NOT MPI_CXX_FOUND OR NOT MPIEXEC_EXECUTABLE)
  message(STATUS "tally: MPI or mpiexec not found; the MPI tests are not registered")
  return()
endif()
message(STATUS "tally: MPI tests use ${MPIEXEC_EXECUTABLE}")

if(TALLY_BUILD_EXAMPLES)
  # Built by examples/mpi/CMakeLists.txt (processed later; resolved at generate time).
  set(tally_mpi_program $<TARGET_FILE:example_mpi_scan>)
else()
  add_executable(tally_mpi_scan ${PROJECT_SOURCE_DIR}/examples/mpi/mpi_scan.cpp)
  target_link_libraries(tally_mpi_scan PRIVATE tally::tally tally_warnings MPI::MPI_CXX)
  target_compile_definitions(tally_mpi_scan PRIVATE OMPI_SKIP_MPICXX=1 MPICH_SKIP_MPICXX=1)
  set(tally_mpi_program $<TARGET_FILE:tally_mpi_scan>)
endif()

# Open MPI refuses to run as root and to start more processes than cores unless told;
# CI containers run as root on small machines. Environment variables rather than
# command-line flags, so that other MPI implementations (which ignore them) work too.
# The single-copy (CMA) shared-memory path needs ptrace rights containers often lack.
# Open MPI does not free everything at MPI_Finalize: in sanitizer builds LeakSanitizer
# would fail the test on MPI's own allocations (ASan's other checks stay on).
set(tally_mpi_environment
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
    ASAN_OPTIONS=detect_leaks=0)

foreach(processes 2 4)
  foreach(variant IN LISTS TALLY_TEST_SIMD_VARIANTS)
    set(name mpi_scan_np${processes}.${variant})
    add_test(NAME ${name}
             COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${processes} ${MPIEXEC_PREFLAGS}
                     ${tally_mpi_program} ${MPIEXEC_POSTFLAGS})
    set(environment ${tally_mpi_environment})
    if(NOT variant STREQUAL "native")
      list(APPEND environment TALLY_SIMD=${variant})
    endif()
    set_tests_properties(${name} PROPERTIES ENVIRONMENT "${environment}" TIMEOUT 300 PROCESSORS ${processes})
  endforeach()
endforeach()
