// Device memory is host memory handed out by aclrtMalloc and recorded here, so that every tensor
// and copy can be checked against a live allocation, and aclrtFree can wait for queued work.
#include "memory.h"

#include <sys/mman.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <mutex>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "api_guard.h"
#include "runtime_state.h"

namespace aclcpu {
namespace {

constexpr size_t kDeviceAlignment = 64;
constexpr size_t kHugePage = size_t{2} << 20;
constexpr uintptr_t kHostRegisterAlignment = 4096;  // "4K page aligned" (CANN's aclrtHostRegister)

// Allocations and registrations are kept apart: on an NPU, device memory and host memory are
// different address spaces, so a host registration never meets an aclrtMalloc allocation there
// (CANN checks registrations against each other only: register_memory.cc). Here both are host
// memory and may share a page, so each map is free of overlaps on its own.
using RangeMap = std::map<uintptr_t, std::shared_ptr<Allocation>>;  // by base address

struct Registry {
  std::mutex mutex;
  RangeMap device;      // aclrtMalloc
  RangeMap registered;  // aclrtHostRegister
  std::unordered_set<void*> host;
};

Registry& TheRegistry() {
  static Registry* registry = new Registry;  // never destroyed: streams may free during exit
  return *registry;
}

// Whether [address, address + bytes) lies inside the allocation's bytes (bytes 0: address does).
bool Holds(const Allocation& allocation, uintptr_t address, uint64_t bytes) {
  const uintptr_t base = reinterpret_cast<uintptr_t>(allocation.base);
  return address >= base && address - base < allocation.size && bytes <= allocation.size - (address - base);
}

// Removes and returns the entry of `from` that starts at address, under the registry's lock; null
// when there is none, with *in_other telling whether `other` has one there (the caller's message
// then names the function that releases it).
std::shared_ptr<Allocation> TakeStartingAt(Registry& registry, RangeMap& from, const RangeMap& other, uintptr_t address,
                                           bool* in_other) {
  std::lock_guard<std::mutex> lock(registry.mutex);
  auto it = from.find(address);
  if (it == from.end()) {
    *in_other = other.count(address) != 0;
    return nullptr;
  }
  std::shared_ptr<Allocation> allocation = std::move(it->second);
  from.erase(it);
  return allocation;
}

// The entry of ranges that holds [address, address + bytes), or null.
std::shared_ptr<Allocation> FindIn(const RangeMap& ranges, uintptr_t address, uint64_t bytes) {
  auto it = ranges.upper_bound(address);
  if (it == ranges.begin()) return nullptr;
  --it;
  return Holds(*it->second, address, bytes) ? it->second : nullptr;
}

// The allocation (else the registered range) that holds [address, address + bytes), or null.
std::shared_ptr<Allocation> FindLocked(const Registry& registry, uintptr_t address, uint64_t bytes) {
  std::shared_ptr<Allocation> found = FindIn(registry.device, address, bytes);
  return found ? found : FindIn(registry.registered, address, bytes);
}

// Whether any entry of ranges overlaps [address, address + bytes).
bool OverlapsIn(const RangeMap& ranges, uintptr_t address, uint64_t bytes) {
  auto next = ranges.lower_bound(address);
  if (next != ranges.end() && next->first - address < bytes) return true;
  if (next == ranges.begin()) return false;
  const Allocation& before = *std::prev(next)->second;
  return address - reinterpret_cast<uintptr_t>(before.base) < before.size;
}

// Waits until done() holds; done reads the allocation's pin counts.
template <typename Done>
void WaitForPins(Allocation& allocation, Done done) {
  allocation.waiters.fetch_add(1);  // before reading the counts: an unpin after that read notifies
  {
    std::unique_lock<std::mutex> lock(allocation.mutex);
    allocation.released.wait(lock, done);
  }
  allocation.waiters.fetch_sub(1);
}

std::string Hex(const void* ptr) {
  char text[32];
  std::snprintf(text, sizeof text, "%p", ptr);
  return text;
}

// Whether the destination (or source) side of a copy of this kind is device memory. Copies
// through a buffer are host to device; within and between devices (one here) device to device.
bool IsDeviceKind(aclrtMemcpyKind kind, bool destination) {
  switch (kind) {
    case ACL_MEMCPY_HOST_TO_DEVICE:
    case ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE:
      return destination;
    case ACL_MEMCPY_DEVICE_TO_HOST:
      return !destination;
    case ACL_MEMCPY_DEVICE_TO_DEVICE:
    case ACL_MEMCPY_INNER_DEVICE_TO_DEVICE:
    case ACL_MEMCPY_INTER_DEVICE_TO_DEVICE:
      return true;
    default:
      return false;
  }
}

// An aclrtMemMallocPolicy: one of the page policies, with any of the memory-type and access flags.
bool IsMallocPolicy(int policy) {
  const int flags = ACL_MEM_TYPE_LOW_BAND_WIDTH | ACL_MEM_TYPE_HIGH_BAND_WIDTH | ACL_MEM_ACCESS_USER_SPACE_READONLY;
  const int page_policy = policy & ~flags;
  return policy >= 0 && page_policy >= ACL_MEM_MALLOC_HUGE_FIRST && page_policy <= ACL_MEM_MALLOC_HUGE1G_ONLY_P2P;
}

// The policies that ask for normal pages only.
bool IsNormalPagePolicy(int policy) {
  const int page_policy = policy & 0xff;
  return page_policy == ACL_MEM_MALLOC_NORMAL_ONLY || page_policy == ACL_MEM_MALLOC_NORMAL_ONLY_P2P;
}

// Checks one side of a copy: a device side must lie inside an allocation or a registered range (one
// the copy writes: not a read-only one), a host side must not point into an aclrtMalloc allocation.
// On success a device side is pinned into *pin.
aclError CheckCopySide(const char* api, const char* name, const void* ptr, size_t count, bool device, bool writes,
                       MemoryPin* pin) {
  if (device) {
    if (!PinDeviceRange(ptr, count, pin)) {
      SetRecentError(std::string(api) + ": " + name + " " + Hex(ptr) + " + " + std::to_string(count) + " bytes " +
                     kOutsideDeviceMemory);
      return ACL_ERROR_INVALID_PARAM;
    }
    if (writes && pin->allocation()->read_only) {
      SetRecentError(std::string(api) + ": " + name + " " + Hex(ptr) +
                     " is host memory registered read-only (ACL_HOST_REGISTER_READONLY)");
      return ACL_ERROR_INVALID_PARAM;
    }
    return ACL_SUCCESS;
  }
  // Registered host memory is host memory too (its device address is its host address here).
  std::shared_ptr<Allocation> allocation = FindAllocation(ptr);
  if (allocation != nullptr && !allocation->registered) {
    SetRecentError(std::string(api) + ": " + name + " " + Hex(ptr) +
                   " is device memory but the copy kind says host memory");
    return ACL_ERROR_INVALID_PARAM;
  }
  return ACL_SUCCESS;
}

// Validates a copy and pins its device sides. kind DEFAULT is resolved from the pointers.
aclError PrepareCopy(const char* api, void* dst, size_t destMax, const void* src, size_t count, aclrtMemcpyKind kind,
                     MemoryPin* dst_pin, MemoryPin* src_pin) {
  if (aclError code = CheckDeviceReady(api)) return code;
  if (dst == nullptr || src == nullptr) {
    SetRecentError(std::string(api) + ": " + (dst == nullptr ? "dst" : "src") + " is null");
    return ACL_ERROR_INVALID_PARAM;
  }
  if (count > destMax) {
    SetRecentError(std::string(api) + ": count " + std::to_string(count) + " exceeds destMax " +
                   std::to_string(destMax));
    return ACL_ERROR_INVALID_PARAM;
  }
  const int kind_value = EnumBits(kind);
  if (kind_value < ACL_MEMCPY_HOST_TO_HOST || kind_value > ACL_MEMCPY_INTER_DEVICE_TO_DEVICE) {
    SetRecentError(std::string(api) + ": kind " + std::to_string(kind_value) + " is not an aclrtMemcpyKind");
    return ACL_ERROR_INVALID_PARAM;
  }
  if (kind == ACL_MEMCPY_DEFAULT) {
    const bool dst_device = FindAllocation(dst) != nullptr;
    const bool src_device = FindAllocation(src) != nullptr;
    kind = dst_device ? (src_device ? ACL_MEMCPY_DEVICE_TO_DEVICE : ACL_MEMCPY_HOST_TO_DEVICE)
                      : (src_device ? ACL_MEMCPY_DEVICE_TO_HOST : ACL_MEMCPY_HOST_TO_HOST);
  }
  if (aclError code = CheckCopySide(api, "dst", dst, count, IsDeviceKind(kind, true), true, dst_pin)) return code;
  return CheckCopySide(api, "src", src, count, IsDeviceKind(kind, false), false, src_pin);
}

// Waits until queued work no longer uses the allocations of these pins (which may be the same
// one). Copies running on other host threads are not waited for: they need no order.
void WaitForQueuedWork(const MemoryPin& a, const MemoryPin& b) {
  for (const MemoryPin* pin : {&a, &b}) {
    Allocation* allocation = const_cast<Allocation*>(pin->allocation());
    if (allocation == nullptr) continue;
    WaitForPins(*allocation, [&] { return allocation->QueuedPins() == 0; });
  }
}

}  // namespace

void WakePinWaiters(Allocation& allocation) {
  { std::lock_guard<std::mutex> lock(allocation.mutex); }  // a waiter is either past its check or asleep
  allocation.released.notify_all();
}

std::shared_ptr<Allocation> FindAllocation(const void* ptr) { return FindDeviceRange(ptr, 0); }

std::shared_ptr<Allocation> FindDeviceRange(const void* ptr, uint64_t bytes) {
  Registry& registry = TheRegistry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  return FindLocked(registry, reinterpret_cast<uintptr_t>(ptr), bytes);
}

namespace {

// The allocations this thread found last, newest first. An entry is the answer while its
// allocation is live (allocations never overlap); one that aclrtFree took is skipped and replaced.
struct RecentAllocations {
  static constexpr int kSize = 8;
  // Each entry's base and size beside it (they never change once recorded), so that a lookup reads
  // no allocation but the one that holds the range; size 0: no entry.
  uintptr_t bases[kSize] = {};
  uint64_t sizes[kSize] = {};
  std::shared_ptr<Allocation> entries[kSize];

