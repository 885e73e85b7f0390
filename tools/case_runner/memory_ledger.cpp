#include "memory_ledger.h"

#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <mutex>
#include <new>
#include <vector>

#include "acl/acl.h"

#if defined(__SANITIZE_ADDRESS__)
#define CASE_RUNNER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CASE_RUNNER_ASAN 1
#endif
#endif
#ifdef CASE_RUNNER_ASAN
#include <sanitizer/asan_interface.h>
#define CASE_RUNNER_POISON(data, bytes) ASAN_POISON_MEMORY_REGION(data, bytes)
#define CASE_RUNNER_UNPOISON(data, bytes) ASAN_UNPOISON_MEMORY_REGION(data, bytes)
#else
#define CASE_RUNNER_POISON(data, bytes) ((void)(data), (void)(bytes))
#define CASE_RUNNER_UNPOISON(data, bytes) ((void)(data), (void)(bytes))
#endif

namespace case_runner {
namespace {

// The pending bytes of all runs in flight.
class PendingBytes {
 public:
  static PendingBytes& Of() {
    static PendingBytes* ledger = new PendingBytes;  // outlives every runner thread
    return *ledger;
  }
  void Add(int64_t bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    bytes_ += bytes;
  }
  int64_t Total() {
    std::lock_guard<std::mutex> lock(mutex_);
    return bytes_;
  }

 private:
  std::mutex mutex_;
  int64_t bytes_ = 0;
};

// MemAvailable of /proc/meminfo in bytes; -1 when it cannot be read.
int64_t MemAvailableNow() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  int64_t kib = 0;
  while (meminfo >> key >> kib) {
    if (key == "MemAvailable:") return kib * 1024;
    meminfo.ignore(64, '\n');
  }
  return -1;
}

struct KeptBlock {
  bool device;
  void* data;
  int64_t capacity;
};

class KeptBlocks {
 public:
  static KeptBlocks& Of() {
    static KeptBlocks* blocks = new KeptBlocks;  // outlives every runner thread
    return *blocks;
  }
  void* Take(bool device, int64_t bytes, int64_t* capacity) {
    std::lock_guard<std::mutex> lock(mutex_);
    size_t best = blocks_.size();
    for (size_t i = 0; i < blocks_.size(); ++i) {
      const KeptBlock& block = blocks_[i];
      if (block.device != device || block.capacity < bytes) continue;
      if (best == blocks_.size() || block.capacity < blocks_[best].capacity) best = i;
    }
    if (best == blocks_.size()) return nullptr;
    const KeptBlock block = blocks_[best];
    blocks_.erase(blocks_.begin() + static_cast<std::ptrdiff_t>(best));
    bytes_ -= block.capacity;
    CASE_RUNNER_UNPOISON(block.data, bytes);
    *capacity = block.capacity;
    return block.data;
  }
  // Keeps the block within the limit, the oldest blocks freed to make room; a block larger than
  // the limit is freed.
  void Keep(bool device, void* data, int64_t capacity) {
    std::vector<KeptBlock> freed;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (capacity > limit_) {
        freed.push_back(KeptBlock{device, data, capacity});
      } else {
        while (bytes_ + capacity > limit_) {
          freed.push_back(blocks_.front());
          bytes_ -= blocks_.front().capacity;
          blocks_.erase(blocks_.begin());
        }
        CASE_RUNNER_POISON(data, capacity);
        blocks_.push_back(KeptBlock{device, data, capacity});
        bytes_ += capacity;
      }
    }
    Free(freed);
  }
  void SetLimit(int64_t bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    limit_ = bytes;
  }
  void Release() {
    std::vector<KeptBlock> blocks;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      blocks.swap(blocks_);
      bytes_ = 0;
    }
    Free(blocks);
  }
  int64_t Bytes() {
    std::lock_guard<std::mutex> lock(mutex_);
    return bytes_;
  }

 private:
  static void Free(const std::vector<KeptBlock>& blocks) {
    for (const KeptBlock& block : blocks) {
      CASE_RUNNER_UNPOISON(block.data, block.capacity);
      if (block.device) {
        aclrtFree(block.data);
      } else {
        ::operator delete (block.data, std::align_val_t{64}, std::nothrow);
      }
    }
  }

  std::mutex mutex_;
  std::vector<KeptBlock> blocks_;  // oldest first
  int64_t bytes_ = 0;
  int64_t limit_ = 0;
};

}  // namespace

namespace kept_memory {
void* Take(bool device, int64_t bytes, int64_t* capacity) { return KeptBlocks::Of().Take(device, bytes, capacity); }
void Keep(bool device, void* data, int64_t capacity) { KeptBlocks::Of().Keep(device, data, capacity); }
void Release() { KeptBlocks::Of().Release(); }
void SetLimit(int64_t bytes) { KeptBlocks::Of().SetLimit(bytes); }
int64_t Bytes() { return KeptBlocks::Of().Bytes(); }
}  // namespace kept_memory

int64_t DefaultMemoryBudget() {
  // MemAvailable: what the kernel says can be used without swapping. Keep a margin for the rest.
  const int64_t available = MemAvailableNow();
  if (available >= 0) return std::max<int64_t>(available / 10 * 9 - kMemoryMargin, int64_t{1} << 28);
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<int64_t>(pages) * page / 2 : int64_t{4} << 30;
}

PendingShare::PendingShare(int64_t bytes) : bytes_(bytes) { PendingBytes::Of().Add(bytes_); }

void PendingShare::Resident() {
  PendingBytes::Of().Add(-bytes_);
  bytes_ = 0;
}

bool FitsAvailableMemory(int64_t need, int64_t own_pending, int64_t* room) {
  if (room != nullptr) *room = -1;
  if (need < kRecheckBytes) return true;
  const auto free_room = [own_pending](int64_t available) {
    return available - kMemoryMargin - (PendingBytes::Of().Total() - own_pending);
  };
  int64_t available = MemAvailableNow();
  if (available < 0) return true;
  // Not enough room: free the kept blocks (counted as room only once freed: another run could
  // take them back meanwhile) and give the heap's free pages back to the system.
  if (need > free_room(available)) {
    kept_memory::Release();
    malloc_trim(0);
    available = MemAvailableNow();
  }
  if (room != nullptr) *room = std::max<int64_t>(free_room(available), 0);
  return need <= free_room(available);
}

std::string ByteText(int64_t bytes) {
  char text[64];
  const double mib = static_cast<double>(bytes) / (1024.0 * 1024.0);
  if (mib < 1024.0) {
    std::snprintf(text, sizeof text, "%lld bytes (%.1f MiB)", static_cast<long long>(bytes), mib);
  } else {
    std::snprintf(text, sizeof text, "%lld bytes (%.2f GiB)", static_cast<long long>(bytes), mib / 1024.0);
  }
  return text;
}

}  // namespace case_runner
