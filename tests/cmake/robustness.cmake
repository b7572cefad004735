# Process-level robustness of the thread pool (issue 11, docs/threads.md): fork, exit
# paths, oversubscription, huge thread counts, a throwing host hook, idle CPU, signals.
# One program, one ctest per scenario (tests/robustness/robustness.cpp). Scenarios that
# can hang run their subject in a child process with its own deadline; TIMEOUT kills
# the test itself if that machinery hangs, so a regression fails instead of hanging CI.
# Run once, not per SIMD variant: the threading is the same for every variant. POSIX
# only (fork, signals, /proc). Label: robustness (ctest -L / -LE robustness).
if(NOT UNIX)
  return()
endif()

add_executable(tally_robustness ${CMAKE_CURRENT_SOURCE_DIR}/robustness/robustness.cpp)
target_link_libraries(tally_robustness PRIVATE tally::tally tally_warnings tally_test_kernels)

set(tally_robustness_scenarios
  fork_after_scan fork_during_scan exit_paths exit_with_threads_running
  oversubscription huge_thread_counts throwing_hook_terminates idle_cpu signals)
# Under AddressSanitizer (Clang 14's runtime) the two scenarios that fork right after or
# while the pool's workers start hang in the sanitizer itself, 1 run in 4 to 40 under
# load, before and after any tally change: the child inherits the sanitizer allocator's
# lock from a worker that was inside the runtime's thread start-up (it allocates there),
# and the runtime has no fork handler for that lock, as glibc's malloc has; LeakSanitizer's
# leak check at the child's exit deadlocks with such a thread the same way (stacks in
# docs/threads.md). They run in every build without the sanitizer (the README's first
# configuration), which is where the pool's fork handling is what is tested.
if(CMAKE_CXX_FLAGS MATCHES "-fsanitize=[^ ]*address")
  list(REMOVE_ITEM tally_robustness_scenarios fork_after_scan fork_during_scan)
endif()
# Timed: run alone, so that other tests do not take the cores they measure.
set(tally_robustness_timed oversubscription huge_thread_counts idle_cpu)

foreach(scenario IN LISTS tally_robustness_scenarios)
  add_test(NAME robustness.${scenario} COMMAND tally_robustness ${scenario})
  set_tests_properties(robustness.${scenario} PROPERTIES TIMEOUT 120 LABELS robustness)
  if(scenario IN_LIST tally_robustness_timed)
    set_tests_properties(robustness.${scenario} PROPERTIES RUN_SERIAL TRUE)
  endif()
endforeach()
