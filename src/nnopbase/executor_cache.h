// The aclnn cache: a phase-one call that repeats an earlier successful one on the same thread gets
// a new executor copied from the earlier one's, without the checks and the tiling again. CANN's
// nnopbase does the same (opbase src/nnopbase/common/utils/op_cache.cpp: one cache per thread, at
// most ACLNN_CACHE_LIMIT entries, 10000 by default, 0 keeping none). Here a call repeats another
// when every input of its phase one is the same: the API, the SoC, the kernels' thread count, the
// attributes, and each tensor's record -- dtype, format, shapes, strides, offset and data address
// (CANN's key leaves the addresses out; here the memory checks and the staging of aliased inputs
// depend on them). The allocations those addresses lay in must still be live, or live again.
#ifndef ACLNN_CPU_NNOPBASE_EXECUTOR_CACHE_H_
#define ACLNN_CPU_NNOPBASE_EXECUTOR_CACHE_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <unordered_map>
#include <vector>

#include "nnopbase/nnopbase_internal.h"

namespace aclcpu {

// What a phase-one result depends on, word by word, as its caller lists it.
class CallKey {
 public:
  static constexpr int kMaxWords = 224;  // six tensors of 8 dims with their strides and storage
  // Words past the end a writer may scribble on (a fixed-size copy of up to kMaxRank dims).
  static constexpr int kSlack = kernel::kMaxRank;
  void Clear() {
    size_ = 0;
    hashed_ = false;
  }
  // Room for count more words, to be written in order; null (and the key incomplete) when the
  // key would outgrow kMaxWords: such a call is not cached.
  uint64_t* Append(size_t count) {
    if (size_ < 0 || count > static_cast<size_t>(kMaxWords - size_)) {
      size_ = -1;
      return nullptr;
    }
    uint64_t* room = words_ + size_;
    size_ += static_cast<int>(count);
    hashed_ = false;
    return room;
  }
  bool complete() const { return size_ >= 0; }
  const uint64_t* words() const { return words_; }
  int size() const { return size_; }  // of a complete key
  uint64_t Hash() const;              // computed once (a miss looks it up, then keeps the call under it)

 private:
  uint64_t words_[kMaxWords + kSlack];  // the first size_ are set
  int size_ = 0;                        // -1: incomplete
  mutable bool hashed_ = false;
  mutable uint64_t hash_ = 0;
};

// A kept phase-one result: the executor's spec and the allocations its arguments lie in.
struct CachedExecutor {
  LaunchSpec spec;
  std::shared_ptr<Allocation> allocations[LaunchSpec::kMaxArguments];
};

struct ExecutorCacheStats {
  uint64_t hits = 0;
  uint64_t misses = 0;
  uint64_t refound = 0;  // hits whose allocations were found again (Find)
  size_t entries = 0;
  size_t limit = 0;
};

// One thread's cache (ThreadExecutorCache); nothing in it is shared with other threads.
class ACLCPU_API ExecutorCache {
 public:
  // ACLNN_CACHE_LIMIT as CANN reads it (a leading number; none or a malformed one: 10000; at most
  // 10,000,000), read when the thread first calls a phase one.
  static size_t LimitFromEnvironment();
  explicit ExecutorCache(size_t limit) : limit_(limit) {}

  // The result kept for key, or null. Its allocations are live: one that aclrtFree or
  // aclrtHostUnregister took since is replaced by the live one that holds the same bytes now, as
  // phase one would find it (none, or a read-only one for an output: null, the call runs whole).
  const CachedExecutor* Find(const CallKey& key);
  // Keeps a copy of the executor's spec and allocations under key, the oldest entry dropped when
  // the cache is full; nothing for an incomplete key or a launch that cannot be copied.
  void Add(const CallKey& key, const LaunchSpec& spec, const std::shared_ptr<Allocation>* allocations);
  size_t limit() const { return limit_; }
  ExecutorCacheStats stats() const { return {hits_, misses_, refound_, entries_.size(), limit_}; }

 private:
  struct Entry {
    std::vector<uint64_t> key;
    CachedExecutor executor;
  };
  // Whether entry is key's, its allocations made live (Find).
  static bool Holds(Entry* entry, const CallKey& key, uint64_t* refound);
  size_t limit_;
  std::unordered_map<uint64_t, std::unique_ptr<Entry>> entries_;  // by the key's hash
  std::deque<uint64_t> order_;                                    // the hashes, oldest first
  // The entry found or added last for each of a few groups of keys, by their first word (an
  // operator's API): a call that repeats its operator's last one is found there without a hash.
  static constexpr int kRecentSlots = 8;
  static int RecentSlot(const CallKey& key);
  Entry* recent_[kRecentSlots] = {};
  uint64_t hits_ = 0;
  uint64_t misses_ = 0;
  uint64_t refound_ = 0;
};

// This thread's cache; null when ACLNN_CACHE_LIMIT is 0 or the log level info or debug.
ACLCPU_API ExecutorCache* ThreadExecutorCache();

// Makes *to a copy of from (its launch copied: LaunchSpec::run.Copyable()).
ACLCPU_API void CopyLaunchSpec(const LaunchSpec& from, LaunchSpec* to);

}  // namespace aclcpu

#endif  // ACLNN_CPU_NNOPBASE_EXECUTOR_CACHE_H_
