// A case's input values, drawn from its value ranges by a generator seeded with (seed, case name,
// input), so that a case's inputs do not depend on which other cases run or in what order.
#ifndef ACLNN_CPU_TOOLS_CASE_RUNNER_INPUTS_H_
#define ACLNN_CPU_TOOLS_CASE_RUNNER_INPUTS_H_

#include <cstdint>
#include <string>

#include "case_model.h"
#include "golden/mse_loss_grad_golden.h"

namespace case_runner {

golden::Dtype ToGolden(Dtype dtype);

// The tensor for input `role` of the case called case_name.
golden::Tensor MakeInput(const TensorSpec& spec, uint64_t seed, const std::string& case_name, int role);

}  // namespace case_runner

#endif  // ACLNN_CPU_TOOLS_CASE_RUNNER_INPUTS_H_
