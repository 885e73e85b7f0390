/* aclnn-cpu: the umbrella runtime header, as CANN programs include it. */
#ifndef ACLNN_CPU_ACL_ACL_H_
#define ACLNN_CPU_ACL_ACL_H_

#include "acl_base.h"
#include "acl_rt.h"

#ifdef __cplusplus
extern "C" {
#endif

ACL_FUNC_VISIBILITY aclError aclInit(const char* configPath);
ACL_FUNC_VISIBILITY aclError aclFinalize(void);

/* The message of the most recent failed call on this thread; "" when there was none. */
ACL_FUNC_VISIBILITY const char* aclGetRecentErrMsg(void);

#ifdef __cplusplus
}
#endif

#endif /* ACLNN_CPU_ACL_ACL_H_ */
