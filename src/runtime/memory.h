// The allocation registry behind aclrtMalloc / aclrtFree and the device-pointer checks.
#ifndef ACLNN_CPU_RUNTIME_MEMORY_H_
#define ACLNN_CPU_RUNTIME_MEMORY_H_

#include <cstddef>
#include <memory>

#include "runtime_internal.h"

namespace aclcpu {

// The live allocation that contains ptr, or nullptr.
std::shared_ptr<Allocation> FindAllocation(const void* ptr);
// Waits until no queued work holds allocation, beyond the own_pins the caller holds itself.
void WaitUntilIdle(Allocation& allocation, int64_t own_pins);

}  // namespace aclcpu

#endif  // ACLNN_CPU_RUNTIME_MEMORY_H_
