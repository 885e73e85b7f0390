/* aclnn-cpu: the aclnn library's start and stop, with the handles (acl_meta.h) and the status
 * codes (opdev/op_errno.h) an aclnn program uses. */
#ifndef ACLNN_CPU_ACLNN_ACLNN_BASE_H_
#define ACLNN_CPU_ACLNN_ACLNN_BASE_H_

#include "aclnn/acl_meta.h"
#include "aclnn/opdev/op_errno.h"

#ifdef __cplusplus
extern "C" {
#endif

ACL_FUNC_VISIBILITY aclnnStatus aclnnInit(const char* configPath);
ACL_FUNC_VISIBILITY aclnnStatus aclnnFinalize(void);

#ifdef __cplusplus
}
#endif

#endif /* ACLNN_CPU_ACLNN_ACLNN_BASE_H_ */
