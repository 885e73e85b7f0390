/* aclnn-cpu: BinaryCrossEntropyBackward under the aclnnop/level2/ path, as for the other operators. */
#ifndef ACLNN_CPU_ACLNNOP_LEVEL2_ACLNN_BINARY_CROSS_ENTROPY_BACKWARD_H_
#define ACLNN_CPU_ACLNNOP_LEVEL2_ACLNN_BINARY_CROSS_ENTROPY_BACKWARD_H_

#include "aclnnop/aclnn_binary_cross_entropy_backward.h"

#endif /* ACLNN_CPU_ACLNNOP_LEVEL2_ACLNN_BINARY_CROSS_ENTROPY_BACKWARD_H_ */
