/* aclnn-cpu: MseLossOut, the mean-squared-error loss of self and target reduced over dim 0:
 *   l = (self - target)^2 for each element of their broadcast shape
 *   reduction 0 (none): out = l;  1 (mean), 2 (sum): the mean or sum of l over dim 0 (out: the
 *   broadcast shape without dim 0) */
#ifndef ACLNN_CPU_ACLNNOP_ACLNN_MSE_LOSS_OUT_H_
#define ACLNN_CPU_ACLNNOP_ACLNN_MSE_LOSS_OUT_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Phase one: validates, plans the work and returns an executor that owns everything the launch
 * needs, and the workspace size the launch wants. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnMseLossOutGetWorkspaceSize(const aclTensor* self, const aclTensor* target, int64_t reduction,
                                                      aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);

/* Phase two: enqueues the work on stream (NULL: the default stream) and returns without waiting. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnMseLossOut(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                      aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNN_CPU_ACLNNOP_ACLNN_MSE_LOSS_OUT_H_ */
