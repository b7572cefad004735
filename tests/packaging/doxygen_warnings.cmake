# Runs Doxygen with tally's Doxyfile (written by cmake/tallyDocs.cmake) into WORK and
# fails on any warning, in particular a public entity without a Doxygen comment.
# Inputs: DOXYGEN, DOXYFILE, WORK.
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")

file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
file(READ "${DOXYFILE}" config)
# Later assignments win in a Doxyfile: redirect the output so the docs target's is untouched.
string(APPEND config "\nOUTPUT_DIRECTORY = \"${WORK}\"\nWARN_LOGFILE = \"${WORK}/warnings.log\"\n")
file(WRITE "${WORK}/Doxyfile" "${config}")
tally_run("doxygen" COMMAND "${DOXYGEN}" "${WORK}/Doxyfile")
file(READ "${WORK}/warnings.log" warnings)
if(NOT warnings STREQUAL "")
  # Printed as is (message() would re-wrap the lines), then counted.
  execute_process(COMMAND "${CMAKE_COMMAND}" -E cat "${WORK}/warnings.log")
  string(REGEX MATCHALL "warning:" matches "${warnings}")
  list(LENGTH matches count)
  message(FATAL_ERROR "Doxygen reports ${count} warning(s), listed above")
endif()
