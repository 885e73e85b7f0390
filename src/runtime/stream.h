// An in-order work queue served by its own worker thread: what an aclrtStream handle points to.
#ifndef ACLNN_CPU_RUNTIME_STREAM_H_
#define ACLNN_CPU_RUNTIME_STREAM_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
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

  // Queues task after the work already queued. When the stream is idle and may_run_inline, runs it
  // right away on the calling thread instead (the order is the same; a hand-off and a heap copy
  // of the task are saved).
  void Push(StreamTask& task, bool may_run_inline = false);
  // The same for a function and the pins it needs.
  void Push(std::function<void()> fn, std::vector<MemoryPin> pins, bool may_run_inline = false);
  // Waits until everything queued before the call has run.
  void Synchronize();
  // Whether everything queued before the call has run (Synchronize would not wait).
  bool Done() const {
    const uint64_t target = pushed_.load();
    return finished_.load() >= target;
  }
  // As Synchronize, for at most timeout; false when the work had not finished by then.
  bool SynchronizeFor(std::chrono::milliseconds timeout);

  // The context the stream was created in (a context handle; for its release with the context).
  const void* context = nullptr;

 private:
  void Serve();
  // Claims the stream for a task to run inline when nothing is queued or running (and counts the
  // task pushed); false otherwise.
  bool ClaimIdle();
  // Wakes the worker for queued work.
  void WakeWorker();
  // After a task: counts it finished and wakes the threads in Synchronize, if any.
  void Finished();

  // pushed_ counts the tasks in the order they run (a task runs inline only when nothing is queued
  // or running, and counts itself before it looks at the queue a last time), so everything pushed
  // before a Synchronize has run once finished_ reaches the pushed_ it read. A claimant that finds
  // work queued takes its count back and queues: a Synchronize that read that count also waits for
  // its task, pushed at the same time. The claim of an idle stream takes no mutex (giving a claim
  // back, and waking the worker for work queued meanwhile, do), and a Synchronize with nothing
  // pending returns without it. The protocol relies on the atomics' default sequential
  // consistency (a store followed by a load of another atomic).
  std::mutex mutex_;  // queue_, stopping_, the condition variables' waits
  std::condition_variable work_ready_;
  std::condition_variable work_done_;
  std::deque<std::unique_ptr<StreamTask>> queue_;
  std::atomic<uint64_t> queued_{0};   // queue_.size(), readable without the mutex
  std::atomic<bool> running_{false};  // a task runs (on the worker, or inline on a caller)
  std::atomic<uint64_t> pushed_{0};
  std::atomic<uint64_t> finished_{0};
  std::atomic<int> waiters_{0};  // threads in Synchronize
  bool stopping_ = false;
  std::thread worker_;
};

}  // namespace aclcpu

#endif  // ACLNN_CPU_RUNTIME_STREAM_H_
