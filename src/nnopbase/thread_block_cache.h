// Memory for objects a program makes and releases on every call -- executors, and tensors, which CANN
// programs describe anew for each call: each thread keeps the blocks of the last few of a kind it
// released for the next it makes, so that such a call neither allocates nor frees on the heap.
#ifndef ACLNN_CPU_NNOPBASE_THREAD_BLOCK_CACHE_H_
#define ACLNN_CPU_NNOPBASE_THREAD_BLOCK_CACHE_H_

#include <cstddef>
#include <new>

namespace aclcpu {

// The blocks one thread keeps for objects of kind Kind (all of one size: a shared_ptr's object and
// its count, as std::allocate_shared makes them).
template <typename Kind>
class ThreadBlockCache {
 public:
  static constexpr int kKeep = 8;

  static void* Take(size_t bytes) {
    Blocks& cache = blocks_;
    if (cache.count > 0 && cache.block_bytes == bytes) return cache.blocks[--cache.count];
    return ::operator new(bytes);
  }
  static void Give(void* block, size_t bytes) {
    Blocks& cache = blocks_;
    if (!cache.closed && cache.count < kKeep && (cache.count == 0 || cache.block_bytes == bytes)) {
      if (cache.count == 0) {               // (not on every call: each thread-local costs a lookup here)
        static thread_local Closer closer;  // registered with the first kept block
        (void)closer;
      }
      cache.block_bytes = bytes;
      cache.blocks[cache.count++] = block;
      return;
    }
    ::operator delete(block);
  }

 private:
  struct Blocks {
    void* blocks[kKeep];
    int count;
    size_t block_bytes;
    bool closed;  // the thread is ending: blocks go back to the heap
  };
  // Gives the blocks back to the heap when the thread ends.
  struct Closer {
    ~Closer() {
      for (int i = 0; i < blocks_.count; ++i) ::operator delete(blocks_.blocks[i]);
      blocks_.count = 0;
      blocks_.closed = true;
    }
  };
  // Trivially destructible, so usable until the thread's very end (an object released by another
  // thread-local's destructor after the closer ran goes to the heap).
  static inline thread_local Blocks blocks_ = {};
};

// std::allocate_shared's allocator for objects of kind Kind, from this thread's ThreadBlockCache.
template <typename U, typename Kind>
struct ThreadCachedAllocator {
  using value_type = U;
  ThreadCachedAllocator() = default;
  template <typename V>
  ThreadCachedAllocator(const ThreadCachedAllocator<V, Kind>&) {}  // NOLINT: rebinding, as allocators convert

  U* allocate(size_t n) { return static_cast<U*>(ThreadBlockCache<Kind>::Take(n * sizeof(U))); }
  void deallocate(U* block, size_t n) { ThreadBlockCache<Kind>::Give(block, n * sizeof(U)); }
  template <typename V>
  bool operator==(const ThreadCachedAllocator<V, Kind>&) const {
    return true;
  }
  template <typename V>
  bool operator!=(const ThreadCachedAllocator<V, Kind>&) const {
    return false;
  }
};

}  // namespace aclcpu

#endif  // ACLNN_CPU_NNOPBASE_THREAD_BLOCK_CACHE_H_
