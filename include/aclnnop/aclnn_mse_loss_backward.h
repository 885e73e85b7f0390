/* aclnn-cpu: MseLossBackward, the gradient of the mean-squared-error loss with respect to self:
 *   out = gradOutput * (self - target) * 2 / self.numel()   reduction 1 (mean)
 *   out = gradOutput * (self - target) * 2                  reduction 0 (none) or 2 (sum) */
#ifndef ACLNN_CPU_ACLNNOP_ACLNN_MSE_LOSS_BACKWARD_H_
#define ACLNN_CPU_ACLNNOP_ACLNN_MSE_LOSS_BACKWARD_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Phase one: validates, plans the work and returns an executor that owns everything the launch
 * needs, and the workspace size the launch wants. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnMseLossBackwardGetWorkspaceSize(
    const aclTensor* gradOutput, const aclTensor* self, const aclTensor* target, int64_t reduction,
    aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);

/* Phase two: enqueues the work on stream (NULL: the default stream) and returns without waiting. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnMseLossBackward(void* workspace, uint64_t workspaceSize,
                                                     aclOpExecutor* executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNN_CPU_ACLNNOP_ACLNN_MSE_LOSS_BACKWARD_H_ */
