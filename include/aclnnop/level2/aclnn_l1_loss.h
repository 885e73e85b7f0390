/* aclnn-cpu: L1Loss under the aclnnop/level2/ path, where ops-nn installs it too. */
#ifndef ACLNN_CPU_ACLNNOP_LEVEL2_ACLNN_L1_LOSS_H_
#define ACLNN_CPU_ACLNNOP_LEVEL2_ACLNN_L1_LOSS_H_

#include "aclnnop/aclnn_l1_loss.h"

#endif /* ACLNN_CPU_ACLNNOP_LEVEL2_ACLNN_L1_LOSS_H_ */
