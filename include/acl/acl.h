/* aclnn-cpu: the umbrella runtime header, as CANN programs include it. */
#ifndef ACLNN_CPU_ACL_ACL_H_
#define ACLNN_CPU_ACL_ACL_H_

#include "acl_base.h"
#include "acl_rt.h"

#endif /* ACLNN_CPU_ACL_ACL_H_ */
