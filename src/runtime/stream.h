// An in-order work queue served by its own worker thread: what an aclrtStream handle points to.
#ifndef ACLNN_CPU_RUNTIME_STREAM_H_
#define ACLNN_CPU_RUNTIME_STREAM_H_

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "runtime_internal.h"

namespace aclcpu {

class Stream {
 public:
  Stream();
  ~Stream();  // runs what is queued, then stops the worker
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  void Push(std::function<void()> fn, std::vector<MemoryPin> pins);
  // Waits until everything queued before the call has run.
  void Synchronize();

 private:
  struct Task {
    std::function<void()> fn;
    std::vector<MemoryPin> pins;
  };
  void Serve();

  std::mutex mutex_;
  std::condition_variable work_ready_;
  std::condition_variable work_done_;
  std::deque<Task> queue_;
  uint64_t pushed_ = 0;
  uint64_t finished_ = 0;
  bool stopping_ = false;
  std::thread worker_;
};

}  // namespace aclcpu

#endif  // ACLNN_CPU_RUNTIME_STREAM_H_
