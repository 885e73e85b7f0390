// The API level as a user program drives it: the runtime started once, a stream per runner thread,
// aclTensors over the run's allocations, both phases, a workspace, synchronize.
#ifndef ACLNN_CPU_TOOLS_CASE_RUNNER_API_DRIVER_H_
#define ACLNN_CPU_TOOLS_CASE_RUNNER_API_DRIVER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ops.h"
#include "run_tensors.h"

namespace case_runner {

// aclInit, aclrtSetDevice(0); and the reverse (with every stream the runs created).
bool StartRuntime(std::string* error);
void StopRuntime();

// Both phases of op's API on this thread's stream, on contiguous ND tensors.
bool RunApi(const OpInfo& op, const std::vector<std::unique_ptr<RunTensor>>& inputs,
            const std::vector<aclcpu::AttrValue>& attributes, RunTensor* out, std::string* error);

}  // namespace case_runner

#endif  // ACLNN_CPU_TOOLS_CASE_RUNNER_API_DRIVER_H_
