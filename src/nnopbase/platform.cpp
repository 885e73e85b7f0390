// Platform facts (threads, caches) and the persistent kernel thread pool.
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "nnopbase_internal.h"

namespace aclcpu {
namespace {

int AvailableCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

int64_t CacheSize(int name, int64_t fallback) {
  const long value = sysconf(name);
  return value > 0 ? value : fallback;
}

PlatformFacts ReadPlatform() {
  PlatformFacts facts;
  facts.threads = AvailableCpus();
  if (const char* text = std::getenv("ACLNN_CPU_NUM_THREADS")) {
    char* end = nullptr;
    const long value = std::strtol(text, &end, 10);
    if (end != text && *end == '\0' && value >= 1 && value <= 1024) {
      facts.threads = static_cast<int>(value);
    } else {
      Log(kLogWarning, std::string("ACLNN_CPU_NUM_THREADS=") + text + " is not a count from 1 to 1024; ignored");
    }
  }
  facts.l2_bytes = CacheSize(_SC_LEVEL2_CACHE_SIZE, facts.l2_bytes);
  facts.llc_bytes = std::max(CacheSize(_SC_LEVEL3_CACHE_SIZE, facts.llc_bytes), facts.l2_bytes);
  return facts;
}

// Workers wait for a job, spinning for a short while before they sleep, so that a launch that
// follows another soon gets its threads without a wake-up. The posting thread runs part 0 itself.
// One job at a time: a second caller meanwhile (another stream) runs its parts inline, so cores
// are never oversubscribed and nobody waits on another stream's job.
class ThreadPool final : public kernel::ParallelRunner {
 public:
  ThreadPool() = default;
  ~ThreadPool() override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
      stopping_flag_ = true;
    }
    wake_.notify_all();
    for (std::thread& worker : workers_) worker.join();
  }

  void Run(int parts, const std::function<void(int, int)>& part) override {
    std::unique_lock<std::mutex> job_lock(job_mutex_, std::try_to_lock);
    if (parts <= 1 || !job_lock.owns_lock()) {
      kernel::InlineRunner().Run(parts < 1 ? 1 : parts, part);
      return;
    }
    while (static_cast<int>(workers_.size()) + 1 < parts) {  // grows under job_mutex_ only
      const int index = static_cast<int>(workers_.size()) + 1;
      workers_.emplace_back([this, index] { Serve(index); });
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      job_ = &part;
      parts_ = parts;
      pending_.store(parts - 1, std::memory_order_relaxed);
      generation_.fetch_add(1, std::memory_order_release);
      if (sleepers_ > 0) wake_.notify_all();
    }
    part(0, parts);
    if (!SpinUntil([&] { return pending_.load(std::memory_order_acquire) == 0; })) {
      std::unique_lock<std::mutex> lock(mutex_);
      done_.wait(lock, [&] { return pending_.load(std::memory_order_acquire) == 0; });
    }
  }

 private:
  // Spins up to kSpinTime for done(); true when it became true.
  template <typename Done>
  static bool SpinUntil(Done done) {
    constexpr auto kSpinTime = std::chrono::microseconds(30);
    const auto deadline = std::chrono::steady_clock::now() + kSpinTime;
    for (int i = 0;; ++i) {
      if (done()) return true;
      if ((i & 63) == 63 && std::chrono::steady_clock::now() > deadline) return false;
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#elif defined(__aarch64__)
      asm volatile("yield");
#endif
    }
  }

  void Serve(int index) {
    uint64_t seen = 0;
    for (;;) {
      SpinUntil([&] {
        return generation_.load(std::memory_order_acquire) != seen || stopping_flag_.load(std::memory_order_relaxed);
      });
      std::unique_lock<std::mutex> lock(mutex_);
      if (generation_.load(std::memory_order_relaxed) == seen && !stopping_) {
        ++sleepers_;
        wake_.wait(lock, [&] { return stopping_ || generation_.load(std::memory_order_relaxed) != seen; });
        --sleepers_;
      }
      if (stopping_) return;
      seen = generation_.load(std::memory_order_relaxed);
      const std::function<void(int, int)>* job = job_;
      const int parts = parts_;
      lock.unlock();
      if (index >= parts) continue;
      (*job)(index, parts);
      if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        std::lock_guard<std::mutex> done_lock(mutex_);
        done_.notify_one();
      }
    }
  }

  std::mutex job_mutex_;  // held by the thread whose job is running
  std::mutex mutex_;      // guards job_, parts_, sleepers_, stopping_
  std::condition_variable wake_;
  std::condition_variable done_;
  const std::function<void(int, int)>* job_ = nullptr;
  int parts_ = 0;
  int sleepers_ = 0;
  bool stopping_ = false;
  std::atomic<bool> stopping_flag_{false};
  std::atomic<uint64_t> generation_{0};
  std::atomic<int> pending_{0};
  std::vector<std::thread> workers_;
};

}  // namespace

const PlatformFacts& HostPlatform() {
  static const PlatformFacts facts = ReadPlatform();
  return facts;
}

namespace {
std::atomic<int> kernel_threads{0};  // 0: HostPlatform().threads
}  // namespace

kernel::ParallelRunner& KernelThreadPool() {
  static ThreadPool* pool = new ThreadPool;  // lives until exit
  return *pool;
}

int KernelThreadCount() {
  const int threads = kernel_threads.load(std::memory_order_relaxed);
  return threads > 0 ? threads : HostPlatform().threads;
}

void SetKernelThreadCount(int threads) { kernel_threads.store(std::max(threads, 0), std::memory_order_relaxed); }

}  // namespace aclcpu
