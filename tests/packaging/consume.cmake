# Configures, builds and runs one consumer project (see tally_consume in common.cmake).
# Inputs: CONSUMER, BUILD, and optionally PREFIX, SOURCE, VERSION, EXPECT_FAILURE.
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")

set(options)
foreach(name PREFIX SOURCE VERSION EXPECT_FAILURE)
  if(DEFINED ${name})
    list(APPEND options ${name} "${${name}}")
  endif()
endforeach()
tally_consume("${CONSUMER}" "${BUILD}" ${options})
