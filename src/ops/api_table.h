// Every operator API the libraries export, one entry each, in one table: its name, its tensor
// parameters and its integer attribute, and both phases called through one signature. What calls
// the APIs generically -- the case runner, the fuzzer, the Python module -- picks operators here; a
// new operator adds its entry (api_table.cpp) and nothing else of theirs changes but its own model.
#ifndef ACLNN_CPU_OPS_API_TABLE_H_
#define ACLNN_CPU_OPS_API_TABLE_H_

#include <cstdint>
#include <vector>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"

namespace aclcpu {

struct ApiOp {
  const char* name;            // "aclnnMseLossBackward"
  const char* phase_one_name;  // "aclnnMseLossBackwardGetWorkspaceSize"
  // Its tensor parameters before out, in the API's order, as its documentation names them.
  std::vector<const char*> inputs;
  const char* attribute;  // its integer parameter: "reduction"
  // Phase one with inputs[i] for parameter inputs[i]; the launch.
  aclnnStatus (*phase_one)(aclTensor* const* inputs, int64_t attribute, aclTensor* out, uint64_t* workspace_size,
                           aclOpExecutor** executor);
  aclnnStatus (*launch)(void* workspace, uint64_t workspace_size, aclOpExecutor* executor, aclrtStream stream);
};

// Every API, in a fixed order.
const std::vector<ApiOp>& ApiOps();
// The entry of an API ("aclnnMseLoss"), or null.
const ApiOp* FindApiOp(const char* name);

}  // namespace aclcpu

#endif  // ACLNN_CPU_OPS_API_TABLE_H_
