/* aclnn-cpu: tensor handles and their accessors (CANN's acl_meta.h). */
#ifndef ACLNN_CPU_ACLNN_ACL_META_H_
#define ACLNN_CPU_ACLNN_ACL_META_H_

#include <stdint.h>

#include "acl/acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct aclOpExecutor aclOpExecutor;
typedef struct aclTensor aclTensor;
typedef int32_t aclnnStatus;

/* Describes a view of viewDims with element strides and an element offset into a storage of
 * storageDims elements starting at tensorData. Returns NULL (and sets aclGetRecentErrMsg) on
 * bad arguments. */
ACL_FUNC_VISIBILITY aclTensor* aclCreateTensor(const int64_t* viewDims, uint64_t viewDimsNum,
                                               aclDataType dataType, const int64_t* stride, int64_t offset,
                                               aclFormat format, const int64_t* storageDims,
                                               uint64_t storageDimsNum, void* tensorData);
ACL_FUNC_VISIBILITY aclnnStatus aclDestroyTensor(const aclTensor* tensor);

/* The arrays these return are allocated with new[]; release them with delete[]. */
ACL_FUNC_VISIBILITY aclnnStatus aclGetViewShape(const aclTensor* tensor, int64_t** viewDims,
                                                uint64_t* viewDimsNum);
ACL_FUNC_VISIBILITY aclnnStatus aclGetStorageShape(const aclTensor* tensor, int64_t** storageDims,
                                                   uint64_t* storageDimsNum);
ACL_FUNC_VISIBILITY aclnnStatus aclGetViewStrides(const aclTensor* tensor, int64_t** stridesValue,
                                                  uint64_t* stridesNum);
ACL_FUNC_VISIBILITY aclnnStatus aclGetViewOffset(const aclTensor* tensor, int64_t* offset);
ACL_FUNC_VISIBILITY aclnnStatus aclGetFormat(const aclTensor* tensor, aclFormat* format);
ACL_FUNC_VISIBILITY aclnnStatus aclGetDataType(const aclTensor* tensor, aclDataType* dataType);

#ifdef __cplusplus
}
#endif

#endif /* ACLNN_CPU_ACLNN_ACL_META_H_ */
