#include "work_pool.h"

#include <algorithm>

namespace case_runner {

bool WorkPool::RunOnePiece(std::unique_lock<std::mutex>& lock) {
  while (!jobs_.empty()) {
    std::shared_ptr<Job> job = jobs_.front();
    const int64_t index = job->next.fetch_add(1);
    if (index >= job->count) {  // all claimed: no longer queued
      jobs_.pop_front();
      continue;
    }
    if (index + 1 == job->count) jobs_.pop_front();
    lock.unlock();
    (*job->piece)(index);
    lock.lock();
    if (++job->done == job->count) changed_.notify_all();
    return true;
  }
  return false;
}

void WorkPool::ParallelFor(int64_t count, const std::function<void(int64_t)>& piece) {
  if (count <= 0) return;
  if (count == 1) {
    piece(0);
    return;
  }
  auto job = std::make_shared<Job>();
  job->piece = &piece;
  job->count = count;
  std::unique_lock<std::mutex> lock(mutex_);
  jobs_.push_back(job);
  changed_.notify_all();
  // This job's pieces first (the front of the queue may be another's), then anyone's until done.
  for (;;) {
    const int64_t index = job->next.fetch_add(1);
    if (index >= count) break;
    lock.unlock();
    piece(index);
    lock.lock();
    ++job->done;
  }
  while (job->done < count) {
    if (!RunOnePiece(lock)) changed_.wait(lock);
  }
  const auto queued = std::find(jobs_.begin(), jobs_.end(), job);
  if (queued != jobs_.end()) jobs_.erase(queued);
}

void WorkPool::WaitUntil(const std::function<bool()>& ready) {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!ready()) {
    if (!RunOnePiece(lock)) changed_.wait(lock);
  }
}

void WorkPool::Notify() {
  std::lock_guard<std::mutex> lock(mutex_);
  changed_.notify_all();
}

}  // namespace case_runner
