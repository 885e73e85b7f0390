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
  if (hashed_) return hash_;
  uint64_t hash = static_cast<uint64_t>(size_);
  for (int i = 0; i < size_; ++i) hash = (hash + words_[i]) * 0x9e3779b97f4a7c15u;
  hash_ = hash ^ (hash >> 29);
  hashed_ = true;
  return hash_;
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

bool ExecutorCache::Holds(Entry* entry, const CallKey& key, uint64_t* refound) {
  if (entry == nullptr || entry->key.size() != static_cast<size_t>(key.size()) ||
      std::memcmp(entry->key.data(), key.words(), entry->key.size() * sizeof(uint64_t)) != 0) {
    return false;
  }
  CachedExecutor& cached = entry->executor;
  const LaunchSpec& spec = cached.spec;
  bool live = true;
  for (int k = 0; k < spec.argument_count && live; ++k) live = !cached.allocations[k] || cached.allocations[k]->live;
  if (live) return true;
  // Memory freed and admitted again at the same place (a program that allocates for every call):
  // the call's checks depend only on each storage lying in a live allocation, writable for an
  // output, so the allocations that hold them now stand in for the old ones.
  const void* begins[LaunchSpec::kMaxArguments];
  uint64_t bytes[LaunchSpec::kMaxArguments];
  int argument[LaunchSpec::kMaxArguments];
  int touched = 0;
  for (int k = 0; k < spec.argument_count; ++k) {
    if (spec.arguments[k].storage_bytes == 0) continue;
    begins[touched] = spec.arguments[k].base;
    bytes[touched] = spec.arguments[k].storage_bytes;
    argument[touched++] = k;
  }
  std::shared_ptr<Allocation> found[LaunchSpec::kMaxArguments];
  if (FindDeviceRanges(begins, bytes, touched, found) >= 0) return false;
  for (int i = 0; i < touched; ++i) {
    if (spec.arguments[argument[i]].output && found[i]->read_only) return false;
  }
  for (int i = 0; i < touched; ++i) cached.allocations[argument[i]] = std::move(found[i]);
  ++*refound;
  return true;
}

const CachedExecutor* ExecutorCache::Find(const CallKey& key) {
  Entry*& recent = recent_[RecentSlot(key)];
  Entry* entry = recent;
  if (!Holds(entry, key, &refound_)) {
    auto it = entries_.find(key.Hash());
    entry = it == entries_.end() ? nullptr : it->second.get();
    if (!Holds(entry, key, &refound_)) {
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
  auto found = entries_.find(hash);
  Entry* entry = nullptr;
  if (found != entries_.end()) {
    entry = found->second.get();  // stale, or another key of the same hash: replaced
  } else if (entries_.size() >= limit_) {
    // Full: the oldest entry goes, its node and memory taking the new one (no allocation: calls
    // that never repeat cost the least).
    auto node = entries_.extract(order_.front());
    order_.pop_front();
    node.key() = hash;
    entry = node.mapped().get();
    entries_.insert(std::move(node));
    order_.push_back(hash);
  } else {
    entry = entries_.emplace(hash, std::make_unique<Entry>()).first->second.get();
    order_.push_back(hash);
  }
  // (An entry recycled may still be some group's recent one: Find compares keys.)
  entry->key.assign(key.words(), key.words() + key.size());
  CopyLaunchSpec(spec, &entry->executor.spec);
  for (int k = 0; k < LaunchSpec::kMaxArguments; ++k) {
    entry->executor.allocations[k] = k < spec.argument_count ? allocations[k] : nullptr;
  }
  recent_[RecentSlot(key)] = entry;
}

ExecutorCache* ThreadExecutorCache() {
  // Destroyed with its thread: its entries keep executor specs and allocation records only (the
  // memory of a freed allocation is gone with aclrtFree). The launches it destroys then are the
  // operators' code: nothing here unloads their library before the process's threads end.
  // A process that logs at info or debug keeps nothing: each call runs whole and logs its plan
  // (the level is the process's, read once).
  static thread_local ExecutorCache cache(LogEnabled(kLogInfo) ? 0 : ExecutorCache::LimitFromEnvironment());
  return cache.limit() == 0 ? nullptr : &cache;
}

void CopyLaunchSpec(const LaunchSpec& from, LaunchSpec* to) {
  to->workspace_size = from.workspace_size;
  to->argument_count = from.argument_count;
  std::copy(from.arguments, from.arguments + from.argument_count, to->arguments);
  from.run.CopyTo(&to->run);
}

}  // namespace aclcpu
