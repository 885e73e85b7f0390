/* aclnn-cpu: base types, error codes and enums of the CANN runtime API (acl_base_rt.h), with the
 * runtime's error codes. */
#ifndef ACLNN_CPU_ACL_ACL_BASE_H_
#define ACLNN_CPU_ACL_ACL_BASE_H_

#include "acl_base_rt.h"
#include "error_codes/rt_error_codes.h"

#endif /* ACLNN_CPU_ACL_ACL_BASE_H_ */
