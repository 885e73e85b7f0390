/* aclnn-cpu: SmoothL1Loss, the smooth L1 (Huber) loss of self and target over all elements:
 *   d = self - target;  l = |d| < beta ? 0.5 * d^2 / beta : |d| - 0.5 * beta, for each element of
 *   their broadcast shape
 *   reduction 0 (none): result = l;  1 (mean): the mean of l;  2 (sum): the sum of l (one element) */
#ifndef ACLNN_CPU_ACLNNOP_ACLNN_SMOOTH_L1_LOSS_H_
#define ACLNN_CPU_ACLNNOP_ACLNN_SMOOTH_L1_LOSS_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Phase one: validates, plans the work and returns an executor that owns everything the launch
 * needs, and the workspace size the launch wants. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnSmoothL1LossGetWorkspaceSize(const aclTensor* self, const aclTensor* target,
                                                           int64_t reduction, float beta, aclTensor* result,
                                                           uint64_t* workspaceSize, aclOpExecutor** executor);

/* Phase two: enqueues the work on stream (NULL: the default stream) and returns without waiting. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnSmoothL1Loss(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                           aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNN_CPU_ACLNNOP_ACLNN_SMOOTH_L1_LOSS_H_ */
