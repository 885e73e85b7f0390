#include "copy.h"

#include <cstring>

#include "float_convert.h"

namespace aclcpu {
namespace kernel {
namespace {

// n elements of kBytes from ptrs[0] to ptrs[1]: one memcpy when both runs are contiguous.
template <int kBytes>
void CopyLoop(const void*, int64_t n, char* const* ptrs, const int64_t* strides) {
  if (strides[0] == kBytes && strides[1] == kBytes) {
    std::memcpy(ptrs[1], ptrs[0], static_cast<size_t>(n) * kBytes);
    return;
  }
  for (int64_t k = 0; k < n; ++k) std::memcpy(ptrs[1] + k * strides[1], ptrs[0] + k * strides[0], kBytes);
}

// n elements from ptrs[0] (of From) to ptrs[1] (of To), each converted through float32.
template <typename From, typename To>
void ConvertLoop(const void*, int64_t n, char* const* ptrs, const int64_t* strides) {
  for (int64_t k = 0; k < n; ++k) {
    From value;
    std::memcpy(&value, ptrs[0] + k * strides[0], sizeof value);
    const To converted = Narrow<To>(Widen(value));
    std::memcpy(ptrs[1] + k * strides[1], &converted, sizeof converted);
  }
}

// n integers from ptrs[0] (of From) to ptrs[1] (of To): rounded to float32, then to To.
template <typename From, typename To>
void IntegerCastLoop(const void*, int64_t n, char* const* ptrs, const int64_t* strides) {
  for (int64_t k = 0; k < n; ++k) {
    From value;
    std::memcpy(&value, ptrs[0] + k * strides[0], sizeof value);
    const To converted = Narrow<To>(static_cast<float>(value));  // the host's conversion: to nearest even
    std::memcpy(ptrs[1] + k * strides[1], &converted, sizeof converted);
  }
}

template <typename From>
InnerLoop IntegerCastLoopTo(DType to) {
  return VisitDType(to, [](auto to_type) -> InnerLoop { return &IntegerCastLoop<From, decltype(to_type)>; });
}

InnerLoop IntegerCastLoopFor(IntegerType from, DType to) {
  switch (from) {
    case IntegerType::kBool:  // read as INT8
    case IntegerType::kInt8:
      return IntegerCastLoopTo<int8_t>(to);
    case IntegerType::kUInt8:
      return IntegerCastLoopTo<uint8_t>(to);
    case IntegerType::kInt16:
      return IntegerCastLoopTo<int16_t>(to);
    case IntegerType::kInt32:
      return IntegerCastLoopTo<int32_t>(to);
    case IntegerType::kInt64:
      return IntegerCastLoopTo<int64_t>(to);
  }
  return IntegerCastLoopTo<int64_t>(to);  // not reached: every IntegerType is a case above
}

// n values from ptrs[0] (of From) to ptrs[1]: each widened exactly to Real, then an imaginary part
// of +0 of the same type when kComplex.
template <typename From, typename Real, bool kComplex>
void WideCastLoop(const void*, int64_t n, char* const* ptrs, const int64_t* strides) {
  for (int64_t k = 0; k < n; ++k) {
    From value;
    std::memcpy(&value, ptrs[0] + k * strides[0], sizeof value);
    const Real parts[2] = {static_cast<Real>(Widen(value)), Real{}};
    std::memcpy(ptrs[1] + k * strides[1], parts, kComplex ? sizeof parts : sizeof parts[0]);
  }
}

// A FLOAT16 value as the real part of a COMPLEX32 (its bits as they are), imaginary part +0.
void Complex32Loop(const void*, int64_t n, char* const* ptrs, const int64_t* strides) {
  for (int64_t k = 0; k < n; ++k) {
    uint16_t parts[2] = {0, 0};
    std::memcpy(&parts[0], ptrs[0] + k * strides[0], sizeof parts[0]);
    std::memcpy(ptrs[1] + k * strides[1], parts, sizeof parts);
  }
}

InnerLoop WideCastLoopFor(DType from, WideType to) {
  if (to == WideType::kComplex32) return &Complex32Loop;  // from FLOAT16 (the caller's check)
  return VisitDType(from, [to](auto from_type) -> InnerLoop {
    using From = decltype(from_type);
    switch (to) {
      case WideType::kComplex64:
        return &WideCastLoop<From, float, true>;
      case WideType::kComplex128:
        return &WideCastLoop<From, double, true>;
      default:
        return &WideCastLoop<From, double, false>;
    }
  });
}

int64_t WideSize(WideType type) {
  switch (type) {
    case WideType::kComplex32:
      return 4;
    case WideType::kComplex128:
      return 16;
    default:
      return 8;
  }
}

int64_t IntegerSize(IntegerType type) {
  switch (type) {
    case IntegerType::kInt16:
      return 2;
    case IntegerType::kInt32:
      return 4;
    case IntegerType::kInt64:
      return 8;
    default:
      return 1;
  }
}

// The plan of a copy between two views of one shape (one of them contiguous) through loop.
CopyPlan PlanCopy(Dims shape, const OperandDims& source, const OperandDims& destination, InnerLoop loop,
                  const Platform& platform) {
  CopyPlan copy;
  copy.loop = loop;
  const OperandDims operands[] = {source, destination};
  if (!PlanElementwise(shape, operands, 2, &copy.plan)) return copy;  // a view phase one checked: never
  copy.threads = ScheduleElementwise(platform, 1, &copy.plan).threads;
  return copy;
}

InnerLoop CopyLoopFor(DType from, DType to) {
  if (from == to) return ElementSize(from) == 4 ? &CopyLoop<4> : &CopyLoop<2>;
  return VisitDType(from, [to](auto from_type) {
    return VisitDType(to,
                      [](auto to_type) -> InnerLoop { return &ConvertLoop<decltype(from_type), decltype(to_type)>; });
  });
}

}  // namespace

CopyPlan PlanCopyToContiguous(const TensorView& source, const Platform& platform) {
  return PlanCopyToContiguous(source, source.dtype, platform);
}

CopyPlan PlanCopyToContiguous(const TensorView& source, DType to, const Platform& platform) {
  const Shape contiguous = ContiguousStrides(source.shape);
  return PlanCopy(source.shape, source.Operand(), OperandDims(ElementSize(to), source.shape, contiguous),
                  CopyLoopFor(source.dtype, to), platform);
}

CopyPlan PlanIntegerCast(IntegerType from, Dims shape, Dims strides, DType to, const Platform& platform) {
  const Shape contiguous = ContiguousStrides(shape);
  return PlanCopy(shape, OperandDims(IntegerSize(from), shape, strides),
                  OperandDims(ElementSize(to), shape, contiguous), IntegerCastLoopFor(from, to), platform);
}

CopyPlan PlanWideCast(DType from, Dims shape, WideType to, Dims strides, const Platform& platform) {
  const Shape contiguous = ContiguousStrides(shape);
  return PlanCopy(shape, OperandDims(ElementSize(from), shape, contiguous), OperandDims(WideSize(to), shape, strides),
                  WideCastLoopFor(from, to), platform);
}

void RunCopy(const CopyPlan& copy, const char* source, char* dst, ParallelRunner& runner) {
  char* bases[] = {const_cast<char*>(source), dst};
  RunElementwise(copy.plan, bases, copy.loop, nullptr, runner, copy.threads);
}

bool ReadsAcrossMemory(const TensorView& view) {
  int inner = static_cast<int>(view.shape.size()) - 1;
  while (inner >= 0 && view.shape[inner] == 1) --inner;
  if (inner < 0 || view.strides[inner] == 1 || view.strides[inner] == 0) return false;
  for (int d = 0; d < inner; ++d) {
    if (view.shape[d] > 1 && view.strides[d] == 1) return true;
  }
  return false;
}

}  // namespace kernel
}  // namespace aclcpu
