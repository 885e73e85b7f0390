/* aclnn-cpu: KlDivBackward, the gradient of the Kullback-Leibler divergence with respect to self:
 *   out = -gradOutput * target (exp(target) when logTarget), times 1 / N for reduction 1 (mean),
 *   N self's element count, and 1 / self's first dim for 3 (batchmean); 0 (none), 2 (sum) and any
 *   other number scale by 1.
 * gradOutput and target broadcast to self's shape, which out has. Each step is ordered and rounded as
 * the SoC's kernel does it (docs/semantics.md). The inputs compute in FLOAT unless all three are
 * FLOAT16. */
#ifndef ACLNN_CPU_ACLNNOP_ACLNN_KL_DIV_BACKWARD_H_
#define ACLNN_CPU_ACLNNOP_ACLNN_KL_DIV_BACKWARD_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Phase one: validates, plans the work and returns an executor that owns everything the launch
 * needs, and the workspace size the launch wants. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnKlDivBackwardGetWorkspaceSize(const aclTensor* gradOutput, const aclTensor* self,
                                                                   const aclTensor* target, int64_t reduction,
                                                                   bool logTarget, aclTensor* out,
                                                                   uint64_t* workspaceSize, aclOpExecutor** executor);

/* Phase two: enqueues the work on stream (NULL: the default stream) and returns without waiting. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnKlDivBackward(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                                   aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNN_CPU_ACLNNOP_ACLNN_KL_DIV_BACKWARD_H_ */
