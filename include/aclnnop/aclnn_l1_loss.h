/* aclnn-cpu: L1Loss, the mean-absolute-error loss of self and target over all elements:
 *   l = |self - target| for each element of their broadcast shape
 *   reduction 0 (none): out = l;  1 (mean): out = the mean of l;  2 (sum): the sum of l (out 0-d) */
#ifndef ACLNN_CPU_ACLNNOP_ACLNN_L1_LOSS_H_
#define ACLNN_CPU_ACLNNOP_ACLNN_L1_LOSS_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Phase one: validates, plans the work and returns an executor that owns everything the launch
 * needs, and the workspace size the launch wants. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnL1LossGetWorkspaceSize(const aclTensor* self, const aclTensor* target, int64_t reduction,
                                                     aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);

/* Phase two: enqueues the work on stream (NULL: the default stream) and returns without waiting. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnL1Loss(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                     aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNN_CPU_ACLNNOP_ACLNN_L1_LOSS_H_ */
