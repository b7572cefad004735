// tally without threads (TALLY_NO_THREADS, or a standard library without std::thread:
// see detail/config.hpp). Built with -DTALLY_NO_THREADS=1 together with
// test_threads_and_chunks.cpp (tests/cmake/portability.cmake), whose every thread count
// and host hook must then give the same bits, inline; and by .ci/mingw-wine.sh with
// MinGW's win32 thread model, where no -D is given and the detection must find it.
//
// This file uses no std::thread itself, so that it compiles where there is none.
#include <tally/tally.hpp>

static_assert(!TALLY_THREADS, "tally was built without threads");
// libstdc++'s include guards: tally must not have included the threading headers (the
// other standard libraries are not checked, but the code is the same).
#if defined(_GLIBCXX_THREAD) || defined(_GLIBCXX_MUTEX) || defined(_GLIBCXX_CONDITION_VARIABLE)
#error "tally included <thread>, <mutex> or <condition_variable> under TALLY_NO_THREADS"
#endif
static_assert(!TALLY_HAS_PTHREAD_ATFORK, "no fork handler (and no <pthread.h> from tally) without threads");

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "catch.hpp"

namespace {

/// A host pool that runs the tasks in reverse order on the calling thread and counts them.
struct reverse_pool {
  int calls = 0;
  std::size_t tasks = 0;
  static void parallel_for(void* host, std::size_t count, void (*task)(void*, std::size_t), void* context) {
    auto& pool = *static_cast<reverse_pool*>(host);
    ++pool.calls;
    pool.tasks += count;
    for (std::size_t i = count; i-- > 0;) task(context, i);
  }
};

/// Tasks record the order they ran in, and whether one started while another was running.
struct ordered_job {
  std::vector<std::size_t> order;
  bool running = false, overlapped = false;
  static void task(void* context, std::size_t i) {
    auto& job = *static_cast<ordered_job*>(context);
    if (job.running) job.overlapped = true;
    job.running = true;
    job.order.push_back(i);
    job.running = false;
  }
};

std::vector<float> sums_input(std::size_t n) {
  std::vector<float> v(n);
  std::uint32_t seed = 12345;
  for (float& f : v) {  // small integers: every summation order gives the same bits
    seed = seed * 1664525u + 1013904223u;
    f = static_cast<float>(static_cast<int>(seed >> 24) - 128);
  }
  return v;
}

std::vector<float> cumsum(const std::vector<float>& in, const tally::scan_options& options) {
  std::vector<float> out(in.size());
  tally::cumsum(tally::tensor_view<const float>(in.data(), {in.size()}),
                tally::tensor_view<float>(out.data(), {out.size()}), 0, options);
  return out;
}

#if defined(__linux__)
/// The threads of this process, from /proc (0 if unreadable).
int process_threads() {
  std::FILE* f = std::fopen("/proc/self/status", "r");
  if (!f) return 0;
  char line[256];
  int n = 0;
  while (std::fgets(line, sizeof line, f))
    if (std::strncmp(line, "Threads:", 8) == 0) n = std::atoi(line + 8);
  std::fclose(f);
  return n;
}
#endif

}  // namespace

TEST_CASE("no threads: tally's own thread count is always 1", "[no_threads]") {
  using tally::detail::resolve_threads;
  CHECK(tally::detail::hardware_threads() == 1);
  for (unsigned requested : {0u, 1u, 2u, 4u, 64u, 0xffffffffu}) CHECK(resolve_threads(requested) == 1);
}

TEST_CASE("no threads: a host's pool gets the thread count as given", "[no_threads]") {
  using tally::detail::resolve_threads;
  CHECK(resolve_threads(0, true) == 1);  // "one per hardware thread": tally cannot tell
  CHECK(resolve_threads(1, true) == 1);
  CHECK(resolve_threads(4, true) == 4);
  CHECK(resolve_threads(64, true) == 64);
}

TEST_CASE("no threads: the pool runs every task once, in order, on the calling thread", "[no_threads]") {
  for (unsigned threads : {0u, 1u, 2u, 8u}) {
    for (std::size_t count : {0u, 1u, 3u, 100u}) {
      ordered_job job;
      tally::detail::thread_pool::instance().run(count, threads, &ordered_job::task, &job);
      CAPTURE(threads, count);
      REQUIRE(job.order.size() == count);
      for (std::size_t i = 0; i < count; ++i) CHECK(job.order[i] == i);
      CHECK(!job.overlapped);
    }
  }
}

TEST_CASE("no threads: a long line asked for 4 threads runs inline, or split on a host's pool, same bits",
          "[no_threads]") {
  // (The fast mode: it splits one line across threads; the exact mode never does.)
  const auto fast = [](unsigned threads) {
    tally::scan_options o{tally::axis_direction::increasing, false, threads};
    o.accuracy = tally::scan_accuracy::fast;
    return o;
  };
  const std::vector<float> input = sums_input(std::size_t{1} << 20);
  const std::vector<float> one = cumsum(input, fast(1));
#if defined(__linux__)
  const int threads_before = process_threads();
#endif
  const std::vector<float> four = cumsum(input, fast(4));
#if defined(__linux__)
  CHECK(process_threads() == threads_before);  // no worker was started
#endif
  CHECK(std::memcmp(one.data(), four.data(), one.size() * sizeof(float)) == 0);

  // The split path (blocks reduced, offsets combined, then scanned) runs through the hook.
  reverse_pool pool;
  tally::scan_options hooked = fast(4);
  hooked.parallel_for = &reverse_pool::parallel_for;
  hooked.host = &pool;
  const std::vector<float> split = cumsum(input, hooked);
  CHECK(pool.calls > 0);
  CHECK(pool.tasks > static_cast<std::size_t>(pool.calls));
  CHECK(std::memcmp(one.data(), split.data(), one.size() * sizeof(float)) == 0);
  CHECK(one.back() == split.back());
}

TEST_CASE("no threads: the descriptor layer with threads = 0 and 8", "[no_threads]") {
  const std::vector<float> input = sums_input(300000);
  std::vector<float> a(input.size()), b(input.size());
  const std::uint32_t sizes[1] = {static_cast<std::uint32_t>(input.size())};
  const tally::tensor_desc t{tally::data_type::float32, 1, sizes, nullptr,
                             tally::calc_buffer_tensor_size(tally::data_type::float32, 1, sizes, nullptr)};
  const tally::cumulative_summation_desc sum{&t, &t, 0, tally::axis_direction::decreasing, true};
  REQUIRE(tally::execute(sum, input.data(), a.data(), tally::execution_options{0}).ok());
  REQUIRE(tally::execute(sum, input.data(), b.data(), tally::execution_options{8}).ok());
  CHECK(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
  CHECK(a.back() == 0.0f);  // exclusive, decreasing: the last output is the empty sum
}
