// The runtime's interface to the other libraries of aclnn-cpu (nnopbase, the operators, tools).
// Not installed; nothing here is part of the CANN API.
#ifndef ACLNN_CPU_RUNTIME_RUNTIME_INTERNAL_H_
#define ACLNN_CPU_RUNTIME_RUNTIME_INTERNAL_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "acl/acl.h"

#define ACLCPU_API __attribute__((visibility("default")))

namespace aclcpu {

// The integer a caller passed as an enum, read without loading an enum value: a value outside the
// enumerators (a caller's bug we must report) would already be undefined behaviour to load.
template <typename Enum>
int EnumBits(const Enum& value) {
  static_assert(sizeof(Enum) == sizeof(int), "C enums are int-sized here");
  int bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

// True when dtype is an aclDataType enumerator.
ACLCPU_API bool IsDataType(int dtype);
// Bytes one stored element of the aclDataType with this value takes; 0 for DT_UNDEFINED, STRING,
// the sub-byte types (INT4, UINT1, the 4- and 6-bit floats) and values that are no aclDataType.
// (aclDataTypeSize follows CANN's own rule, which differs for the sub-byte types and unknowns.)
ACLCPU_API size_t DataTypeSize(int dtype);

// ---- the SoC this runtime stands for (soc_profiles.cpp) -------------------------------------------
// The families ops-nn's l0 layer tells apart (op::SocVersion) when it picks a kernel.
enum class SocFamily { kAscend910B, kAscend910_93, kAscend950, kAscend310P };

// What tilings and the aclnn layer read about a part, each figure from the part's platform ini.
struct SocProfile {
  const char* name;      // as aclrtGetSocName gives it
  SocFamily family;      // Short_SoC_version
  int npu_arch;          // NpuArch: 2201 (A2/A3), 3510 (950), 2002 (310P)
  int64_t vector_cores;  // PlatformAscendC::GetCoreNumAiv()
  int64_t ub_bytes;      // PlatformAscendC::GetCoreMemSize(UB)
  bool bf16;             // the aclnn layer's dtype lists include BF16
};

// The profile of a SoC name, or null for a name no profile has.
ACLCPU_API const SocProfile* FindSocProfile(const char* name);
// The name ACLNN_CPU_SOC_NAME asks for (read once), or the default, Ascend910B3.
ACLCPU_API const char* RequestedSocName();
// The profile of RequestedSocName(); null when it names no known SoC (aclInit then refuses).
ACLCPU_API const SocProfile* CurrentSocProfile();
// "<api>: ACLNN_CPU_SOC_NAME "X" is not a SoC aclnn-cpu knows; the known ones are ...".
ACLCPU_API std::string UnknownSocMessage(const char* api);
ACLCPU_API const char* SocFamilyName(SocFamily family);

// ---- errors and logging ----------------------------------------------------------------------
enum LogLevel { kLogDebug = 0, kLogInfo = 1, kLogWarning = 2, kLogError = 3, kLogNone = 4 };

// Records msg as this thread's aclGetRecentErrMsg text and logs it at error level.
ACLCPU_API void SetRecentError(const std::string& msg);
ACLCPU_API bool LogEnabled(int level);
ACLCPU_API void Log(int level, const std::string& msg);

// ---- device memory ---------------------------------------------------------------------------
// The end of every message about a range that no allocation holds.
constexpr const char* kOutsideDeviceMemory = "is not inside one live aclrtMalloc allocation or aclrtHostRegister range";

// One aclrtMalloc allocation, or one aclrtHostRegister range. Pins say who uses it: while any pin
// exists (queued work, a copy running on some host thread) aclrtFree (aclrtHostUnregister) waits; while a queued one
// exists, synchronous copies wait. Pins are counted without a lock (a launch takes several); the mutex and condition
// variable serve only the threads that wait for a count to fall to zero.
struct Allocation {
  char* base = nullptr;  // base, size, registered and read_only never change once recorded
  size_t size = 0;
  bool registered = false;        // host memory admitted by aclrtHostRegister, not owned by the runtime
  bool read_only = false;         // registered with ACL_HOST_REGISTER_READONLY: nothing may write to it
  std::atomic<bool> live{true};   // false once aclrtFree took it: no pin is taken any more
  std::atomic<uint64_t> pins{0};  // low 32 bits: every pin; high 32 bits: the queued ones
  std::atomic<int> waiters{0};    // threads waiting on released
  std::mutex mutex;
  std::condition_variable released;
  static constexpr uint64_t kPin = 1;
  static constexpr uint64_t kQueuedPin = (uint64_t{1} << 32) | 1;
  uint64_t AllPins() const { return pins.load() & 0xffffffffu; }
  uint64_t QueuedPins() const { return pins.load() >> 32; }
};

// Wakes the threads waiting for an allocation's pin counts (out of line: rarely anyone waits).
ACLCPU_API void WakePinWaiters(Allocation& allocation);

// Keeps an allocation alive and busy for as long as the pin exists (moved into queued work).
// Pinning and releasing are inline: a launch takes a pin per tensor.
class ACLCPU_API MemoryPin {
 public:
  MemoryPin() = default;
  // Pins allocation unless aclrtFree has taken it (then the pin stays empty: see pinned()).
  // queued: the pin belongs to queued work, which synchronous copies of the memory wait for.
  MemoryPin(std::shared_ptr<Allocation> allocation, bool queued) { Pin(std::move(allocation), queued); }
  MemoryPin(MemoryPin&& other) noexcept = default;
  MemoryPin& operator=(MemoryPin&& other) noexcept {
    if (this != &other) {
      Release();
      allocation_ = std::move(other.allocation_);
      queued_ = other.queued_;
    }
    return *this;
  }
  MemoryPin(const MemoryPin&) = delete;
  MemoryPin& operator=(const MemoryPin&) = delete;
  ~MemoryPin() { Release(); }

  // The constructor's work, for an empty pin: true when pinned.
  bool Pin(std::shared_ptr<Allocation> allocation, bool queued) {
    if (!allocation) return false;
    const uint64_t count = queued ? Allocation::kQueuedPin : Allocation::kPin;
    // Count first, then look: aclrtFree clears live first, then waits for the count. So either
    // this pin sees it freed, or aclrtFree sees the pin and waits for it.
    allocation->pins.fetch_add(count);
    if (!allocation->live.load()) {
      Unpin(*allocation, count);
      return false;
    }
    allocation_ = std::move(allocation);
    queued_ = queued;
    return true;
  }
  bool pinned() const { return allocation_ != nullptr; }
  const Allocation* allocation() const { return allocation_.get(); }
  // Counts the pin as held by queued work (streams do this as they take work).
  void MarkQueued() {
    if (!allocation_ || queued_) return;
    allocation_->pins.fetch_add(Allocation::kQueuedPin - Allocation::kPin);
    queued_ = true;
  }
  // Lets the allocation go (the pin is empty afterwards).
  void Release() {
    if (!allocation_) return;
    Unpin(*allocation_, queued_ ? Allocation::kQueuedPin : Allocation::kPin);
    allocation_.reset();  // after the count: the allocation stays alive while a waiter is woken
    queued_ = false;
  }

 private:
  static void Unpin(Allocation& allocation, uint64_t count) {
    allocation.pins.fetch_sub(count);
    if (allocation.waiters.load() > 0) WakePinWaiters(allocation);
  }
  std::shared_ptr<Allocation> allocation_;
  bool queued_ = false;
};

// The live aclrtMalloc allocation (or aclrtHostRegister range) that holds [ptr, ptr + bytes), or null. bytes may be 0
// (ptr itself must then lie inside it). The result only names the allocation: pin it to use its memory.
ACLCPU_API std::shared_ptr<Allocation> FindDeviceRange(const void* ptr, uint64_t bytes);
// FindDeviceRange for count ranges at once: found[i] for range i. Returns the index of the first
// range no live allocation holds, or -1. Each thread remembers the allocations it found last
// (every call finds the same few): those are checked without the registry's lock.
ACLCPU_API int FindDeviceRanges(const void* const* ptrs, const uint64_t* bytes, int count,
                                std::shared_ptr<Allocation>* found);

// True when [ptr, ptr + bytes) lies inside one live allocation (or registered range); then *pin (if not null)
// holds it busy. bytes may be 0 (the pointer itself must then lie inside the allocation).
ACLCPU_API bool PinDeviceRange(const void* ptr, uint64_t bytes, MemoryPin* pin);

// ---- streams ---------------------------------------------------------------------------------
// Work for a stream. The stream calls Run, then Release (which drops what the task holds: pins,
// references), once each. A stream that can run the task at once does so on the calling thread
// with the caller's object; one that must queue it first moves it to the heap with Detach.
class ACLCPU_API StreamTask {
 public:
  virtual ~StreamTask() = default;
  virtual void Run() = 0;
  virtual void Release() = 0;
  virtual std::unique_ptr<StreamTask> Detach() = 0;
};

// Queues task on stream (nullptr: the default stream) after the work already queued there, or runs
// it right away on the calling thread when the stream is idle. Returns ACL_SUCCESS or the
// runtime's error code (message set); api names the caller in messages. A task must not block on
// other work.
ACLCPU_API aclError EnqueueOnStream(const char* api, aclrtStream stream, StreamTask& task);
// The same for a function and the pins it needs (released once it has run).
ACLCPU_API aclError EnqueueOnStream(const char* api, aclrtStream stream, std::function<void()> fn,
                                    std::vector<MemoryPin> pins);

// True when the runtime is initialized and device 0 is set (a launch can be queued).
ACLCPU_API bool DeviceReady();

}  // namespace aclcpu

#endif  // ACLNN_CPU_RUNTIME_RUNTIME_INTERNAL_H_
