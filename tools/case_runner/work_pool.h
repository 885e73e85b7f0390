// The runner's threads: `threads` workers, each running whole cases (a "driver") and, whenever it
// would otherwise wait, pieces of any case's parallel work. So a large case's input generation,
// golden and judging spread over every thread, and no thread idles while work is queued.
#ifndef ACLNN_CPU_TOOLS_CASE_RUNNER_WORK_POOL_H_
#define ACLNN_CPU_TOOLS_CASE_RUNNER_WORK_POOL_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>

namespace case_runner {

class WorkPool {
 public:
  // Calls piece(i) for every i in [0, count) and returns when all have run. The calling thread runs
  // pieces too, and so does every thread of the pool that is waiting. Pieces must not call
  // ParallelFor themselves.
  void ParallelFor(int64_t count, const std::function<void(int64_t)>& piece);

  // Waits until ready() holds, running queued pieces meanwhile. ready() is checked under the pool's
  // lock; call Notify() after changing what it reads.
  void WaitUntil(const std::function<bool()>& ready);
  void Notify();

 private:
  struct Job {
    const std::function<void(int64_t)>* piece;
    int64_t count;
    std::atomic<int64_t> next{0};  // the next piece to claim
    int64_t done = 0;              // pieces finished (under mutex_)
  };
  // Runs one piece of any queued job; false when none is left to claim. Called with lock held;
  // releases it while the piece runs.
  bool RunOnePiece(std::unique_lock<std::mutex>& lock);

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::shared_ptr<Job>> jobs_;  // jobs with pieces left to claim
};

}  // namespace case_runner

#endif  // ACLNN_CPU_TOOLS_CASE_RUNNER_WORK_POOL_H_
