// The data types: element sizes (CANN's aclDataTypeSize rule, and the bytes a stored element takes)
// and the FLOAT16 conversions of acl_base_rt.h.
#include <cstring>

#include "kernel/float_convert.h"
#include "runtime_internal.h"

namespace aclcpu {

bool IsDataType(int dtype) {
  switch (dtype) {
    case ACL_DT_UNDEFINED:
    case ACL_FLOAT:
    case ACL_FLOAT16:
    case ACL_INT8:
    case ACL_INT32:
    case ACL_UINT8:
    case ACL_INT16:
    case ACL_UINT16:
    case ACL_UINT32:
    case ACL_INT64:
    case ACL_UINT64:
    case ACL_DOUBLE:
    case ACL_BOOL:
    case ACL_STRING:
    case ACL_COMPLEX64:
    case ACL_COMPLEX128:
    case ACL_BF16:
    case ACL_INT4:
    case ACL_UINT1:
    case ACL_COMPLEX32:
    case ACL_HIFLOAT8:
    case ACL_FLOAT8_E5M2:
    case ACL_FLOAT8_E4M3FN:
    case ACL_FLOAT8_E8M0:
    case ACL_FLOAT6_E3M2:
    case ACL_FLOAT6_E2M3:
    case ACL_FLOAT4_E2M1:
    case ACL_FLOAT4_E1M2:
    case ACL_HIFLOAT4:
    case ACL_HIFLOAT4_SCALE:
      return true;
    default:
      return false;
  }
}

size_t DataTypeSize(int dtype) {
  switch (dtype) {
    case ACL_BOOL:
    case ACL_INT8:
    case ACL_UINT8:
    case ACL_HIFLOAT8:
    case ACL_FLOAT8_E5M2:
    case ACL_FLOAT8_E4M3FN:
    case ACL_FLOAT8_E8M0:
      return 1;
    case ACL_FLOAT16:
    case ACL_BF16:
    case ACL_INT16:
    case ACL_UINT16:
      return 2;
    case ACL_FLOAT:
    case ACL_INT32:
    case ACL_UINT32:
    case ACL_COMPLEX32:
      return 4;
    case ACL_INT64:
    case ACL_UINT64:
    case ACL_DOUBLE:
    case ACL_COMPLEX64:
      return 8;
    case ACL_COMPLEX128:
      return 16;
    default:
      return 0;  // DT_UNDEFINED, STRING, the sub-byte types (INT4, UINT1, the 4- and 6-bit floats), no dtype
  }
}

// CANN's rule (its aclDataTypeSize): the sub-byte INT4, UINT1 and HIFLOAT4 take a byte; a value
// the rule does not name, the 4- and 6-bit floats among them, falls to its default of 8.
size_t PublicDataTypeSize(int dtype) {
  switch (dtype) {
    case ACL_STRING:
    case ACL_DT_UNDEFINED:
      return 0;
    case ACL_INT4:
    case ACL_UINT1:
    case ACL_HIFLOAT4:
      return 1;
    case ACL_COMPLEX128:
      return 16;
    default: {
      const size_t size = DataTypeSize(dtype);
      return size != 0 ? size : 8;
    }
  }
}

}  // namespace aclcpu

extern "C" {

ACL_FUNC_VISIBILITY size_t aclDataTypeSize(aclDataType dataType) {
  return aclcpu::PublicDataTypeSize(aclcpu::EnumBits(dataType));
}

ACL_FUNC_VISIBILITY float aclFloat16ToFloat(aclFloat16 value) {
  if ((value & 0x7c00u) != 0x7c00u) return aclcpu::kernel::Float16BitsToFloat(value);
  // CANN reads the exponent of all ones as 2^16: (1 + mantissa / 1024) * 65536, with the sign.
  const float magnitude = (1.0f + static_cast<float>(value & 0x3ffu) / 1024.0f) * 65536.0f;
  return (value & 0x8000u) != 0 ? -magnitude : magnitude;
}

ACL_FUNC_VISIBILITY aclFloat16 aclFloatToFloat16(float value) {
  const uint16_t bits = aclcpu::kernel::FloatToFloat16Bits(value);
  // Saturation, as CANN does: what would be an infinity or a NaN is the largest finite value.
  if ((bits & 0x7c00u) == 0x7c00u) return static_cast<aclFloat16>((bits & 0x8000u) | 0x7bffu);
  return bits;
}

}  // extern "C"