  const std::shared_ptr<Allocation>* Find(uintptr_t address, uint64_t bytes) const {
    for (int i = 0; i < kSize; ++i) {
      const uint64_t from_base = address - bases[i];  // wraps past any size when address < base
      if (from_base < sizes[i] && bytes <= sizes[i] - from_base && entries[i]->live.load()) return &entries[i];
    }
    return nullptr;
  }
  void Remember(const std::shared_ptr<Allocation>& allocation) {
    for (int i = kSize - 1; i > 0; --i) {
      entries[i] = std::move(entries[i - 1]);
      bases[i] = bases[i - 1];
      sizes[i] = sizes[i - 1];
    }
    entries[0] = allocation;
    bases[0] = reinterpret_cast<uintptr_t>(allocation->base);
    sizes[0] = allocation->size;
  }
};
// This thread's list, found once per use (a shared library's thread-local costs a call each time).
__attribute__((noinline)) RecentAllocations& ThreadRecentAllocations() {
  static thread_local RecentAllocations recent;
  return recent;
}

}  // namespace

int FindDeviceRanges(const void* const* ptrs, const uint64_t* bytes, int count, std::shared_ptr<Allocation>* found) {
  RecentAllocations& recent = ThreadRecentAllocations();
  int missing = 0;
  for (int i = 0; i < count; ++i) {
    if (const std::shared_ptr<Allocation>* hit = recent.Find(reinterpret_cast<uintptr_t>(ptrs[i]), bytes[i])) {
      found[i] = *hit;
    } else {
      found[i] = nullptr;
      ++missing;
    }
  }
  if (missing == 0) return -1;
  Registry& registry = TheRegistry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  for (int i = 0; i < count; ++i) {
    if (found[i]) continue;
    found[i] = FindLocked(registry, reinterpret_cast<uintptr_t>(ptrs[i]), bytes[i]);
    if (!found[i]) return i;
    recent.Remember(found[i]);
  }
  return -1;
}

bool PinDeviceRange(const void* ptr, uint64_t bytes, MemoryPin* pin) {
  std::shared_ptr<Allocation> allocation = FindDeviceRange(ptr, bytes);
  if (allocation == nullptr) return false;
  if (pin != nullptr) {
    *pin = MemoryPin(std::move(allocation), false);
    return pin->pinned();  // false when aclrtFree took it since the lookup
  }
  return true;
}

void WaitUntilUnused(Allocation& allocation) {
  WaitForPins(allocation, [&] { return allocation.AllPins() == 0; });
}

void Retire(Allocation& allocation) {
  allocation.live.store(false);  // no new pins; then wait for those taken
  // (A pin counts first, then looks at live: seeing no pins after clearing live, none can come.)
  if (allocation.AllPins() == 0) return;
  WaitUntilUnused(allocation);  // queued work and copies that use it end first
}

}  // namespace aclcpu

