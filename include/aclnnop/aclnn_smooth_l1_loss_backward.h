/* aclnn-cpu: SmoothL1LossBackward, the gradient of the smooth L1 loss with respect to self, over the
 * broadcast of gradOut, self and target (d = self - target):
 *   gradInput = gradOut where d > beta, -gradOut where d < -beta, d / beta * gradOut between,
 * times about 1 / N for reduction 1 (mean), N self's element count; 0 (none) and 2 (sum) scale by 1.
 * Each step is rounded as the SoC's kernel rounds it -- at |d| == beta, for beta 0 and for beta
 * below 1e-6 the kernels differ (docs/semantics.md). beta must be >= 0. The inputs compute in
 * their promoted dtype. */
#ifndef ACLNN_CPU_ACLNNOP_ACLNN_SMOOTH_L1_LOSS_BACKWARD_H_
#define ACLNN_CPU_ACLNNOP_ACLNN_SMOOTH_L1_LOSS_BACKWARD_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Phase one: validates, plans the work and returns an executor that owns everything the launch
 * needs, and the workspace size the launch wants. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnSmoothL1LossBackwardGetWorkspaceSize(
    const aclTensor* gradOut, const aclTensor* self, const aclTensor* target, int64_t reduction, float beta,
    aclTensor* gradInput, uint64_t* workspaceSize, aclOpExecutor** executor);

/* Phase two: enqueues the work on stream (NULL: the default stream) and returns without waiting. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnSmoothL1LossBackward(void* workspace, uint64_t workspaceSize,
                                                          aclOpExecutor* executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNN_CPU_ACLNNOP_ACLNN_SMOOTH_L1_LOSS_BACKWARD_H_ */
