// An attribute's value as generic code holds it, whatever its type: an enum as its number (the
// aclnn API's), an int, a bool as 0 or 1, a float. Shared by the API layer's tables, the case
// runner and the golden, which includes nothing else of src/ but the dtype names.
#ifndef ACLNN_CPU_OPS_COMMON_OP_DEF_ATTR_VALUE_H_
#define ACLNN_CPU_OPS_COMMON_OP_DEF_ATTR_VALUE_H_

#include <cstdint>

namespace aclcpu {

struct AttrValue {
  int64_t integer = 0;  // an enum's number, an int, a bool
  double real = 0.0;    // a float
};

}  // namespace aclcpu

#endif  // ACLNN_CPU_OPS_COMMON_OP_DEF_ATTR_VALUE_H_
