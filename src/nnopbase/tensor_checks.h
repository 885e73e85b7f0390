// Checks every aclnn operator makes on its aclTensor arguments, with the documented codes and a
// message naming the parameter.
#ifndef ACLNN_CPU_NNOPBASE_TENSOR_CHECKS_H_
#define ACLNN_CPU_NNOPBASE_TENSOR_CHECKS_H_

#include <cstdint>
#include <string>

#include "nnopbase_internal.h"

namespace aclcpu {

ACLCPU_API std::string DataTypeName(aclDataType dtype);
ACLCPU_API std::string FormatName(aclFormat format);

// ND and the plain layouts (NCHW, NHWC, NCDHW, NDHWC, HWCN, NC, NCL), all read as ND. (Inline:
// every call checks each of its tensors.)
inline bool IsPlainFormat(aclFormat format) {
  switch (format) {
    case ACL_FORMAT_ND:
    case ACL_FORMAT_NCHW:
    case ACL_FORMAT_NHWC:
    case ACL_FORMAT_NCDHW:
    case ACL_FORMAT_NDHWC:
    case ACL_FORMAT_HWCN:
    case ACL_FORMAT_NC:
    case ACL_FORMAT_NCL:
      return true;
    default:
      return false;
  }
}

// 0 when any dim is 0; INT64_MAX when the count overflows int64 (counted when it was described).
inline int64_t TensorNumel(const aclTensor& tensor) { return tensor.numel; }

// The bytes [begin, end) a view's elements occupy (nothing for an empty view).
struct ByteSpan {
  uintptr_t begin = 0;
  uintptr_t end = 0;
  bool Overlaps(const ByteSpan& other) const { return begin < other.end && other.begin < end; }
};

// Checks a tensor's view: a non-empty view lies inside its storage (no overflow on the way). On
// success *storage is that storage (bytes 0 for an empty tensor, of which nothing is touched) and
// *span the view's bytes. (Whether the storage lies in a live allocation: FindDeviceRanges, then
// StorageOutsideAllocations for the message.)
ACLCPU_API aclnnStatus CheckTensorMemory(const char* api, const char* name, const aclTensor& tensor,
                                         MemoryRange* storage, ByteSpan* span);
// 161002 "<api>: <owner> storage at P of N bytes is not inside one live aclrtMalloc allocation ...".
ACLCPU_API aclnnStatus StorageOutsideAllocations(const char* api, const MemoryRange& storage);

// 161002 "<api>: <name> at P is registered read-only (ACL_HOST_REGISTER_READONLY) ...": an output there.
ACLCPU_API aclnnStatus WriteToReadOnlyMemory(const char* api, const char* name, const void* address);

// Rejects a view in which two elements share an address (an output must not).
ACLCPU_API aclnnStatus CheckNoSelfOverlap(const char* api, const char* name, const aclTensor& tensor);

}  // namespace aclcpu

#endif  // ACLNN_CPU_NNOPBASE_TENSOR_CHECKS_H_
