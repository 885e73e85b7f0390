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
  std::unique_lock<std::mutex> lock(mutex_);
  ++pushed_;
  if (may_run_inline && !running_ && queue_.empty()) {
    running_ = true;
    lock.unlock();
    RunTask(task);
    lock.lock();
    running_ = false;
    ++finished_;
    // Wake only who is waiting: a needless wake-up costs a system call and a context switch.
    const bool wake_worker = !queue_.empty();
    const bool wake_waiters = waiters_ > 0;
    lock.unlock();
    if (wake_waiters) work_done_.notify_all();
    if (wake_worker) work_ready_.notify_one();  // work queued meanwhile by other threads
    return;
  }
  std::unique_ptr<StreamTask> queued;
  try {
    queued = task.Detach();
    queue_.push_back(std::move(queued));
  } catch (...) {
    --pushed_;  // not queued after all
    throw;
  }
  lock.unlock();
  work_ready_.notify_one();
}

void Stream::Synchronize() {
  std::unique_lock<std::mutex> lock(mutex_);
  const uint64_t target = pushed_;
  if (finished_ >= target) return;
  ++waiters_;
  work_done_.wait(lock, [&] { return finished_ >= target; });
  --waiters_;
}

bool Stream::SynchronizeFor(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mutex_);
  const uint64_t target = pushed_;
  if (finished_ >= target) return true;
  ++waiters_;
  const bool done = work_done_.wait_for(lock, timeout, [&] { return finished_ >= target; });
  --waiters_;
  return done;
}

void Stream::Serve() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    work_ready_.wait(lock, [&] { return (stopping_ && !running_) || (!queue_.empty() && !running_); });
    if (queue_.empty()) return;  // stopping, and everything queued has run
    std::unique_ptr<StreamTask> task = std::move(queue_.front());
    queue_.pop_front();
    running_ = true;
    lock.unlock();
    RunTask(*task);  // drops the closure and the pins before completion is reported
    task.reset();
    lock.lock();
    running_ = false;
    ++finished_;
    if (waiters_ > 0) work_done_.notify_all();
  }
}

}  // namespace aclcpu
