// Splitting independent work across threads. Work is described as `count` tasks run in
// contiguous ranges; which thread runs which range never changes a result, so the
// split is free to depend on the thread count.
#pragma once

#include <algorithm>
#include <cstddef>
#include <exception>
#include <thread>
#include <vector>

#include "../parallel.hpp"

TALLY_BEGIN_NAMESPACE
namespace detail {

inline unsigned resolve_threads(unsigned requested) noexcept {
  if (requested != 0) return requested;
  const unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : hw;
}

/// Calls `f(begin, end)` over [0, count) cut into at most `parts` contiguous ranges,
/// in parallel through the host's hook or std::thread. With one part nothing is started.
template <class F>
void parallel_ranges(const execution_options& options, std::size_t count, std::size_t parts, F& f) noexcept {
  parts = std::min(parts, count);
  if (parts <= 1) {
    if (count > 0) f(std::size_t{0}, count);
    return;
  }
  struct context_t {
    F* f;
    std::size_t count, parts;
  } context{&f, count, parts};
  auto task = [](void* c, std::size_t part) {
    const auto& ctx = *static_cast<context_t*>(c);
    const std::size_t begin = ctx.count * part / ctx.parts;
    const std::size_t end = ctx.count * (part + 1) / ctx.parts;
    if (begin < end) (*ctx.f)(begin, end);
  };
  if (options.parallel_for) {
    options.parallel_for(options.host, parts, task, &context);
    return;
  }
  std::vector<std::thread> workers;
  std::size_t started = 1;
  try {
    workers.reserve(parts - 1);
    for (; started < parts; ++started) workers.emplace_back(task, &context, started);
  } catch (...) {
    // Could not start a thread (resources): run the remaining parts here instead.
    for (std::size_t part = started; part < parts; ++part) task(&context, part);
  }
  task(&context, 0);
  for (auto& w : workers) w.join();
}

}  // namespace detail
TALLY_END_NAMESPACE
