# The streaming example (examples/streaming.cpp) scans a generated file of a few MB in
# fixed chunks and checks itself (--verify): the chunked result must equal one in-memory
# call bitwise. Run once per SIMD variant, like every test.
#   float32: chunks of 4 * tally::scan_block_elements (the bitwise guarantee for floats);
#   int64:   chunks of 1000 elements (integers are exact for any chunk length).
if(TALLY_BUILD_EXAMPLES)
  # Defined later by examples/CMakeLists.txt; add_test resolves target names at generate time.
  set(tally_streaming_program example_streaming)
else()
  add_executable(tally_streaming ${PROJECT_SOURCE_DIR}/examples/streaming.cpp)
  target_link_libraries(tally_streaming PRIVATE tally::tally tally_warnings)
  set(tally_streaming_program tally_streaming)
endif()

foreach(variant IN LISTS TALLY_TEST_SIMD_VARIANTS)
  add_test(NAME streaming_float32.${variant}
           COMMAND ${tally_streaming_program} --type float32 --generate 1500001 --verify
                   streaming_${variant}_in.f32 streaming_${variant}_out.f32
           WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  add_test(NAME streaming_int64.${variant}
           COMMAND ${tally_streaming_program} --type int64 --chunk 1000 --generate 700001 --verify
                   streaming_${variant}_in.i64 streaming_${variant}_out.i64
           WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  if(NOT variant STREQUAL "native")
    set_tests_properties(streaming_float32.${variant} streaming_int64.${variant}
                         PROPERTIES ENVIRONMENT "TALLY_SIMD=${variant}")
  endif()
endforeach()
