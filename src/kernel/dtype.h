// The element types the project computes with: one enum and one traits table, used by the engine,
// the operators, the golden's harness and the tools alike. Switches over DType have no default, so
// -Wswitch names every place a new dtype must reach.
#ifndef ACLNN_CPU_KERNEL_DTYPE_H_
#define ACLNN_CPU_KERNEL_DTYPE_H_

#include <cstddef>
#include <cstdint>

namespace aclcpu {
namespace kernel {

enum class DType : uint8_t { kFloat32 = 0, kFloat16 = 1, kBFloat16 = 2 };
constexpr int kDTypeCount = 3;

struct DTypeTraits {
  DType dtype;
  const char* name;        // as CANN prints it: "FLOAT", "FLOAT16", "BF16"
  int64_t size;            // bytes per element
  int acl;                 // the aclDataType value (checked against acl_base.h where that is included)
  const char* short_name;  // as ops-nn's JSON case lists spell it: "fp32", "fp16", "bf16"
  const char* long_name;   // as its CSV case tables spell it: "float32", "float16", "bfloat16"
  const char* npy_descr;   // the NPY element type: bf16 travels as its raw bits, "<u2"
};

// Indexed by DType.
constexpr DTypeTraits kDTypeTable[kDTypeCount] = {
    {DType::kFloat32, "FLOAT", 4, 0, "fp32", "float32", "<f4"},
    {DType::kFloat16, "FLOAT16", 2, 1, "fp16", "float16", "<f2"},
    {DType::kBFloat16, "BF16", 2, 27, "bf16", "bfloat16", "<u2"},
};

constexpr const DTypeTraits& Traits(DType dtype) { return kDTypeTable[static_cast<int>(dtype)]; }
static_assert(Traits(DType::kFloat32).dtype == DType::kFloat32 && Traits(DType::kFloat16).dtype == DType::kFloat16 &&
                  Traits(DType::kBFloat16).dtype == DType::kBFloat16,
              "kDTypeTable is indexed by DType");
constexpr int64_t ElementSize(DType dtype) { return Traits(dtype).size; }
constexpr const char* DTypeName(DType dtype) { return Traits(dtype).name; }

// A 1 of the dtype, in static storage: what an absent optional input reads (ops-nn's aclnn layer
// passes l0op::OnesLike in its place).
inline const void* OneValue(DType dtype) {
  static const float kOneFloat = 1.0f;
  static const uint16_t kOneFloat16 = 0x3C00;
  static const uint16_t kOneBFloat16 = 0x3F80;
  switch (dtype) {
    case DType::kFloat32:
      return &kOneFloat;
    case DType::kFloat16:
      return &kOneFloat16;
    case DType::kBFloat16:
      return &kOneBFloat16;
  }
  return nullptr;
}

// A list of dtypes held elsewhere: an operator declaration's array, a vector's elements.
class DTypeSpan {
 public:
  template <size_t N>
  constexpr DTypeSpan(const DType (&dtypes)[N]) : begin_(dtypes), end_(dtypes + N) {}  // NOLINT: implicit
  constexpr DTypeSpan(const DType* begin, const DType* end) : begin_(begin), end_(end) {}
  constexpr const DType* begin() const { return begin_; }
  constexpr const DType* end() const { return end_; }
  constexpr size_t size() const { return static_cast<size_t>(end_ - begin_); }

 private:
  const DType* begin_;
  const DType* end_;
};

// The DType of an aclDataType value; false for one the engine does not compute with.
inline bool DTypeFromAcl(int acl, DType* dtype) {
  for (const DTypeTraits& traits : kDTypeTable) {
    if (traits.acl == acl) {
      *dtype = traits.dtype;
      return true;
    }
  }
  return false;
}

// The integer and bool element types an aclnn layer casts an input from to the dtype a kernel
// computes in (l0op::Cast, staged by PhaseOne::StageCast); the engine computes with none of them.
enum class IntegerType : uint8_t { kBool, kInt8, kUInt8, kInt16, kInt32, kInt64 };

// The IntegerType of an aclDataType value (acl_base.h: BOOL 12, INT8 2, UINT8 4, INT16 6, INT32 3,
// INT64 9); false for any other.
inline bool IntegerTypeFromAcl(int acl, IntegerType* type) {
  switch (acl) {
    case 12:
      *type = IntegerType::kBool;
      return true;
    case 2:
      *type = IntegerType::kInt8;
      return true;
    case 4:
      *type = IntegerType::kUInt8;
      return true;
    case 6:
      *type = IntegerType::kInt16;
      return true;
    case 3:
      *type = IntegerType::kInt32;
      return true;
    case 9:
      *type = IntegerType::kInt64;
      return true;
    default:
      return false;
  }
}

// The dtypes an aclnn layer casts a kernel's result into that the engine does not store itself
// (l0op::Cast of the result, then its ViewCopy into out).
enum class WideType : uint8_t { kDouble, kComplex32, kComplex64, kComplex128 };

// The WideType of an aclDataType value (acl_base.h: DOUBLE 11, COMPLEX64 16, COMPLEX128 17,
// COMPLEX32 33); false for any other.
inline bool WideTypeFromAcl(int acl, WideType* type) {
  switch (acl) {
    case 11:
      *type = WideType::kDouble;
      return true;
    case 16:
      *type = WideType::kComplex64;
      return true;
    case 17:
      *type = WideType::kComplex128;
      return true;
    case 33:
      *type = WideType::kComplex32;
      return true;
    default:
      return false;
  }
}

// aclnn's type promotion over the floating types: equal types stay; any other pair computes in
// FLOAT (FLOAT16 with BF16 has no common 16-bit type).
constexpr DType PromoteTypes(DType a, DType b) { return a == b ? a : DType::kFloat32; }

}  // namespace kernel
}  // namespace aclcpu

#endif  // ACLNN_CPU_KERNEL_DTYPE_H_
