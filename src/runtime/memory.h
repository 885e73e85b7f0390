// The allocation registry behind aclrtMalloc / aclrtFree and the device-pointer checks.
#ifndef ACLNN_CPU_RUNTIME_MEMORY_H_
#define ACLNN_CPU_RUNTIME_MEMORY_H_

#include <cstddef>
#include <memory>

#include "runtime_internal.h"

namespace aclcpu {

// The live allocation that contains ptr, or nullptr.
std::shared_ptr<Allocation> FindAllocation(const void* ptr);
// Waits until nothing holds a pin on the allocation (queued work, copies on other threads).
void WaitUntilUnused(Allocation& allocation);
// For an allocation just taken out of the registry: no new pins, then waits for those taken.
void Retire(Allocation& allocation);

}  // namespace aclcpu

#endif  // ACLNN_CPU_RUNTIME_MEMORY_H_
