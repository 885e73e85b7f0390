// What the loss family's aclnn APIs share beyond PhaseOne: their reduction argument's check.
#ifndef ACLNN_CPU_OPS_LOSS_COMMON_LOSS_API_H_
#define ACLNN_CPU_OPS_LOSS_COMMON_LOSS_API_H_

#include <cstdint>
#include <string>

#include "ops/common/op_api/aclnn_op.h"
#include "ops/loss/common/loss_reduction.h"

namespace aclcpu {
namespace loss {

// The API's reduction integer as the type; 161002 "reduction N is invalid; expected 0 (none), 1
// (mean) or 2 (sum)" for any other value.
inline aclnnStatus CheckReduction(const opapi::PhaseOne& call, int64_t value, Reduction* reduction) {
  if (ReductionFromApi(value, reduction)) return ACLNN_SUCCESS;
  return call.Fail(ACLNN_ERR_PARAM_INVALID,
                   "reduction " + std::to_string(value) + " is invalid; expected " + kReductionNumbers);
}

}  // namespace loss
}  // namespace aclcpu

#endif  // ACLNN_CPU_OPS_LOSS_COMMON_LOSS_API_H_
