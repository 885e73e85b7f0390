/* aclnn-cpu: MseLoss under the aclnnop/level2/ path, where ops-nn installs it too. */
#ifndef ACLNN_CPU_ACLNNOP_LEVEL2_ACLNN_MSE_LOSS_H_
#define ACLNN_CPU_ACLNNOP_LEVEL2_ACLNN_MSE_LOSS_H_

#include "aclnnop/aclnn_mse_loss.h"

#endif /* ACLNN_CPU_ACLNNOP_LEVEL2_ACLNN_MSE_LOSS_H_ */
