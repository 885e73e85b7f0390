// The per-thread block cache behind executors and tensors: a block comes back to the thread that
// gives it, of one size only, at most kKeep of them; blocks given at the thread's very end, after its
// cache closed, go to the heap (LeakSanitizer and AddressSanitizer check what becomes of each).
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "nnopbase/thread_block_cache.h"

namespace {

using aclcpu::ThreadBlockCache;
using aclcpu::ThreadCachedAllocator;

struct KindA {};
struct KindB {};
struct KindC {};

TEST(ThreadBlockCache, AThreadTakesBackTheBlocksItGaveOfTheirSizeAndKeepsAFew) {
  std::thread([] {
    using Cache = ThreadBlockCache<KindA>;
    void* first = Cache::Take(96);
    Cache::Give(first, 96);
    EXPECT_EQ(Cache::Take(96), first);  // the same block again
    void* other_size = Cache::Take(128);
    EXPECT_NE(other_size, first);
    Cache::Give(first, 96);
    Cache::Give(other_size, 128);  // not kept beside blocks of another size: freed
    EXPECT_EQ(Cache::Take(96), first);
    // Kept: at most kKeep; the rest freed (LeakSanitizer would see any lost).
    std::vector<void*> blocks;
    for (int i = 0; i < 2 * Cache::kKeep; ++i) blocks.push_back(Cache::Take(96));
    for (void* block : blocks) Cache::Give(block, 96);
    std::vector<void*> again;
    for (int i = 0; i < Cache::kKeep; ++i) again.push_back(Cache::Take(96));
    for (int i = 0; i < Cache::kKeep; ++i) EXPECT_EQ(again[i], blocks[Cache::kKeep - 1 - i]) << i;
    for (void* block : again) Cache::Give(block, 96);
    Cache::Give(first, 96);
  }).join();
}

TEST(ThreadBlockCache, SharedObjectsMadeOnOneThreadAndReleasedOnAnother) {
  std::shared_ptr<std::vector<int>> made;
  std::thread([&] {
    made = std::allocate_shared<std::vector<int>>(ThreadCachedAllocator<std::vector<int>, KindB>(), 3, 7);
  }).join();
  std::thread([&] {
    EXPECT_EQ((*made)[2], 7);
    made.reset();  // kept by this thread's cache, freed when it ends
  }).join();
}

// A block given by a thread_local destroyed after the cache's closer (made first, so destroyed
// last) goes to the heap instead of a cache no one will empty.
TEST(ThreadBlockCache, ABlockGivenAfterTheThreadsCacheClosedIsFreed) {
  static std::atomic<bool> given{false};
  struct GivesAtThreadEnd {
    void* block = nullptr;
    ~GivesAtThreadEnd() {
      ThreadBlockCache<KindC>::Give(block, 64);
      given = true;
    }
  };
  std::thread([] {
    static thread_local GivesAtThreadEnd late;  // made before the closer: destroyed after it
    late.block = ThreadBlockCache<KindC>::Take(64);
    ThreadBlockCache<KindC>::Give(ThreadBlockCache<KindC>::Take(64), 64);  // registers the closer
  }).join();
  EXPECT_TRUE(given.load());
}

}  // namespace
