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

void Stream::Push(StreamTask& task, bool may_run_inline) {
  {
    std::unique_lock<std::mutex> lock(mutex_);
    if (!may_run_inline || running_.load() || !queue_.empty()) {
      queue_.push_back(task.Detach());
      queued_.fetch_add(1);
      pushed_.fetch_add(1);
      lock.unlock();
      work_ready_.notify_one();
      return;
    }
    running_.store(true);  // claimed: work pushed from now on queues behind this task
    pushed_.fetch_add(1);
  }
  RunTask(task);
  Finished();
  running_.store(false);
  // Work queued meanwhile waits for running_ to clear. The worker reads it under the mutex, and
  // either this sees the count it raised before that, or the worker sees running_ clear.
  if (queued_.load() > 0) {
    { std::lock_guard<std::mutex> lock(mutex_); }
    work_ready_.notify_one();
  }
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
    std::unique_ptr<StreamTask> task = std::move(queue_.front());
    queue_.pop_front();
    queued_.fetch_sub(1);
    running_.store(true);
    lock.unlock();
    RunTask(*task);  // drops the closure and the pins before completion is reported
    task.reset();
    Finished();
    lock.lock();
    running_.store(false);
  }
}

}  // namespace aclcpu
