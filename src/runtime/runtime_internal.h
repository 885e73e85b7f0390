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

// ---- errors and logging ----------------------------------------------------------------------
enum LogLevel { kLogDebug = 0, kLogInfo = 1, kLogWarning = 2, kLogError = 3, kLogNone = 4 };

// Records msg as this thread's aclGetRecentErrMsg text and logs it at error level.
ACLCPU_API void SetRecentError(const std::string& msg);
ACLCPU_API bool LogEnabled(int level);
ACLCPU_API void Log(int level, const std::string& msg);

// ---- device memory ---------------------------------------------------------------------------
// One aclrtMalloc allocation. While pins is non-zero, something uses it (queued work, or a copy
// running on some host thread) and aclrtFree waits; while queued_pins is, queued work uses it and
// synchronous copies wait.
struct Allocation {
  char* base = nullptr;
  size_t size = 0;
  uint64_t id = 0;  // unique per aclrtMalloc: a later allocation at the same address has another
  std::mutex mutex;
  std::condition_variable released;
  int64_t pins = 0;
  int64_t queued_pins = 0;  // the pins that queued work holds
};

// Keeps an allocation alive and busy for as long as the pin exists (moved into queued work).
class ACLCPU_API MemoryPin {
 public:
  MemoryPin() = default;
  explicit MemoryPin(std::shared_ptr<Allocation> allocation);
  MemoryPin(MemoryPin&& other) noexcept = default;
  MemoryPin& operator=(MemoryPin&& other) noexcept;
  MemoryPin(const MemoryPin&) = delete;
  MemoryPin& operator=(const MemoryPin&) = delete;
  ~MemoryPin();
  const Allocation* allocation() const { return allocation_.get(); }
  // Counts the pin as held by queued work (streams do this as they take work).
  void MarkQueued();

 private:
  void Release();
  std::shared_ptr<Allocation> allocation_;
  bool queued_ = false;
};

// True when [ptr, ptr + bytes) lies inside one live aclrtMalloc allocation; then *pin (if not null)
// holds it busy and *allocation_id (if not null) is its id. bytes may be 0 (the pointer itself must
// then lie inside the allocation).
ACLCPU_API bool PinDeviceRange(const void* ptr, uint64_t bytes, MemoryPin* pin, uint64_t* allocation_id = nullptr);

// ---- streams ---------------------------------------------------------------------------------
// Queues fn on stream (nullptr: the default stream) after the work already queued there. pins are
// released once fn has run. Returns ACL_SUCCESS or the runtime's error code (message set).
// api names the caller in messages. fn must not block on other work: on an idle stream it may run
// right away on the calling thread.
ACLCPU_API aclError EnqueueOnStream(const char* api, aclrtStream stream, std::function<void()> fn,
                                    std::vector<MemoryPin> pins);

// True when the runtime is initialized and device 0 is set (a launch can be queued).
ACLCPU_API bool DeviceReady();

}  // namespace aclcpu

#endif  // ACLNN_CPU_RUNTIME_RUNTIME_INTERNAL_H_
