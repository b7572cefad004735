// Process-level robustness of tally's thread pool (issue 11): fork, exit paths,
// oversubscription, huge thread counts, a throwing host hook, idle CPU and signals.
//
//   tally_robustness <scenario>      (tests/cmake/robustness.cmake registers one ctest per scenario)
//
// Every scenario that can hang runs its subject in a child process and kills it when it
// misses its deadline, so a regression fails with a message instead of hanging CI (ctest's
// TIMEOUT is the backstop for the parent itself). Children leave through exit(), not
// _exit(): the exit path is part of what is tested. Timing scenarios compare medians
// measured in one process and retry before failing, so that a loaded machine does not
// fail them while a real regression (a factor of 5 to 30) always does.
#include <tally/tally.hpp>

#include <dirent.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

using clock_type = std::chrono::steady_clock;

/// Elements of the scans: one line of 1 MiB floats (4 MiB) is split across two threads
/// (tally uses a thread per 64 Ki elements at most) in four short fork-joins.
constexpr std::size_t line = std::size_t{1} << 20;

std::vector<float> make_input(std::size_t n) {
  std::vector<float> v(n);
  std::uint32_t x = 12345;
  for (float& f : v) {
    x = x * 1664525u + 1013904223u;
    f = static_cast<float>(static_cast<int>(x >> 24) - 128) * 0.25f;
  }
  return v;
}

void scan(const std::vector<float>& in, std::vector<float>& out, unsigned threads,
          tally::parallel_for_function hook = nullptr) {
  tally::scan_options options{tally::axis_direction::increasing, false, threads};
  options.accuracy = tally::scan_accuracy::fast;  // the fast mode splits one line across threads
  options.parallel_for = hook;
  tally::cumsum(tally::tensor_view<const float>(in.data(), {in.size()}),
                tally::tensor_view<float>(out.data(), {out.size()}), 0, options);
}

/// A scan on `threads` threads equals the single-threaded one bit for bit.
bool scan_matches(unsigned threads, std::size_t n = line) {
  const std::vector<float> in = make_input(n);
  std::vector<float> expected(n), got(n);
  scan(in, expected, 1);
  scan(in, got, threads);
  return std::memcmp(expected.data(), got.data(), n * sizeof(float)) == 0;
}

double seconds_since(clock_type::time_point start) {
  return std::chrono::duration<double>(clock_type::now() - start).count();
}

