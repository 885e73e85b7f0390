/* aclnn-cpu: SmoothL1LossBackward under the aclnnop/level2/ path, as for the other operators. */
#ifndef ACLNN_CPU_ACLNNOP_LEVEL2_ACLNN_SMOOTH_L1_LOSS_BACKWARD_H_
#define ACLNN_CPU_ACLNNOP_LEVEL2_ACLNN_SMOOTH_L1_LOSS_BACKWARD_H_

#include "aclnnop/aclnn_smooth_l1_loss_backward.h"

#endif /* ACLNN_CPU_ACLNNOP_LEVEL2_ACLNN_SMOOTH_L1_LOSS_BACKWARD_H_ */
