// aclnn's dtype rules, for the API layer and for generic callers (the case runner, Python, the
// fuzzer's model): the dtype classes of opbase's include/nnopbase/opdev/data_type_utils.h, its
// type promotion and CanCast.
#ifndef ACLNN_CPU_OPS_COMMON_OP_DEF_PROMOTION_H_
#define ACLNN_CPU_OPS_COMMON_OP_DEF_PROMOTION_H_

#include "acl/acl_base.h"

namespace aclcpu {

// The dtype classes promotion and CanCast read (over the dtypes with numbers that PromoteType
// knows here). IsIntegral leaves BOOL out.
bool IsComplex(aclDataType d);
bool IsFloating(aclDataType d);
bool IsWideUnsigned(aclDataType d);
bool IsIntegral(aclDataType d);
// The rank of an integer or bool dtype in promotion (a wider signed type takes a narrower one);
// -1 for any other.
int IntegerRank(aclDataType d);

// opbase's CanCast: a complex value only into a complex dtype, a floating one not into an integral
// one, only a bool into BOOL.
bool CanCast(aclDataType from, aclDataType to);

// aclnn's type promotion (op::PromoteType, kPromoteTypesLookup) for the dtypes of acl_base.h that
// have numbers (floating, integer, bool, complex): the common dtype of a and b, or
// ACL_DT_UNDEFINED where the table has none (an unsigned type wider than 8 bits with any other,
// except complex as its second; any other dtype). Not symmetric there: PromoteType(UINT16,
// COMPLEX64) is COMPLEX64, (COMPLEX64, UINT16) undefined.
aclDataType PromoteType(aclDataType a, aclDataType b);

}  // namespace aclcpu

#endif  // ACLNN_CPU_OPS_COMMON_OP_DEF_PROMOTION_H_
