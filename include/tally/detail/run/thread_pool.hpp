// tally's own threads: one lazily created pool (none exists until a call asks for more
// than one thread). Which thread runs which task never changes a result. The policy (thread counts, spinning, fork,
// exit) is documented in docs/threads.md. Without threads (TALLY_THREADS == 0, see
// config.hpp) the pool runs every task on the calling thread.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "../config.hpp"
#include "../plan/tuning.hpp"

#if TALLY_THREADS
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#endif

TALLY_BEGIN_NAMESPACE
namespace detail {

/// The machine's hardware threads (read once), or 1 when the platform cannot tell; 1
/// without threads, where tally can use the calling thread only.
inline unsigned hardware_threads() noexcept {
#if TALLY_THREADS
  static const unsigned count = [] {
    const unsigned n = std::thread::hardware_concurrency();
    return n == 0 ? 1u : n;
  }();
  return count;
#else
  return 1;
#endif
}

/// The threads a call runs on: `requested`, or one per hardware thread for 0, and never
/// more than the hardware threads: more would only make the call slower. Without
/// threads a host's pool (`host_pool`) gets `requested` as given (0: 1): tally cannot
/// count the cores there, and the host that runs the tasks knows its own pool.
inline unsigned resolve_threads(unsigned requested, bool host_pool = false) noexcept {
#if !TALLY_THREADS
  if (host_pool) return requested == 0 ? 1 : requested;
#endif
  (void)host_pool;
  const unsigned hw = hardware_threads();
  return requested == 0 || requested > hw ? hw : requested;
}

using task_function = void (*)(void* context, std::size_t index);

#if TALLY_THREADS
TALLY_ALIGNAS_PADDING_BEGIN
/// A fork-join pool: run() hands `count` tasks to up to `threads` threads (the caller
/// included) and returns when all are done.
///
/// - One job at a time: a call that finds the pool busy (another thread's job, or a
///   nested call) runs its tasks itself. Never more workers than hardware threads - 1.
/// - The caller takes tasks too, and waits only for the workers that actually joined its
///   job: a worker that is slow to wake (or does not exist any more) costs nothing.
/// - A job wakes only the workers it uses. A worker spins for spin_time after its last
///   job (a long line is scanned in many short fork-joins, and waking a sleeping thread
///   costs tens of microseconds), then sleeps; so does a caller waiting for its workers.
/// - Never destroyed: the pool object is trivially destructible and its state is leaked
///   on purpose, so a call from a static destructor, an atexit handler or a thread still
///   running at exit finds it intact, and exit never waits for a worker. Calls made once
///   exit() has begun run on the calling thread.
/// - Fork: in a child process the pool forgets the parent's workers (and any job in
///   flight); the child's threaded calls start fresh workers.
class thread_pool {
 public:
  static thread_pool& instance() noexcept {
    static thread_pool pool;  // constant-initialized and trivially destructible: never destroyed
    return pool;
  }

  void run(std::size_t count, unsigned threads, task_function task, void* context) noexcept {
    if (count == 0) return;
    const std::size_t wanted =
        std::min<std::size_t>({threads == 0 ? 0 : threads - 1, count - 1, hardware_threads() - 1});
    state* s = wanted == 0 ? nullptr : acquire();
    if (s == nullptr) {
      for (std::size_t i = 0; i < count; ++i) task(context, i);
      return;
    }
    const unsigned helpers = s->start_workers(static_cast<unsigned>(wanted));
    if (helpers == 0) {
      for (std::size_t i = 0; i < count; ++i) task(context, i);
    } else {
      s->execute(count, helpers, task, context);
    }
    busy_.store(false, std::memory_order_release);
  }

 private:
  static constexpr std::chrono::microseconds spin_time = tuning::pool_spin_time;
  static constexpr std::chrono::microseconds pause_only_time = tuning::pool_pause_only_time;

  /// One worker's wake-up line: the caller bumps `signal`; the worker spins on it, then
  /// sleeps on `wake` with `sleeping` set.
  struct alignas(64) worker_slot {
    std::atomic<std::uint64_t> signal{0};
    std::atomic<bool> sleeping{false};
    std::mutex mutex;
    std::condition_variable wake;
  };

  /// The workers and the job in flight. Allocated at the first threaded call and never
  /// freed: detached workers use it for as long as the process lives.
  struct state {
    explicit state(unsigned capacity_) : capacity(capacity_), slots(new worker_slot[capacity_]) {}

    const unsigned capacity;    // hardware threads - 1
    unsigned started = 0;       // workers started so far (only the job's owner changes it)
    worker_slot* const slots;   // one per possible worker
    state* abandoned = nullptr; // fork children keep the parent's states reachable here

    // The job, written by its owner before `seats` opens it and read by the workers
    // that take a seat.
    task_function task = nullptr;
    void* context = nullptr;
    std::size_t count = 0;
    alignas(64) std::atomic<std::size_t> next{0};  // the next task index to take
    alignas(64) std::atomic<unsigned> seats{0};    // helpers that may still join the job
    std::atomic<unsigned> left{0};                 // helpers that joined and are done
    std::atomic<bool> owner_sleeping{false};
    std::mutex done_mutex;
    std::condition_variable done;

    unsigned start_workers(unsigned wanted) noexcept {
      wanted = (std::min)(wanted, capacity);
      while (started < wanted) {
        try {
          std::thread(&state::work, this, started).detach();
        } catch (...) {  // could not start another thread: use those that exist
          break;
        }
        ++started;
      }
      return (std::min)(wanted, started);
    }

