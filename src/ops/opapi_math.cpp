// libopapi_math.so holds CANN's math operators; aclnn-cpu implements none of them yet. The library
// exists so that link lines copied from CANN samples resolve; this symbol says what it is.
#include "acl/acl_base.h"

extern "C" ACL_FUNC_VISIBILITY const char* aclnnCpuOpapiMathLibrary(void) { return "aclnn-cpu opapi_math"; }