void sleep_ms(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

/// Seconds a child may take: a scan takes milliseconds even under sanitizers.
constexpr double child_deadline = 20;

/// Runs `body` in a child process that leaves through exit(body()). True when the child
/// exits with 0 (or, with `expected_signal`, dies of that signal) within the deadline.
bool in_child(const std::string& what, const std::function<int()>& body, int expected_signal = 0) {
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) {
    std::perror("fork");
    return false;
  }
  if (pid == 0) {
    if (expected_signal) {
      const rlimit no_core{0, 0};
      setrlimit(RLIMIT_CORE, &no_core);
    }
    std::exit(body());
  }
  const auto start = clock_type::now();
  int status = 0;
  for (;;) {
    const pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    if (r < 0) {
      std::perror("waitpid");
      return false;
    }
    if (seconds_since(start) > child_deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      std::printf("FAIL %s: the child hung (killed after %.0f s)\n", what.c_str(), child_deadline);
      return false;
    }
    sleep_ms(2);
  }
  if (expected_signal) {
    if (WIFSIGNALED(status) && WTERMSIG(status) == expected_signal) return true;
    std::printf("FAIL %s: expected death by signal %d, got %s %d\n", what.c_str(), expected_signal,
                WIFSIGNALED(status) ? "signal" : "exit status",
                WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
    return false;
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return true;
  if (WIFSIGNALED(status))
    std::printf("FAIL %s: the child died of signal %d\n", what.c_str(), WTERMSIG(status));
  else
    std::printf("FAIL %s: the child exited with %d\n", what.c_str(), WEXITSTATUS(status));
  return false;
}

/// Threads of this process (Linux: /proc/self/task), or 0 when unknown.
unsigned process_threads() {
  DIR* d = opendir("/proc/self/task");
  if (!d) return 0;
  unsigned n = 0;
  while (const dirent* e = readdir(d))
    if (e->d_name[0] != '.') ++n;
  closedir(d);
  return n;
}

/// In a child: a threaded scan is right and ran on a worker of the child's own (the
/// parent's workers do not exist here), unless the machine has a single hardware thread.
bool child_scan_uses_workers() {
  if (!scan_matches(2)) return false;
  const unsigned threads = process_threads();
  if (std::thread::hardware_concurrency() > 1 && threads != 0 && threads < 2) {
    std::printf("  the child's threaded scan started no worker (%u thread)\n", threads);
    return false;
  }
  return true;
}

// ---------------------------------------------------------------------------------------
// Fork

/// A threads=2 scan, then fork(): the child scans on 2 threads of its own (and with
/// threads = 0), or only exits.
int fork_after_scan() {
  if (!scan_matches(2)) return 1;
  bool ok = true;
  ok &= in_child("fork after a threaded scan; the child scans with threads=2 and 0, then exits", [] {
    return child_scan_uses_workers() && scan_matches(0) && scan_matches(2) ? 0 : 10;
  });
  ok &= in_child("fork after a threaded scan; the child only exits", [] { return 0; });
  // The child of the child: forking twice must work as well.
  ok &= in_child("fork after a threaded scan, twice", [] {
    if (!scan_matches(2)) return 10;
    return in_child("the grandchild scans with threads=2", [] { return child_scan_uses_workers() ? 0 : 10; }) ? 0 : 11;
  });
  if (!scan_matches(2)) ok = false;  // the parent's pool still works
  return ok ? 0 : 1;
}

/// fork() while another thread is inside threaded scans: the children scan or only exit.
int fork_during_scan() {
  std::atomic<bool> stop{false};
  std::atomic<long> scans{0};
  std::atomic<bool> wrong{false};
  // The scanner's buffers live here: in a child, only this thread's stack exists, and
  // LeakSanitizer would report memory reachable only from the scanner's.
  const std::vector<float> in = make_input(line);
  std::vector<float> expected(line), got(line);
  scan(in, expected, 1);
  std::thread scanner([&] {
    while (!stop.load()) {
      scan(in, got, 2);
      if (std::memcmp(expected.data(), got.data(), line * sizeof(float)) != 0) wrong = true;
      ++scans;
    }
  });
  while (scans.load() < 2) sleep_ms(1);
  bool ok = true;
  for (int i = 0; i < 16 && ok; ++i) {
    std::this_thread::sleep_for(std::chrono::microseconds(300 * (i % 5)));
    if (i % 2 == 0)
      ok &= in_child("fork during a threaded scan in another thread; the child scans with threads=2",
                     [] { return child_scan_uses_workers() && scan_matches(2) ? 0 : 10; });
    else
      ok &= in_child("fork during a threaded scan in another thread; the child only exits", [] { return 0; });
  }
  stop = true;
  scanner.join();
  if (wrong) {
    std::printf("FAIL the parent's scans during the forks were wrong\n");
    ok = false;
  }
  std::printf("%ld scans in the parent's other thread during 16 forks\n", scans.load());
  return ok ? 0 : 1;
}

// ---------------------------------------------------------------------------------------
// Exit paths

std::atomic<bool> scan_in_static_destructor{false};

/// Constructed before main, so before tally's pool: destroyed after anything tally
/// registers at exit.
struct static_scanner {
  ~static_scanner() {
    if (scan_in_static_destructor.load() && !scan_matches(2)) _exit(3);
  }
} the_static_scanner;

void scan_at_exit() {
  if (!scan_matches(2)) _exit(4);
}

int exit_paths() {
  bool ok = true;
  ok &= in_child("a threads=2 scan from a static object's destructor", [] {
    scan_in_static_destructor = true;
    return scan_matches(2) ? 0 : 10;
  });
  ok &= in_child("a threads=2 scan from an atexit handler registered before the first threaded scan", [] {
    std::atexit(scan_at_exit);
    return scan_matches(2) ? 0 : 10;
  });
  ok &= in_child("a threads=2 scan from an atexit handler registered after the first threaded scan", [] {
    const bool first = scan_matches(2);
    std::atexit(scan_at_exit);
    return first ? 0 : 10;
  });
  ok &= in_child("the first threaded scan from an atexit handler", [] {
    std::atexit(scan_at_exit);
    return 0;
  });
  return ok ? 0 : 1;
}

std::atomic<long> detached_scans{0};

/// A detached thread scanning in a loop when main returns (12 times: the race hung 7 of
/// 12 runs), and exit() called by another thread while main scans (6 times).
int exit_with_threads_running() {
  bool ok = true;
  for (int i = 0; i < 12 && ok; ++i) {
    ok &= in_child("a detached thread still scanning when main returns (run " + std::to_string(i + 1) + " of 12)", [] {
      std::thread([] {
        const std::vector<float> in = make_input(line);
        std::vector<float> expected(line), got(line);
        scan(in, expected, 1);
        for (;;) {
          scan(in, got, 2);
          if (std::memcmp(expected.data(), got.data(), line * sizeof(float)) != 0) _exit(5);
          ++detached_scans;
        }
      }).detach();
      while (detached_scans.load() < 3) sleep_ms(1);
      return 0;
    });
  }
  for (int i = 0; i < 6 && ok; ++i) {
    ok &= in_child("exit() from another thread while main scans (run " + std::to_string(i + 1) + " of 6)", [] {
      std::thread([] {
        while (detached_scans.load() < 3) sleep_ms(1);
        std::exit(0);
      }).detach();
      const std::vector<float> in = make_input(line);
      std::vector<float> out(line);
      for (;;) {
        scan(in, out, 2);
        ++detached_scans;
      }
      return 0;
    });
  }
  return ok ? 0 : 1;
}

// ---------------------------------------------------------------------------------------
// Oversubscription

/// Seconds of scans on `threads` threads, collected over several calls of add().
struct timer {
  std::vector<float> in = make_input(line), out = std::vector<float>(line);
  std::vector<double> samples[3];  // threads = 1, 2, other

  double once(unsigned threads) {
    const auto start = clock_type::now();
    scan(in, out, threads);
    return seconds_since(start);
  }
  void add(std::size_t which, unsigned threads, int reps) {
    for (int i = 0; i < reps; ++i) samples[which].push_back(once(threads));
  }
  double median(std::size_t which) {
    std::vector<double>& t = samples[which];
    std::nth_element(t.begin(), t.begin() + static_cast<std::ptrdiff_t>(t.size() / 2), t.end());
    return t[t.size() / 2];
  }
  void clear() {
    for (auto& t : samples) t.clear();
  }
};

constexpr double cost_bound = 1.5;

/// One measurement in a fresh process (no pool yet): threads=2 before any larger request,
/// then one threads=64 call, then threads=2 and threads=64; medians of interleaved runs.
int oversubscription_attempt() {
  timer tm;
  constexpr int rounds = 6, reps = 15;
  tm.add(1, 2, 5);  // start the workers a threads=2 call uses
  tm.clear();
  for (int r = 0; r < rounds; ++r) {
    tm.add(0, 1, reps);
    tm.add(1, 2, reps);
  }
  const double before1 = tm.median(0), before2 = tm.median(1);
  tm.clear();
  tm.once(64);  // one large request
  for (int r = 0; r < rounds; ++r) {
    tm.add(1, 2, reps);
    tm.add(2, 64, reps);
    tm.add(0, 1, reps);
  }
  const double after1 = tm.median(0), after2 = tm.median(1), after64 = tm.median(2);
  tm.clear();
  for (int r = 0; r < 2; ++r) {
    tm.add(1, 4, reps);
    tm.add(2, 16, reps);
  }
  const double t4 = tm.median(1), t16 = tm.median(2);
  std::printf("  threads=1 %.0f us, threads=2 %.0f us; after one threads=64 call: threads=1 %.0f us, "
              "threads=2 %.0f us (%.2fx), threads=64 %.0f us (%.2fx threads=2); threads=4, 16: %.0f, %.0f us\n",
              before1 * 1e6, before2 * 1e6, after1 * 1e6, after2 * 1e6, after2 / before2, after64 * 1e6,
              after64 / after2, t4 * 1e6, t16 * 1e6);
  bool ok = true;
  if (after2 > cost_bound * before2) {
    std::printf("  a threads=64 call slowed later threads=2 calls %.2fx (bound %.1fx)\n", after2 / before2, cost_bound);
    ok = false;
  }
  if (after64 > cost_bound * after2) {
    std::printf("  threads=64 costs %.2fx threads=2 (bound %.1fx)\n", after64 / after2, cost_bound);
    ok = false;
  }
  return ok ? 0 : 1;
}

/// threads = 64 costs about what threads = 2 costs, and one threads = 64 call does not
/// slow later threads = 2 calls, as ratios of medians within one process. Up to three
/// attempts, each in a fresh process, so that a burst of load from other processes does
/// not fail the test; the old pool failed every attempt by a factor of 5 to 500.
int oversubscription() {
  std::printf("%u hardware threads; scans of %zu floats\n", std::thread::hardware_concurrency(), line);
  for (int a = 1; a <= 3; ++a) {
    if (in_child("oversubscription, attempt " + std::to_string(a) + " of 3", oversubscription_attempt)) return 0;
  }
  return 1;
}

/// threads = UINT_MAX and 100000 on 64 MiB start no more threads than the hardware has,
/// and cost about what threads = 2 costs.
int huge_thread_counts() {
  constexpr std::size_t n = std::size_t{16} << 20;
  const std::vector<float> in = make_input(n);
  std::vector<float> expected(n), out(n);
  scan(in, expected, 1);
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  std::thread([] {}).join();  // ThreadSanitizer starts a thread of its own at the first thread
  const unsigned before = process_threads();
  bool ok = true;
  double t_huge = 1e9, t2 = 1e9;
  for (int a = 0; a < 3; ++a) {
    for (unsigned threads : {UINT_MAX, 100000u}) {
      const auto start = clock_type::now();
      scan(in, out, threads);
      t_huge = std::min(t_huge, seconds_since(start));
      if (std::memcmp(expected.data(), out.data(), n * sizeof(float)) != 0) {
        std::printf("FAIL threads=%u gave a different result\n", threads);
        ok = false;
      }
    }
    const auto start = clock_type::now();
    scan(in, out, 2);
    t2 = std::min(t2, seconds_since(start));
  }
  const unsigned after = process_threads();
  std::printf("threads: %u before, %u after threads=UINT_MAX and 100000 (%u hardware threads); "
              "best of 3: %.1f ms vs %.1f ms for threads=2\n",
              before, after, hw, t_huge * 1e3, t2 * 1e3);
  if (after != 0 && after - before > hw - 1) {  // sanitizers may run threads of their own
    std::printf("FAIL %u threads started, more than the %u hardware threads - 1\n", after - before, hw);
    ok = false;
  }
  if (t_huge > 2 * t2 + 0.005) {
    std::printf("FAIL a huge thread count costs %.1fx threads=2\n", t_huge / t2);
    ok = false;
  }
  return ok ? 0 : 1;
}

// ---------------------------------------------------------------------------------------
// A throwing host hook: a documented precondition (parallel.hpp); the process ends with
// std::terminate, on both front doors.

void throwing_hook(void*, std::size_t, void (*)(void*, std::size_t), void*) {
  throw std::runtime_error("host pool failure");
}

int throwing_hook_terminates() {
  bool ok = true;
  ok &= in_child("typed layer: a parallel_for hook that throws ends the process with std::terminate", [] {
    const std::vector<float> in = make_input(line);
    std::vector<float> out(line);
    scan(in, out, 2, throwing_hook);
    return 20;  // not reached
  }, SIGABRT);
  ok &= in_child("descriptor layer: a parallel_for hook that throws ends the process with std::terminate", [] {
    const std::vector<float> in = make_input(line);
    std::vector<float> out(line);
    const std::uint32_t sizes[1] = {static_cast<std::uint32_t>(line)};
    const tally::tensor_desc t{tally::data_type::float32, 1, sizes, nullptr,
                               tally::calc_buffer_tensor_size(tally::data_type::float32, 1, sizes, nullptr)};
    const tally::cumulative_summation_desc sum{&t, &t, 0, tally::axis_direction::increasing, false};
    tally::execution_options options;
    options.threads = 2;
    options.parallel_for = throwing_hook;
    (void)tally::execute(sum, in.data(), out.data(), options);
    return 20;  // not reached
  }, SIGABRT);
  return ok ? 0 : 1;
}

// ---------------------------------------------------------------------------------------
// Kept from before: idle CPU after threaded calls, and signals during them.

double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

int idle_cpu() {
  timer tm;
  for (unsigned threads : {2u, 0u, 64u}) tm.add(0, threads, 5);
  const double cpu = cpu_seconds();
  sleep_ms(300);
  const double used = cpu_seconds() - cpu;
  std::printf("CPU time during 300 ms idle after threaded calls: %.2f ms (bound 30 ms)\n", used * 1e3);
  return used < 0.030 ? 0 : 1;
}

std::atomic<int> signals_seen{0};  // lock-free: safe in a handler, which may run on any thread

int signals() {
  struct sigaction sa{};
  sa.sa_handler = [](int) { signals_seen.fetch_add(1, std::memory_order_relaxed); };
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGALRM, &sa, nullptr);
  const itimerval every{{0, 200}, {0, 200}};
  setitimer(ITIMER_REAL, &every, nullptr);
  bool ok = true;
  for (int i = 0; i < 100 && ok; ++i) ok = scan_matches(i % 2 ? 2 : 0);
  const itimerval off{};
  setitimer(ITIMER_REAL, &off, nullptr);
  std::printf("%d signals during 100 threaded scans; results %s\n", signals_seen.load(),
              ok ? "bit-exact" : "WRONG");
  return ok ? 0 : 1;
}

struct scenario {
  const char* name;
  int (*run)();
};

const scenario scenarios[] = {
    {"fork_after_scan", fork_after_scan},
    {"fork_during_scan", fork_during_scan},
    {"exit_paths", exit_paths},
    {"exit_with_threads_running", exit_with_threads_running},
    {"oversubscription", oversubscription},
    {"huge_thread_counts", huge_thread_counts},
    {"throwing_hook_terminates", throwing_hook_terminates},
    {"idle_cpu", idle_cpu},
    {"signals", signals},
};

}  // namespace

int main(int argc, char** argv) {
  for (const scenario& s : scenarios) {
    if (argc == 2 && std::strcmp(argv[1], s.name) == 0) {
      const int rc = s.run();
      std::printf("%s: %s\n", s.name, rc == 0 ? "passed" : "FAILED");
      return rc;
    }
  }
  std::printf("usage: %s <scenario>; scenarios:", argv[0]);
  for (const scenario& s : scenarios) std::printf(" %s", s.name);
  std::printf("\n");
  return 2;
}
