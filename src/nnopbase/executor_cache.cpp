#include "executor_cache.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <utility>

namespace aclcpu {
namespace {

constexpr size_t kDefaultLimit = 10000;     // CANN's documented default for ACLNN_CACHE_LIMIT
constexpr size_t kLargestLimit = 10000000;  // and the top of its range

}  // namespace

uint64_t CallKey::Hash() const {
  uint64_t hash = static_cast<uint64_t>(size_);
  for (int i = 0; i < size_; ++i) hash = (hash + words_[i]) * 0x9e3779b97f4a7c15u;
  return hash ^ (hash >> 29);
}

size_t ExecutorCache::LimitFromEnvironment() {
  const char* text = std::getenv("ACLNN_CACHE_LIMIT");
  if (text == nullptr) return kDefaultLimit;
  char* end = nullptr;
  const unsigned long long value = std::strtoull(text, &end, 10);
  if (end == text) return kDefaultLimit;
  return static_cast<size_t>(std::min<unsigned long long>(value, kLargestLimit));
}

int ExecutorCache::RecentSlot(const CallKey& key) {
  return key.size() == 0 ? 0 : static_cast<int>((key.words()[0] * 0x9e3779b97f4a7c15u) >> 61);  // 3 bits: 8 slots
}

const CachedExecutor* ExecutorCache::Find(const CallKey& key) {
  auto same_call = [&key](const Entry* entry) {
    if (entry == nullptr || entry->key.size() != static_cast<size_t>(key.size()) ||
        std::memcmp(entry->key.data(), key.words(), entry->key.size() * sizeof(uint64_t)) != 0) {
      return false;
    }
    for (int k = 0; k < entry->executor.spec.argument_count; ++k) {
      const std::shared_ptr<Allocation>& allocation = entry->executor.allocations[k];
      if (allocation != nullptr && !allocation->live.load()) return false;  // freed since: check again
    }
    return true;
  };
  const Entry*& recent = recent_[RecentSlot(key)];
  const Entry* entry = recent;
  if (!same_call(entry)) {
    auto it = entries_.find(key.Hash());
    entry = it == entries_.end() ? nullptr : it->second.get();
    if (!same_call(entry)) {
      ++misses_;
      return nullptr;
    }
    recent = entry;
  }
  ++hits_;
  return &entry->executor;
}

void ExecutorCache::Add(const CallKey& key, const LaunchSpec& spec, const std::shared_ptr<Allocation>* allocations) {
  if (!key.complete() || !spec.run.Copyable() || limit_ == 0) return;
  const uint64_t hash = key.Hash();
  auto entry = std::make_unique<Entry>();
  entry->key.assign(key.words(), key.words() + key.size());
  CopyLaunchSpec(spec, &entry->executor.spec);
  std::copy(allocations, allocations + spec.argument_count, entry->executor.allocations);
  std::unique_ptr<Entry>& slot = entries_[hash];
  for (const Entry*& recent : recent_) {
    if (recent == slot.get()) recent = nullptr;  // the entry replaced, if any
  }
  recent_[RecentSlot(key)] = entry.get();
  const bool added = slot == nullptr;  // else the entry under this hash, stale or colliding, is replaced
  slot = std::move(entry);
  if (!added) return;
  order_.push_back(hash);
  if (entries_.size() > limit_) {  // the oldest goes (never the one just added: limit_ >= 1)
    auto oldest = entries_.find(order_.front());
    for (const Entry*& recent : recent_) {
      if (recent == oldest->second.get()) recent = nullptr;
    }
    entries_.erase(oldest);
    order_.pop_front();
  }
}

ExecutorCache* ThreadExecutorCache() {
  // Destroyed with its thread: its entries keep executor specs and allocation records only (the
  // memory of a freed allocation is gone with aclrtFree).
  static thread_local ExecutorCache cache(ExecutorCache::LimitFromEnvironment());
  return cache.limit() == 0 ? nullptr : &cache;
}

void CopyLaunchSpec(const LaunchSpec& from, LaunchSpec* to) {
  to->workspace_size = from.workspace_size;
  to->argument_count = from.argument_count;
  std::copy(from.arguments, from.arguments + from.argument_count, to->arguments);
  from.run.CopyTo(&to->run);
}

}  // namespace aclcpu
