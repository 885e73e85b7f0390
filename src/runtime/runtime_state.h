// Process-wide runtime state checks shared by the runtime's source files.
#ifndef ACLNN_CPU_RUNTIME_RUNTIME_STATE_H_
#define ACLNN_CPU_RUNTIME_RUNTIME_STATE_H_

#include "acl/acl.h"

namespace aclcpu {

// ACL_SUCCESS when aclInit has been called (and not finalized); otherwise the code, message set.
aclError CheckInitialized(const char* api);
// As CheckInitialized, and device 0 must be set.
aclError CheckDeviceReady(const char* api);

}  // namespace aclcpu

#endif  // ACLNN_CPU_RUNTIME_RUNTIME_STATE_H_
