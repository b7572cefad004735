/// @file
/// @brief Threading options shared by both front doors, and the hook for a host's thread pool.
#pragma once

#include <cstddef>

#include "version.hpp"

TALLY_BEGIN_NAMESPACE

/// A host's thread pool, for hosts that must not have tally start threads of its own:
/// it must call `task(task_context, i)` exactly once for every i in [0, count), on any
/// threads, and return only when all calls have returned. `host` is passed back as given.
/// It must not throw: tally calls it from noexcept code, so an exception ends the process
/// with std::terminate (a pool that can fail should run the remaining tasks on the
/// calling thread instead). See docs/threads.md.
using parallel_for_function = void (*)(void* host, std::size_t count,
                                       void (*task)(void* task_context, std::size_t index),
                                       void* task_context);

/// How the descriptor layer runs a scan.
struct execution_options {
  /// Threads to use: 1 runs on the calling thread and creates none; 0 means one per
  /// hardware thread; a value above the hardware threads counts as the hardware threads
  /// (more would only be slower; docs/threads.md). Results are bitwise identical for
  /// every value.
  unsigned threads = 1;
  /// When set, tally hands its parallel work to this function instead of starting threads.
  parallel_for_function parallel_for = nullptr;
  /// Passed back to `parallel_for` untouched.
  void* host = nullptr;
};

TALLY_END_NAMESPACE
