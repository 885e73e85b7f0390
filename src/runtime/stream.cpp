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

void Stream::Push(std::function<void()> fn, std::vector<MemoryPin> pins) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.push_back(Task{std::move(fn), std::move(pins)});
    ++pushed_;
  }
  work_ready_.notify_one();
}

void Stream::Synchronize() {
  std::unique_lock<std::mutex> lock(mutex_);
  const uint64_t target = pushed_;
  work_done_.wait(lock, [&] { return finished_ >= target; });
}

void Stream::Serve() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    work_ready_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, and everything queued has run
    Task task = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    try {
      task.fn();
    } catch (const std::exception& e) {
      Log(kLogError, std::string("stream task failed: ") + e.what());
    } catch (...) {
      Log(kLogError, "stream task failed");
    }
    task = Task{};  // drop the closure and the pins before reporting completion
    lock.lock();
    ++finished_;
    work_done_.notify_all();
  }
}

}  // namespace aclcpu
