/* aclnn-cpu: MseLossOut under the aclnnop/level2/ path, where ops-nn installs it too. */
#ifndef ACLNN_CPU_ACLNNOP_LEVEL2_ACLNN_MSE_LOSS_OUT_H_
#define ACLNN_CPU_ACLNNOP_LEVEL2_ACLNN_MSE_LOSS_OUT_H_

#include "aclnnop/aclnn_mse_loss_out.h"

#endif /* ACLNN_CPU_ACLNNOP_LEVEL2_ACLNN_MSE_LOSS_OUT_H_ */
