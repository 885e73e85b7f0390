/* aclnn-cpu: L1LossBackward, the gradient of the L1 loss with respect to self:
 *   gradInput = sign(self - target) * (gradOutput * scale)
 * scale 1 for reduction 0 (none) and 2 (sum); for 1 (mean) about 1 / N, N the broadcast element
 * count, rounded as the SoC's kernel forms it (docs/semantics.md). gradOutput, self and target
 * broadcast; they compute in their promoted dtype. */
#ifndef ACLNN_CPU_ACLNNOP_ACLNN_L1_LOSS_BACKWARD_H_
#define ACLNN_CPU_ACLNNOP_ACLNN_L1_LOSS_BACKWARD_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Phase one: validates, plans the work and returns an executor that owns everything the launch
 * needs, and the workspace size the launch wants. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnL1LossBackwardGetWorkspaceSize(
    const aclTensor* gradOutput, const aclTensor* self, const aclTensor* target, int64_t reduction,
    aclTensor* gradInput, uint64_t* workspaceSize, aclOpExecutor** executor);

/* Phase two: enqueues the work on stream (NULL: the default stream) and returns without waiting. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnL1LossBackward(void* workspace, uint64_t workspaceSize,
                                                    aclOpExecutor* executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNN_CPU_ACLNNOP_ACLNN_L1_LOSS_BACKWARD_H_ */
