#include "promotion.h"

namespace aclcpu {

bool IsComplex(aclDataType d) { return d == ACL_COMPLEX32 || d == ACL_COMPLEX64 || d == ACL_COMPLEX128; }
bool IsFloating(aclDataType d) { return d == ACL_FLOAT16 || d == ACL_BF16 || d == ACL_FLOAT || d == ACL_DOUBLE; }
bool IsWideUnsigned(aclDataType d) { return d == ACL_UINT16 || d == ACL_UINT32 || d == ACL_UINT64; }
bool IsIntegral(aclDataType d) {  // not BOOL
  return IsWideUnsigned(d) || d == ACL_INT8 || d == ACL_UINT8 || d == ACL_INT16 || d == ACL_INT32 || d == ACL_INT64;
}

int IntegerRank(aclDataType d) {
  switch (d) {
    case ACL_BOOL:
      return 0;
    case ACL_INT8:
    case ACL_UINT8:
      return 1;
    case ACL_INT16:
      return 2;
    case ACL_INT32:
      return 3;
    case ACL_INT64:
      return 4;
    default:
      return -1;
  }
}

bool CanCast(aclDataType from, aclDataType to) {
  return !(IsComplex(from) && !IsComplex(to)) && !(IsFloating(from) && IsIntegral(to)) &&
         !(from != ACL_BOOL && to == ACL_BOOL);
}

aclDataType PromoteType(aclDataType a, aclDataType b) {
  const auto known = [](aclDataType d) {
    return IntegerRank(d) >= 0 || IsWideUnsigned(d) || IsFloating(d) || IsComplex(d);
  };
  if (!known(a) || !known(b)) return ACL_DT_UNDEFINED;
  if (a == b) return a;
  if (IsWideUnsigned(a)) {  // its table row: only a complex column has a type
    if (b == ACL_COMPLEX64) return a == ACL_UINT64 ? ACL_COMPLEX128 : ACL_COMPLEX64;
    return b == ACL_COMPLEX128 ? ACL_COMPLEX128 : ACL_DT_UNDEFINED;
  }
  if (IsWideUnsigned(b)) return ACL_DT_UNDEFINED;
  const auto either = [&](aclDataType d) { return a == d || b == d; };
  if (IsComplex(a) || IsComplex(b)) {
    if (either(ACL_COMPLEX128) || either(ACL_DOUBLE)) return ACL_COMPLEX128;
    if (either(ACL_COMPLEX64) || either(ACL_FLOAT) || either(ACL_BF16)) return ACL_COMPLEX64;
    return ACL_COMPLEX32;  // with FLOAT16, an integer or bool
  }
  if (either(ACL_DOUBLE)) return ACL_DOUBLE;
  if (IsFloating(a) && IsFloating(b)) return ACL_FLOAT;  // two different ones (FLOAT16 with BF16 too)
  if (IsFloating(a)) return a;                           // with an integer or bool
  if (IsFloating(b)) return b;
  // Two different integer or bool dtypes: the wider; INT8 with UINT8 is INT16.
  if (IntegerRank(a) == 1 && IntegerRank(b) == 1) return ACL_INT16;
  return IntegerRank(a) > IntegerRank(b) ? a : b;
}

}  // namespace aclcpu
