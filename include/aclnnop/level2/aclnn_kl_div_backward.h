/* aclnn-cpu: KlDivBackward under the aclnnop/level2/ path, as for the other operators. */
#ifndef ACLNN_CPU_ACLNNOP_LEVEL2_ACLNN_KL_DIV_BACKWARD_H_
#define ACLNN_CPU_ACLNNOP_LEVEL2_ACLNN_KL_DIV_BACKWARD_H_

#include "aclnnop/aclnn_kl_div_backward.h"

#endif /* ACLNN_CPU_ACLNNOP_LEVEL2_ACLNN_KL_DIV_BACKWARD_H_ */
