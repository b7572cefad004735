# API reference with Doxygen: `cmake --build <dir> --target docs` writes
# <dir>/docs/html/index.html. Without Doxygen nothing is defined (no error, no message
# beyond one status line). As a subproject only `tally_docs` exists, so that a parent's
# own `docs` target is left alone.
find_package(Doxygen QUIET)
if(NOT DOXYGEN_FOUND)
  message(STATUS "tally: Doxygen not found, no docs target")
  return()
endif()

set(TALLY_DOCS_OUTPUT_DIR ${PROJECT_BINARY_DIR}/docs)
set(TALLY_DOCS_INPUT "\"${PROJECT_SOURCE_DIR}/include\"")
set(TALLY_DOCS_MAINPAGE "")
if(EXISTS ${PROJECT_SOURCE_DIR}/README.md)
  string(APPEND TALLY_DOCS_INPUT " \"${PROJECT_SOURCE_DIR}/README.md\"")
  set(TALLY_DOCS_MAINPAGE "\"${PROJECT_SOURCE_DIR}/README.md\"")
endif()
if(IS_DIRECTORY ${PROJECT_SOURCE_DIR}/docs)
  string(APPEND TALLY_DOCS_INPUT " \"${PROJECT_SOURCE_DIR}/docs\"")
endif()
configure_file(${PROJECT_SOURCE_DIR}/cmake/Doxyfile.in ${TALLY_DOCS_OUTPUT_DIR}/Doxyfile @ONLY)

add_custom_target(tally_docs
  COMMAND Doxygen::doxygen ${TALLY_DOCS_OUTPUT_DIR}/Doxyfile
  WORKING_DIRECTORY ${TALLY_DOCS_OUTPUT_DIR}
  COMMENT "Doxygen: tally API reference in ${TALLY_DOCS_OUTPUT_DIR}/html"
  VERBATIM)
if(PROJECT_SOURCE_DIR STREQUAL CMAKE_SOURCE_DIR AND NOT TARGET docs)
  add_custom_target(docs)
  add_dependencies(docs tally_docs)
endif()
