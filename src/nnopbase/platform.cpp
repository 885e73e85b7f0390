// Platform facts (threads, caches) and the persistent kernel thread pool.
#include <sched.h>
#include <unistd.h>

#include <algorithm>
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

// Workers sleep until a job is posted; the posting thread runs part 0 itself. One job at a time:
// a second caller meanwhile (another stream) runs its parts inline, so cores are never
// oversubscribed and nobody waits on another stream's job.
class ThreadPool final : public kernel::ParallelRunner {
 public:
  explicit ThreadPool(int threads) {
    for (int i = 1; i < threads; ++i) workers_.emplace_back([this, i] { Serve(i); });
  }
  ~ThreadPool() override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    for (std::thread& worker : workers_) worker.join();
  }

  void Run(int parts, const std::function<void(int, int)>& part) override {
    parts = std::min(parts, static_cast<int>(workers_.size()) + 1);
    std::unique_lock<std::mutex> job_lock(job_mutex_, std::try_to_lock);
    if (parts <= 1 || !job_lock.owns_lock()) {
      kernel::InlineRunner().Run(parts < 1 ? 1 : parts, part);
      return;
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      job_ = &part;
      parts_ = parts;
      pending_ = parts - 1;
      ++generation_;
    }
    wake_.notify_all();
    part(0, parts);
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [&] { return pending_ == 0; });
    job_ = nullptr;
  }

 private:
  void Serve(int index) {
    uint64_t seen = 0;
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
      if (stopping_) return;
      seen = generation_;
      if (index >= parts_) continue;
      const std::function<void(int, int)>* job = job_;
      const int parts = parts_;
      lock.unlock();
      (*job)(index, parts);
      lock.lock();
      if (--pending_ == 0) done_.notify_one();
    }
  }

  std::mutex job_mutex_;  // held by the thread whose job is running
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable done_;
  const std::function<void(int, int)>* job_ = nullptr;
  int parts_ = 0;
  int pending_ = 0;
  uint64_t generation_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace

const PlatformFacts& HostPlatform() {
  static const PlatformFacts facts = ReadPlatform();
  return facts;
}

kernel::ParallelRunner& KernelThreadPool() {
  static ThreadPool* pool = new ThreadPool(HostPlatform().threads);  // lives until exit
  return *pool;
}

}  // namespace aclcpu
