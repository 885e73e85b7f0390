#include "stream.h"

#include <exception>
#include <string>
#include <utility>

namespace aclcpu {

Stream::Stream() : worker_([this] { Serve(); }) {}

Stream::~Stream() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  work_ready_.notify_one();
  worker_.join();
}

namespace {

// Runs and releases a task; a failure is logged (the stream goes on with the next task).
void RunTask(StreamTask& task) {
  try {
    task.Run();
  } catch (const std::exception& e) {
    Log(kLogError, std::string("stream task failed: ") + e.what());
  } catch (...) {
    Log(kLogError, "stream task failed");
  }
  task.Release();
}

// A function and the pins it needs, as a stream task.
class FunctionTask final : public StreamTask {
 public:
  FunctionTask(std::function<void()> fn, std::vector<MemoryPin> pins) : fn_(std::move(fn)), pins_(std::move(pins)) {
    for (MemoryPin& pin : pins_) pin.MarkQueued();  // synchronous copies of this memory now wait for fn
  }
  void Run() override { fn_(); }
  void Release() override {
    fn_ = nullptr;
    pins_.clear();
  }
  std::unique_ptr<StreamTask> Detach() override {
    return std::make_unique<FunctionTask>(std::move(fn_), std::move(pins_));
  }

 private:
  std::function<void()> fn_;
  std::vector<MemoryPin> pins_;
};

}  // namespace

void Stream::Push(std::function<void()> fn, std::vector<MemoryPin> pins, bool may_run_inline) {
  FunctionTask task(std::move(fn), std::move(pins));
  Push(task, may_run_inline);
}

// The claim of an idle stream for a task to run inline takes no mutex: the claim is running_'s
// exchange from false (the worker claims it the same way), after which a task queued before it
// makes the claimant give it back and queue behind.
bool Stream::ClaimIdle() {
  if (queued_.load() != 0) return false;
  bool idle = false;
  if (!running_.compare_exchange_strong(idle, true)) return false;
  // Counted before the queue is read again: a task queued before the claim that the read below
  // misses was counted after this one, so a Synchronize that counted it waits for both.
  pushed_.fetch_add(1);
  if (queued_.load() == 0) return true;
  pushed_.fetch_sub(1);  // counted again when queued
  running_.store(false);
  WakeWorker();
  return false;
}

void Stream::WakeWorker() {
  // The worker reads running_ and the queue under the mutex: taking it puts this wake-up after a
  // wait it began, or its reading after the change.
  { std::lock_guard<std::mutex> lock(mutex_); }
  work_ready_.notify_one();
}

void Stream::Push(StreamTask& task, bool may_run_inline) {
  if (!may_run_inline || !ClaimIdle()) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      queue_.push_back(task.Detach());
      queued_.fetch_add(1);
      pushed_.fetch_add(1);
    }
    work_ready_.notify_one();
    return;
  }
  RunTask(task);
  Finished();
  running_.store(false);
  // Work queued meanwhile waits for running_ to clear.
  if (queued_.load() > 0) WakeWorker();
}

void Stream::Finished() {
  finished_.fetch_add(1);
  // A waiter counts itself, then reads finished_, under the mutex: either this sees it, or it sees
  // the new count. Taking the mutex puts the wake-up after its wait began.
  if (waiters_.load() > 0) {
    { std::lock_guard<std::mutex> lock(mutex_); }
    work_done_.notify_all();
  }
}

void Stream::Synchronize() {
  const uint64_t target = pushed_.load();
  if (finished_.load() >= target) return;
  std::unique_lock<std::mutex> lock(mutex_);
  waiters_.fetch_add(1);
  work_done_.wait(lock, [&] { return finished_.load() >= target; });
  waiters_.fetch_sub(1);
}

bool Stream::SynchronizeFor(std::chrono::milliseconds timeout) {
  const uint64_t target = pushed_.load();
  if (finished_.load() >= target) return true;
  std::unique_lock<std::mutex> lock(mutex_);
  waiters_.fetch_add(1);
  const bool done = work_done_.wait_for(lock, timeout, [&] { return finished_.load() >= target; });
  waiters_.fetch_sub(1);
  return done;
}

void Stream::Serve() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    // Queued work waits for a task running inline to finish (it was pushed before).
    work_ready_.wait(lock, [&] { return (stopping_ || !queue_.empty()) && !running_.load(); });
    if (queue_.empty()) return;  // stopping, and everything queued has run
    bool idle = false;
    if (!running_.compare_exchange_strong(idle, true)) continue;  // a caller claimed it first: wait
    std::unique_ptr<StreamTask> task = std::move(queue_.front());
    queue_.pop_front();
    queued_.fetch_sub(1);
    lock.unlock();
    RunTask(*task);  // drops the closure and the pins before completion is reported
    task.reset();
    Finished();
    lock.lock();
    running_.store(false);
  }
}

}  // namespace aclcpu
