# Every C++ snippet in README.md compiles and runs (with the compiler and flags of this build).
find_package(Python3 COMPONENTS Interpreter QUIET)
if(NOT Python3_Interpreter_FOUND)
  message(STATUS "tally: no Python 3; the README snippet test is not registered")
  return()
endif()
find_package(Eigen3 3.3 CONFIG QUIET)
set(tally_readme_eigen "")
if(TARGET Eigen3::Eigen)
  get_target_property(tally_readme_eigen Eigen3::Eigen INTERFACE_INCLUDE_DIRECTORIES)
  list(GET tally_readme_eigen 0 tally_readme_eigen)
endif()
# A cross build (MinGW) runs the snippets through its emulator (wine), linked with its
# linker flags (-static there, so that no DLL must sit beside them).
set(tally_readme_runner "")
if(CMAKE_CROSSCOMPILING AND CMAKE_CROSSCOMPILING_EMULATOR)
  string(REPLACE ";" " " tally_readme_runner "${CMAKE_CROSSCOMPILING_EMULATOR}")
endif()
add_test(NAME readme_snippets
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/readme/check_snippets.py
                 ${PROJECT_SOURCE_DIR}/README.md ${CMAKE_CXX_COMPILER} "${CMAKE_CXX_FLAGS} ${CMAKE_EXE_LINKER_FLAGS}"
                 ${PROJECT_SOURCE_DIR}/include ${CMAKE_CURRENT_BINARY_DIR}/readme "${tally_readme_eigen}"
                 "${tally_readme_runner}")
