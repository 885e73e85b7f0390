// Opaque handles that are never reused. A handle is a number tagged into a non-canonical address:
// it never equals a real pointer, never names a later object after its own was destroyed, and
// faults at once if anyone dereferences it.
#ifndef ACLNN_CPU_RUNTIME_HANDLE_TABLE_H_
#define ACLNN_CPU_RUNTIME_HANDLE_TABLE_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>

namespace aclcpu {

template <typename T>
class HandleTable {
 public:
  // tag: a few bits that differ per table, so a stream handle is not an event handle.
  explicit HandleTable(uint64_t tag) : tag_(tag << 56) {}

  void* Add(std::shared_ptr<T> object) {
    std::lock_guard<std::mutex> lock(mutex_);
    const uint64_t id = ++last_id_;
    objects_.emplace(id, std::move(object));
    return HandleOf(id);
  }

  std::shared_ptr<T> Find(const void* handle) const {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = objects_.find(IdOf(handle));
    return it == objects_.end() ? nullptr : it->second;
  }

  // Removes the handle; returns its object (null when the handle was not live).
  std::shared_ptr<T> Remove(const void* handle) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = objects_.find(IdOf(handle));
    if (it == objects_.end()) return nullptr;
    std::shared_ptr<T> object = std::move(it->second);
    objects_.erase(it);
    return object;
  }

  // Puts an object back under the handle it had (for an operation that turned out not to happen).
  void Restore(const void* handle, std::shared_ptr<T> object) {
    std::lock_guard<std::mutex> lock(mutex_);
    objects_.emplace(IdOf(handle), std::move(object));
  }

  // Removes every handle; returns the objects.
  template <typename Visit>
  void RemoveAll(Visit visit) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& entry : objects_) visit(std::move(entry.second));
    objects_.clear();
  }

  template <typename Visit>
  void ForEach(Visit visit) const {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& entry : objects_) visit(entry.second);
  }

  // visit(handle, object) for every live handle.
  template <typename Visit>
  void ForEachHandle(Visit visit) const {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& entry : objects_) visit(HandleOf(entry.first), entry.second);
  }

  // Puts object in place of the one handle names; false when the handle is not live.
  bool Replace(const void* handle, std::shared_ptr<T> object) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = objects_.find(IdOf(handle));
    if (it == objects_.end()) return false;
    it->second = std::move(object);
    return true;
  }

  size_t size() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return objects_.size();
  }

 private:
  void* HandleOf(uint64_t id) const { return reinterpret_cast<void*>(static_cast<uintptr_t>(tag_ | id)); }
  uint64_t IdOf(const void* handle) const {
    const uint64_t value = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(handle));
    return (value & ~kIdMask) == tag_ ? (value & kIdMask) : 0;  // 0 is never an id
  }

  static constexpr uint64_t kIdMask = (uint64_t{1} << 56) - 1;
  const uint64_t tag_;
  mutable std::mutex mutex_;
  uint64_t last_id_ = 0;
  std::unordered_map<uint64_t, std::shared_ptr<T>> objects_;
};

}  // namespace aclcpu

#endif  // ACLNN_CPU_RUNTIME_HANDLE_TABLE_H_