using aclcpu::Guarded;
using aclcpu::MemoryPin;
using aclcpu::SetRecentError;

extern "C" {

ACL_FUNC_VISIBILITY aclError aclrtMalloc(void** devPtr, size_t size, aclrtMemMallocPolicy policy) {
  return Guarded("aclrtMalloc", ACL_ERROR_RT_MEMORY_ALLOCATION, ACL_ERROR_INTERNAL_ERROR, [&]() -> aclError {
    if (aclError code = aclcpu::CheckDeviceReady("aclrtMalloc")) return code;
    if (devPtr == nullptr) {
      SetRecentError("aclrtMalloc: devPtr is null");
      return ACL_ERROR_INVALID_PARAM;
    }
    if (size == 0) {
      SetRecentError("aclrtMalloc: size is 0");
      return ACL_ERROR_INVALID_PARAM;
    }
    const int policy_value = aclcpu::EnumBits(policy);
    if (!aclcpu::IsMallocPolicy(policy_value)) {
      SetRecentError("aclrtMalloc: policy " + std::to_string(policy_value) + " is not an aclrtMemMallocPolicy");
      return ACL_ERROR_INVALID_PARAM;
    }
    if (size > SIZE_MAX - aclcpu::kHugePage) {
      SetRecentError("aclrtMalloc: size " + std::to_string(size) + " is too large");
      return ACL_ERROR_RT_MEMORY_ALLOCATION;
    }
    // Large allocations under the HUGE policies (the 1 GiB ones included) get 2 MiB alignment and
    // transparent huge pages: fewer TLB misses for kernels that walk them across rows. The memory
    // type and access flags change nothing on a host.
    const bool huge = size >= aclcpu::kHugePage && !aclcpu::IsNormalPagePolicy(policy_value);
    const size_t alignment = huge ? aclcpu::kHugePage : aclcpu::kDeviceAlignment;
    const size_t rounded = (size + alignment - 1) / alignment * alignment;
    void* memory = nullptr;
    if (posix_memalign(&memory, alignment, rounded) != 0 || memory == nullptr) {
      SetRecentError("aclrtMalloc: cannot allocate " + std::to_string(size) + " bytes");
      return ACL_ERROR_RT_MEMORY_ALLOCATION;
    }
    if (huge) madvise(memory, rounded, MADV_HUGEPAGE);  // advice: where it is refused, nothing changes
    auto allocation = std::make_shared<aclcpu::Allocation>();
    allocation->base = static_cast<char*>(memory);
    allocation->size = size;
    aclcpu::Registry& registry = aclcpu::TheRegistry();
    {
      std::lock_guard<std::mutex> lock(registry.mutex);
      registry.device.emplace(reinterpret_cast<uintptr_t>(memory), std::move(allocation));
    }
    *devPtr = memory;
    return ACL_SUCCESS;
  });
}

ACL_FUNC_VISIBILITY aclError aclrtFree(void* devPtr) {
  return Guarded("aclrtFree", ACL_ERROR_RT_MEMORY_FREE, ACL_ERROR_INTERNAL_ERROR, [&]() -> aclError {
    if (devPtr == nullptr) {
      SetRecentError("aclrtFree: devPtr is null");
      return ACL_ERROR_INVALID_PARAM;
    }
    aclcpu::Registry& registry = aclcpu::TheRegistry();
    bool registered = false;
    const std::shared_ptr<aclcpu::Allocation> allocation = aclcpu::TakeStartingAt(
        registry, registry.device, registry.registered, reinterpret_cast<uintptr_t>(devPtr), &registered);
    if (!allocation) {
      SetRecentError("aclrtFree: " + aclcpu::Hex(devPtr) + " is not the start of a live aclrtMalloc allocation" +
                     (registered ? " (it is registered host memory: aclrtHostUnregister)" : ""));
      return ACL_ERROR_INVALID_PARAM;
    }
    aclcpu::Retire(*allocation);
    std::free(allocation->base);  // base and size stay as they were: other threads may still compare them
    return ACL_SUCCESS;
  });
}

ACL_FUNC_VISIBILITY aclError aclrtMallocHost(void** hostPtr, size_t size) {
  return Guarded("aclrtMallocHost", ACL_ERROR_RT_MEMORY_ALLOCATION, ACL_ERROR_INTERNAL_ERROR, [&]() -> aclError {
    if (aclError code = aclcpu::CheckInitialized("aclrtMallocHost")) return code;
    if (hostPtr == nullptr || size == 0) {
      SetRecentError(hostPtr == nullptr ? "aclrtMallocHost: hostPtr is null" : "aclrtMallocHost: size is 0");
      return ACL_ERROR_INVALID_PARAM;
    }
    void* memory = nullptr;
    if (size > SIZE_MAX - aclcpu::kDeviceAlignment || posix_memalign(&memory, aclcpu::kDeviceAlignment, size) != 0) {
      SetRecentError("aclrtMallocHost: cannot allocate " + std::to_string(size) + " bytes");
      return ACL_ERROR_RT_MEMORY_ALLOCATION;
    }
    aclcpu::Registry& registry = aclcpu::TheRegistry();
    {
      std::lock_guard<std::mutex> lock(registry.mutex);
      registry.host.insert(memory);
    }
    *hostPtr = memory;
    return ACL_SUCCESS;
  });
}

ACL_FUNC_VISIBILITY aclError aclrtFreeHost(void* hostPtr) {
  return Guarded("aclrtFreeHost", ACL_ERROR_RT_MEMORY_FREE, ACL_ERROR_INTERNAL_ERROR, [&]() -> aclError {
    aclcpu::Registry& registry = aclcpu::TheRegistry();
    {
      std::lock_guard<std::mutex> lock(registry.mutex);
      if (hostPtr == nullptr || registry.host.erase(hostPtr) == 0) {
        SetRecentError("aclrtFreeHost: " + aclcpu::Hex(hostPtr) + " is not a live aclrtMallocHost allocation");
        return ACL_ERROR_INVALID_PARAM;
      }
    }
    std::free(hostPtr);
    return ACL_SUCCESS;
  });
}

ACL_FUNC_VISIBILITY aclError aclrtHostRegister(void* ptr, uint64_t size, aclrtHostRegisterType type, void** devPtr) {
  return Guarded("aclrtHostRegister", ACL_ERROR_RT_MEMORY_ALLOCATION, ACL_ERROR_INTERNAL_ERROR, [&]() -> aclError {
    if (aclError code = aclcpu::CheckDeviceReady("aclrtHostRegister")) return code;
    if (ptr == nullptr || devPtr == nullptr) {
      SetRecentError(std::string("aclrtHostRegister: ") + (ptr == nullptr ? "ptr" : "devPtr") + " is null");
      return ACL_ERROR_INVALID_PARAM;
    }
    if (size == 0) {
      SetRecentError("aclrtHostRegister: size is 0");
      return ACL_ERROR_INVALID_PARAM;
    }
    // CANN's runtime refuses types other than combinations of these flags (api_error.cc).
    const int type_value = aclcpu::EnumBits(type);
    const int flags = ACL_HOST_REGISTER_IOMEMORY | ACL_HOST_REGISTER_READONLY;
    if ((type_value & ~flags) != 0) {
      SetRecentError("aclrtHostRegister: type " + std::to_string(type_value) +
                     " is not ACL_HOST_REGISTER_MAPPED or a combination of IOMEMORY (4) and READONLY (8)");
      return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    }
    const uintptr_t address = reinterpret_cast<uintptr_t>(ptr);
    if (address % aclcpu::kHostRegisterAlignment != 0) {
      SetRecentError("aclrtHostRegister: ptr " + aclcpu::Hex(ptr) + " is not 4 KiB aligned, as CANN requires");
      return ACL_ERROR_INVALID_PARAM;
    }
    if (size > UINTPTR_MAX - address) {
      SetRecentError("aclrtHostRegister: ptr " + aclcpu::Hex(ptr) + " + size " + std::to_string(size) +
                     " passes the end of the address space");
      return ACL_ERROR_INVALID_PARAM;
    }
    auto allocation = std::make_shared<aclcpu::Allocation>();
    allocation->base = static_cast<char*>(ptr);
    allocation->size = size;
    allocation->registered = true;
    allocation->read_only = (type_value & ACL_HOST_REGISTER_READONLY) != 0;
    aclcpu::Registry& registry = aclcpu::TheRegistry();
    {
      std::lock_guard<std::mutex> lock(registry.mutex);
      if (aclcpu::OverlapsIn(registry.registered, address, size)) {
        SetRecentError("aclrtHostRegister: " + aclcpu::Hex(ptr) + " + " + std::to_string(size) +
                       " bytes overlaps a registered range");
        return ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
      }
      // The registering thread is the one likely to pass this memory to an operator next (as the
      // Python binding does on every call): it finds the range in its recent list -- unless an
      // allocation holds some of it, which lookups answer first.
      if (!aclcpu::OverlapsIn(registry.device, address, size)) aclcpu::ThreadRecentAllocations().Remember(allocation);
      registry.registered.emplace(address, std::move(allocation));
    }
    *devPtr = ptr;
    return ACL_SUCCESS;
  });
}

ACL_FUNC_VISIBILITY aclError aclrtHostUnregister(void* ptr) {
  return Guarded("aclrtHostUnregister", ACL_ERROR_RT_MEMORY_FREE, ACL_ERROR_INTERNAL_ERROR, [&]() -> aclError {
    if (ptr == nullptr) {
      SetRecentError("aclrtHostUnregister: ptr is null");
      return ACL_ERROR_INVALID_PARAM;
    }
    aclcpu::Registry& registry = aclcpu::TheRegistry();
    bool allocated = false;
    const std::shared_ptr<aclcpu::Allocation> allocation = aclcpu::TakeStartingAt(
        registry, registry.registered, registry.device, reinterpret_cast<uintptr_t>(ptr), &allocated);
    if (!allocation) {
      SetRecentError("aclrtHostUnregister: " + aclcpu::Hex(ptr) + " is not the start of a registered range" +
                     (allocated ? " (it is an aclrtMalloc allocation: aclrtFree)" : ""));
      return ACL_ERROR_HOST_MEMORY_NOT_REGISTERED;
    }
    aclcpu::Retire(*allocation);  // the memory stays the caller's
    return ACL_SUCCESS;
  });
}

ACL_FUNC_VISIBILITY aclError aclrtMemcpy(void* dst, size_t destMax, const void* src, size_t count,
                                         aclrtMemcpyKind kind) {
  return Guarded("aclrtMemcpy", ACL_ERROR_BAD_ALLOC, ACL_ERROR_INTERNAL_ERROR, [&]() -> aclError {
    MemoryPin dst_pin, src_pin;
    if (aclError code = aclcpu::PrepareCopy("aclrtMemcpy", dst, destMax, src, count, kind, &dst_pin, &src_pin)) {
      return code;
    }
    // Ordered after queued work that touches either side.
    aclcpu::WaitForQueuedWork(dst_pin, src_pin);
    if (count != 0) std::memmove(dst, src, count);
    return ACL_SUCCESS;
  });
}

ACL_FUNC_VISIBILITY aclError aclrtMemcpyAsync(void* dst, size_t destMax, const void* src, size_t count,
                                              aclrtMemcpyKind kind, aclrtStream stream) {
  return Guarded("aclrtMemcpyAsync", ACL_ERROR_BAD_ALLOC, ACL_ERROR_INTERNAL_ERROR, [&]() -> aclError {
    MemoryPin dst_pin, src_pin;
    if (aclError code = aclcpu::PrepareCopy("aclrtMemcpyAsync", dst, destMax, src, count, kind, &dst_pin, &src_pin)) {
      return code;
    }
    std::vector<MemoryPin> pins;
    pins.push_back(std::move(dst_pin));
    pins.push_back(std::move(src_pin));
    return aclcpu::EnqueueOnStream(
        "aclrtMemcpyAsync", stream,
        [dst, src, count] {
          if (count != 0) std::memmove(dst, src, count);
        },
        std::move(pins));
  });
}

ACL_FUNC_VISIBILITY aclError aclrtMemset(void* devPtr, size_t maxCount, int32_t value, size_t count) {
  return Guarded("aclrtMemset", ACL_ERROR_BAD_ALLOC, ACL_ERROR_INTERNAL_ERROR, [&]() -> aclError {
    if (aclError code = aclcpu::CheckDeviceReady("aclrtMemset")) return code;
    if (count > maxCount) {
      SetRecentError("aclrtMemset: count " + std::to_string(count) + " exceeds maxCount " + std::to_string(maxCount));
      return ACL_ERROR_INVALID_PARAM;
    }
    MemoryPin pin;
    if (aclError code = aclcpu::CheckCopySide("aclrtMemset", "devPtr", devPtr, count, true, true, &pin)) return code;
    aclcpu::WaitForQueuedWork(pin, MemoryPin());
    if (count != 0) std::memset(devPtr, value, count);
    return ACL_SUCCESS;
  });
}

ACL_FUNC_VISIBILITY aclError aclrtMemsetAsync(void* devPtr, size_t maxCount, int32_t value, size_t count,
                                              aclrtStream stream) {
  return Guarded("aclrtMemsetAsync", ACL_ERROR_BAD_ALLOC, ACL_ERROR_INTERNAL_ERROR, [&]() -> aclError {
    if (aclError code = aclcpu::CheckDeviceReady("aclrtMemsetAsync")) return code;
    if (count > maxCount) {
      SetRecentError("aclrtMemsetAsync: count " + std::to_string(count) + " exceeds maxCount " +
                     std::to_string(maxCount));
      return ACL_ERROR_INVALID_PARAM;
    }
    MemoryPin pin;
    if (aclError code = aclcpu::CheckCopySide("aclrtMemsetAsync", "devPtr", devPtr, count, true, true, &pin))
      return code;
    std::vector<MemoryPin> pins;
    pins.push_back(std::move(pin));
    return aclcpu::EnqueueOnStream(
        "aclrtMemsetAsync", stream,
        [devPtr, value, count] {
          if (count != 0) std::memset(devPtr, value, count);
        },
        std::move(pins));
  });
}

}  // extern "C"
