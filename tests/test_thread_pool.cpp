// tally's thread pool in one process (issue 11; the process-level scenarios, fork and
// exit, are tests/robustness/robustness.cpp): the thread-count policy, every task run
// exactly once whatever the thread count, nested calls, many concurrent callers, and
// back-to-back short jobs (workers that wake late must never touch a later job). Also
// run under ThreadSanitizer by .ci/tsan.sh (its name contains "thread").
#include <tally/tally.hpp>

#include <atomic>
#include <climits>
#include <cstring>
#include <thread>
#include <vector>

#include "catch.hpp"

namespace {

using tally::detail::thread_pool;

/// A job's tasks count their runs (a task run with another job's context would count
/// there, or touch a dead job, which ASan reports).
struct counted_job {
  std::size_t id = 0;
  std::vector<std::atomic<int>> runs;
  explicit counted_job(std::size_t count, std::size_t id_ = 0) : id(id_), runs(count) {}

  static void task(void* context, std::size_t i) {
    auto& job = *static_cast<counted_job*>(context);
    volatile unsigned busy_work = 0;  // a task long enough for the threads to overlap
    for (unsigned k = 0; k < 2000; ++k) busy_work = busy_work + k;
    job.runs[i].fetch_add(1, std::memory_order_relaxed);
  }
  bool each_once() const {
    for (const auto& r : runs)
      if (r.load() != 1) return false;
    return true;
  }
};

std::vector<float> make_input(std::size_t n, std::uint32_t seed) {
  std::vector<float> v(n);
  for (float& f : v) {
    seed = seed * 1664525u + 1013904223u;
    f = static_cast<float>(static_cast<int>(seed >> 24) - 128) * 0.5f;
  }
  return v;
}

void scan(const std::vector<float>& in, std::vector<float>& out, unsigned threads) {
  tally::cumsum(tally::tensor_view<const float>(in.data(), {in.size()}),
                tally::tensor_view<float>(out.data(), {out.size()}), 0,
                tally::scan_options{tally::axis_direction::increasing, false, threads});
}

}  // namespace

TEST_CASE("thread counts are capped at the hardware threads", "[threads]") {
  const unsigned hw = std::thread::hardware_concurrency() == 0 ? 1 : std::thread::hardware_concurrency();
  using tally::detail::resolve_threads;
  CHECK(tally::detail::hardware_threads() == hw);
  CHECK(resolve_threads(0) == hw);
  CHECK(resolve_threads(1) == 1);
  CHECK(resolve_threads(2) == std::min(2u, hw));
  CHECK(resolve_threads(64) == std::min(64u, hw));
  CHECK(resolve_threads(100000) == hw);
  CHECK(resolve_threads(UINT_MAX) == hw);
}

TEST_CASE("the pool runs every task exactly once for any thread count", "[threads]") {
  for (unsigned threads : {0u, 1u, 2u, 3u, 8u, 64u, UINT_MAX}) {
    for (std::size_t count : {1u, 2u, 3u, 7u, 100u, 5000u}) {
      counted_job job(count);
      thread_pool::instance().run(count, threads, &counted_job::task, &job);
      CAPTURE(threads, count);
      CHECK(job.each_once());
    }
  }
  thread_pool::instance().run(0, 4, &counted_job::task, nullptr);  // no tasks: nothing called
}

TEST_CASE("back-to-back short jobs: each task once, each in its own job", "[threads]") {
  // Late workers must not run a finished job's task or take a later job's tasks with
  // the wrong context; every job has its own context and its own counters.
  constexpr std::size_t jobs = 20000;
  std::size_t bad = 0;
  for (std::size_t j = 0; j < jobs; ++j) {
    counted_job job(2 + j % 3, j);
    thread_pool::instance().run(job.runs.size(), 2 + static_cast<unsigned>(j % 2), &counted_job::task, &job);
    if (!job.each_once()) ++bad;
  }
  CHECK(bad == 0);
}

TEST_CASE("a nested call from a task runs (inline) and does not deadlock", "[threads]") {
  struct outer_t {
    std::vector<counted_job> inner;
    std::atomic<int> runs{0};
    static void task(void* c, std::size_t i) {
      auto& o = *static_cast<outer_t*>(c);
      ++o.runs;
      thread_pool::instance().run(o.inner[i].runs.size(), 4, &counted_job::task, &o.inner[i]);
    }
  } outer;
  for (std::size_t i = 0; i < 8; ++i) outer.inner.emplace_back(16, i);
  thread_pool::instance().run(outer.inner.size(), 4, &outer_t::task, &outer);
  CHECK(outer.runs == 8);
  for (const auto& job : outer.inner) CHECK(job.each_once());
}

TEST_CASE("16 concurrent callers: every task once, scans bit-exact", "[threads]") {
  constexpr int callers = 16;
  std::atomic<int> failures{0};
  {
    std::vector<std::thread> threads;
    for (int c = 0; c < callers; ++c) {
      threads.emplace_back([c, &failures] {
        for (std::size_t j = 0; j < 300; ++j) {
          counted_job job(1 + (j + static_cast<std::size_t>(c)) % 9, j);
          thread_pool::instance().run(job.runs.size(), 2 + static_cast<unsigned>(j % 3), &counted_job::task, &job);
          if (!job.each_once()) ++failures;
        }
      });
    }
    for (auto& t : threads) t.join();
  }
  CHECK(failures == 0);

  // Real scans: one long line (split across threads) per caller, each its own data.
  constexpr std::size_t n = std::size_t{1} << 18;
  std::vector<std::vector<float>> inputs, expected;
  for (int c = 0; c < callers; ++c) {
    inputs.push_back(make_input(n, static_cast<std::uint32_t>(c)));
    expected.emplace_back(n);
    scan(inputs.back(), expected.back(), 1);
  }
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int c = 0; c < callers; ++c) {
    threads.emplace_back([&, c] {
      std::vector<float> out(n);
      for (int rep = 0; rep < 4; ++rep) {
        scan(inputs[static_cast<std::size_t>(c)], out, rep % 2 ? 2 : 0);
        if (std::memcmp(out.data(), expected[static_cast<std::size_t>(c)].data(), n * sizeof(float)) != 0) ++wrong;
      }
    });
  }
  for (auto& t : threads) t.join();
  CHECK(wrong == 0);
}