    void execute(std::size_t count_, unsigned helpers, task_function task_, void* context_) noexcept {
      task = task_;
      context = context_;
      count = count_;
      next.store(0, std::memory_order_relaxed);
      left.store(0, std::memory_order_relaxed);
      seats.store(helpers, std::memory_order_release);
      for (unsigned i = 0; i < helpers; ++i) wake(slots[i]);
      drain();
      // Close the job: whoever has not taken a seat by now never will, and every task
      // has been taken; wait for the helpers that joined to finish theirs.
      const unsigned joined = helpers - seats.exchange(0, std::memory_order_acq_rel);
      if (left.load(std::memory_order_acquire) == joined) return;
      if (spin([&] { return left.load(std::memory_order_acquire) == joined; })) return;
      std::unique_lock<std::mutex> lock(done_mutex);
      owner_sleeping.store(true);
      while (left.load() != joined) done.wait(lock);
      owner_sleeping.store(false, std::memory_order_relaxed);
    }

    void drain() noexcept {
      for (std::size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < count;) task(context, i);
    }

    static void wake(worker_slot& slot) noexcept {
      slot.signal.fetch_add(1);
      if (slot.sleeping.load()) {
        { std::lock_guard<std::mutex> lock(slot.mutex); }  // it is inside wait() now, or has seen the signal
        slot.wake.notify_one();
      }
    }

    /// Spins until `ready()` or spin_time has passed, measured on the clock every 16
    /// pauses; returns whether it became ready.
    template <class Ready>
    static bool spin(Ready ready) noexcept {
      const auto start = std::chrono::steady_clock::now();
      for (;;) {
        for (int i = 0; i < 16; ++i) {
          if (ready()) return true;
          spin_pause();
        }
        const auto spun = std::chrono::steady_clock::now() - start;
        if (spun >= spin_time) return ready();
        if (spun >= pause_only_time) std::this_thread::yield();
      }
    }

    /// A worker: waits for its signal, takes a seat in the job if one is still open
    /// (a late wake-up finds none, or a later job's), helps drain it, and waits again.
    static void work(state* self, unsigned id) noexcept {
      worker_slot& me = self->slots[id];
      std::uint64_t seen = 0;
      for (;;) {
        if (!spin([&] { return me.signal.load(std::memory_order_acquire) != seen; })) {
          std::unique_lock<std::mutex> lock(me.mutex);
          me.sleeping.store(true);
          while (me.signal.load() == seen) me.wake.wait(lock);
          me.sleeping.store(false, std::memory_order_relaxed);
        }
        seen = me.signal.load(std::memory_order_acquire);
        self->help();
      }
    }

    void help() noexcept {
      unsigned free = seats.load(std::memory_order_relaxed);
      do {
        if (free == 0) return;
      } while (!seats.compare_exchange_weak(free, free - 1, std::memory_order_acquire, std::memory_order_relaxed));
      drain();
      left.fetch_add(1);
      if (owner_sleeping.load()) {
        { std::lock_guard<std::mutex> lock(done_mutex); }
        done.notify_one();
      }
    }
  };

  constexpr thread_pool() noexcept = default;

  /// The state, with the pool marked busy; nullptr when the call must run inline (the
  /// pool is busy, exit has begun, or the state cannot be allocated).
  state* acquire() noexcept {
    if (shutting_down_.load(std::memory_order_relaxed) || busy_.exchange(true, std::memory_order_acquire))
      return nullptr;
    state* s = state_.load(std::memory_order_relaxed);
    if (s == nullptr) {
      try {
        s = new state(hardware_threads() - 1);
      } catch (...) {
        busy_.store(false, std::memory_order_release);
        return nullptr;
      }
      state_.store(s, std::memory_order_relaxed);
      if (!hooks_registered_) {  // once per process: a fork child inherits the registrations
        hooks_registered_ = true;
#if TALLY_HAS_PTHREAD_ATFORK
        pthread_atfork(nullptr, nullptr, &after_fork_in_child);
#endif
        std::atexit(&at_exit);
      }
    }
    return s;
  }

  /// In a fork child only the forking thread exists: forget the parent's workers and its
  /// job in flight (the old state stays allocated, and reachable, but is never used again).
  static void after_fork_in_child() noexcept {
    thread_pool& pool = instance();
    if (state* old = pool.state_.load(std::memory_order_relaxed)) {
      old->abandoned = pool.abandoned_;
      pool.abandoned_ = old;
      pool.state_.store(nullptr, std::memory_order_relaxed);
    }
    pool.busy_.store(false, std::memory_order_relaxed);
  }

  static void at_exit() noexcept { instance().shutting_down_.store(true, std::memory_order_relaxed); }

  std::atomic<bool> busy_{false};            // held by the owner of the job in flight
  std::atomic<state*> state_{nullptr};       // created by the first threaded call
  std::atomic<bool> shutting_down_{false};   // exit() has begun: run inline
  bool hooks_registered_ = false;            // pthread_atfork and atexit, under busy_
  state* abandoned_ = nullptr;               // the states of parent processes
};
TALLY_ALIGNAS_PADDING_END
#else
/// Without threads: run() runs the tasks in order on the calling thread.
class thread_pool {
 public:
  static thread_pool& instance() noexcept {
    static thread_pool pool;
    return pool;
  }
  void run(std::size_t count, unsigned, task_function task, void* context) noexcept {
    for (std::size_t i = 0; i < count; ++i) task(context, i);
  }
};
#endif

}  // namespace detail
TALLY_END_NAMESPACE
