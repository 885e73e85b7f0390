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

void RunTask(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const std::exception& e) {
    Log(kLogError, std::string("stream task failed: ") + e.what());
  } catch (...) {
    Log(kLogError, "stream task failed");
  }
}

}  // namespace

void Stream::Push(std::function<void()> fn, std::vector<MemoryPin> pins, bool may_run_inline) {
  for (MemoryPin& pin : pins) pin.MarkQueued();  // synchronous copies of this memory now wait for fn
  std::unique_lock<std::mutex> lock(mutex_);
  ++pushed_;
  if (may_run_inline && !running_ && queue_.empty()) {
    running_ = true;
    lock.unlock();
    RunTask(fn);
    fn = nullptr;
    pins.clear();
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
  queue_.push_back(Task{std::move(fn), std::move(pins)});
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
    Task task = std::move(queue_.front());
    queue_.pop_front();
    running_ = true;
    lock.unlock();
    RunTask(task.fn);
    task = Task{};  // drop the closure and the pins before reporting completion
    lock.lock();
    running_ = false;
    ++finished_;
    if (waiters_ > 0) work_done_.notify_all();
  }
}

}  // namespace aclcpu
