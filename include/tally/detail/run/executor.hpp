// Where the tasks of a scan run: the caller's thread count, resolved once at the front
// door, and the host's parallel_for hook if any (else tally's own pool).
#pragma once

#include <algorithm>
#include <cstddef>

#include "../../parallel.hpp"
#include "thread_pool.hpp"

TALLY_BEGIN_NAMESPACE
namespace detail {

struct executor {
  unsigned threads = 1;  // resolved: never 0
  parallel_for_function parallel_for = nullptr;
  void* host = nullptr;

  static executor from(const execution_options& options) noexcept {
    return {resolve_threads(options.threads, options.parallel_for != nullptr), options.parallel_for, options.host};
  }
};

/// Runs task(context, i) for i in [0, count) on up to `threads` threads: the host's
/// hook when given, else tally's pool; with one thread or one task, inline.
inline void run_tasks(const executor& exec, unsigned threads, std::size_t count, task_function task,
                      void* context) noexcept {
  if (count == 0) return;
  if (threads <= 1 || count == 1) {
    for (std::size_t i = 0; i < count; ++i) task(context, i);
  } else if (exec.parallel_for) {
    exec.parallel_for(exec.host, count, task, context);
  } else {
    thread_pool::instance().run(count, threads, task, context);
  }
}

/// Calls `f(begin, end)` over [0, count) cut into `parts` contiguous ranges, in parallel.
template <class F>
void parallel_ranges(const executor& exec, std::size_t count, std::size_t parts, F& f) noexcept {
  parts = (std::min)(parts, count);
  struct context_t {
    F* f;
    std::size_t count, parts;
  } context{&f, count, parts};
  run_tasks(exec, static_cast<unsigned>(std::max<std::size_t>(parts, 1)), parts,
            [](void* c, std::size_t part) {
              const auto& ctx = *static_cast<context_t*>(c);
              const std::size_t begin = ctx.count * part / ctx.parts;
              const std::size_t end = ctx.count * (part + 1) / ctx.parts;
              if (begin < end) (*ctx.f)(begin, end);
            },
            &context);
}

}  // namespace detail
TALLY_END_NAMESPACE
