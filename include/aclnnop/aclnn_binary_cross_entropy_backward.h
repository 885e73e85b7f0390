/* aclnn-cpu: BinaryCrossEntropyBackward, the gradient of the binary cross-entropy with respect to
 * self:
 *   out = gradOutput * weightOptional * (self - target) / max(self * (1 - self), 1e-12),
 * times about 1 / N for reduction 1 (mean), N self's element count; 0 (none) and 2 (sum) scale by 1.
 * gradOutput, target and weightOptional (NULL: ones) broadcast to self's shape, which out has. Each
 * step is ordered and rounded as the SoC's kernel does it (docs/semantics.md). The inputs compute in
 * their promoted dtype. */
#ifndef ACLNN_CPU_ACLNNOP_ACLNN_BINARY_CROSS_ENTROPY_BACKWARD_H_
#define ACLNN_CPU_ACLNNOP_ACLNN_BINARY_CROSS_ENTROPY_BACKWARD_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Phase one: validates, plans the work and returns an executor that owns everything the launch
 * needs, and the workspace size the launch wants. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnBinaryCrossEntropyBackwardGetWorkspaceSize(
    const aclTensor* gradOutput, const aclTensor* self, const aclTensor* target, const aclTensor* weightOptional,
    int64_t reduction, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);

/* Phase two: enqueues the work on stream (NULL: the default stream) and returns without waiting. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnBinaryCrossEntropyBackward(void* workspace, uint64_t workspaceSize,
                                                                aclOpExecutor* executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNN_CPU_ACLNNOP_ACLNN_BINARY_CROSS_ENTROPY_BACKWARD_H_ */
