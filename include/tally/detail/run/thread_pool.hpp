// tally's own threads: one lazily created pool (none exists until a call asks for more
// than one thread). Which thread runs which task never changes a result.
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "../config.hpp"

TALLY_BEGIN_NAMESPACE
namespace detail {

inline unsigned resolve_threads(unsigned requested) noexcept {
  if (requested != 0) return requested;
  const unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : hw;
}

using task_function = void (*)(void* context, std::size_t index);

/// A fork-join pool: run() hands `count` tasks to up to `threads` threads (the caller
/// included) and returns when all are done. One job at a time; a call that finds the pool
/// busy (another thread's scan, or a nested call from a task) runs its tasks itself.
/// Idle workers spin for a short while before sleeping: a long line is scanned in many
/// short fork-joins, and waking a sleeping thread costs tens of microseconds.
class thread_pool {
 public:
  static thread_pool& instance() {
    static thread_pool pool;
    return pool;
  }

  void run(std::size_t count, unsigned threads, task_function task, void* context) noexcept {
    std::unique_lock<std::mutex> busy(busy_, std::try_to_lock);
    std::size_t helpers = std::min<std::size_t>(threads - 1, count - 1);
    if (!busy.owns_lock() || helpers == 0) {
      for (std::size_t i = 0; i < count; ++i) task(context, i);
      return;
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      try {
        while (workers_.size() < helpers) {
          const unsigned id = static_cast<unsigned>(workers_.size());
          workers_.emplace_back([this, id] { work(id); });
        }
      } catch (...) {  // could not start more threads: use those that exist
        helpers = workers_.size();
      }
      task_ = task;
      context_ = context;
      count_ = count;
      next_.store(0, std::memory_order_relaxed);
      wanted_ = static_cast<unsigned>(helpers);
      running_.store(wanted_, std::memory_order_relaxed);
      generation_.store(generation_.load(std::memory_order_relaxed) + 1, std::memory_order_release);
    }
    wake_.notify_all();
    drain();
    for (unsigned spin = 0; running_.load(std::memory_order_acquire) != 0; ++spin) {
      if (spin < spin_limit) {
        spin_pause();
      } else {
        std::unique_lock<std::mutex> lock(mutex_);
        done_.wait(lock, [this] { return running_.load(std::memory_order_acquire) == 0; });
      }
    }
  }

  ~thread_pool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
      generation_.fetch_add(1, std::memory_order_release);
    }
    wake_.notify_all();
    for (auto& w : workers_) w.join();
  }

 private:
  static constexpr unsigned spin_limit = 1u << 16;  // roughly 100 microseconds of pause

  thread_pool() = default;

  void drain() noexcept {
    for (std::size_t i; (i = next_.fetch_add(1, std::memory_order_relaxed)) < count_;) task_(context_, i);
  }

  void work(unsigned id) {
    std::uint64_t seen = 0;
    for (;;) {
      std::uint64_t now = generation_.load(std::memory_order_acquire);
      for (unsigned spin = 0; now == seen && spin < spin_limit; ++spin) {
        spin_pause();
        now = generation_.load(std::memory_order_acquire);
      }
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stop_ || generation_.load(std::memory_order_relaxed) != seen; });
      if (stop_) return;
      seen = generation_.load(std::memory_order_relaxed);
      if (id >= wanted_) continue;
      lock.unlock();
      drain();
      if (running_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        std::lock_guard<std::mutex> done_lock(mutex_);
        done_.notify_all();
      }
    }
  }

  std::mutex busy_;   // held by the caller of the job in flight
  std::mutex mutex_;  // guards the job description and sleeping
  std::condition_variable wake_, done_;
  std::vector<std::thread> workers_;
  std::atomic<std::uint64_t> generation_{0};
  task_function task_ = nullptr;
  void* context_ = nullptr;
  std::size_t count_ = 0;
  std::atomic<std::size_t> next_{0};
  unsigned wanted_ = 0;
  std::atomic<unsigned> running_{0};
  bool stop_ = false;
};

}  // namespace detail
TALLY_END_NAMESPACE
