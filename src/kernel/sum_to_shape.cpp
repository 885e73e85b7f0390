#include "sum_to_shape.h"

#include <cstring>

#include "float_convert.h"

namespace aclcpu {
namespace kernel {
namespace {

float ReadAsFloat(DType dtype, const char* at) {
  switch (dtype) {
    case DType::kFloat32: {
      float value;
      std::memcpy(&value, at, sizeof value);
      return value;
    }
    case DType::kFloat16: {
      uint16_t bits;
      std::memcpy(&bits, at, sizeof bits);
      return Float16BitsToFloat(bits);
    }
    case DType::kBFloat16: {
      uint16_t bits;
      std::memcpy(&bits, at, sizeof bits);
      return BFloat16BitsToFloat(bits);
    }
  }
  return 0.0f;
}

// value (already of dtype's precision when dtype is 16-bit) written as dtype.
void WriteFloat(DType dtype, float value, char* at) {
  switch (dtype) {
    case DType::kFloat32:
      std::memcpy(at, &value, sizeof value);
      return;
    case DType::kFloat16: {
      const uint16_t bits = FloatToFloat16Bits(value);
      std::memcpy(at, &bits, sizeof bits);
      return;
    }
    case DType::kBFloat16: {
      const uint16_t bits = FloatToBFloat16Bits(value);
      std::memcpy(at, &bits, sizeof bits);
      return;
    }
  }
}

// value rounded to dtype (to nearest, ties to even), as a float.
float RoundTo(DType dtype, float value) {
  switch (dtype) {
    case DType::kFloat32:
      return value;
    case DType::kFloat16:
      return Float16BitsToFloat(FloatToFloat16Bits(value));
    case DType::kBFloat16:
      return BFloat16BitsToFloat(FloatToBFloat16Bits(value));
  }
  return value;
}

}  // namespace

bool PlanSumToShape(DType from, Dims from_shape, const TensorView& to, SumToShapePlan* plan, std::string* why) {
  const size_t rank = from_shape.size();
  if (to.shape.size() > rank) {
    *why =
        "the sum's result " + ShapeToString(to.shape) + " has more dims than its values " + ShapeToString(from_shape);
    return false;
  }
  const size_t lead = rank - to.shape.size();
  plan->from = from;
  plan->from_shape.assign(from_shape.begin(), from_shape.end());
  plan->from_strides = ContiguousStrides(from_shape);
  plan->to = to.dtype;
  plan->to_shape.assign(to.shape.begin(), to.shape.end());
  plan->to_strides.assign(to.strides.begin(), to.strides.end());
  plan->step.assign(rank, 0);
  const Shape result_strides = ContiguousStrides(to.shape);  // the scratch's
  for (size_t d = lead; d < rank; ++d) {
    const int64_t dim = to.shape[d - lead];
    if (dim == from_shape[d]) {
      plan->step[d] = result_strides[d - lead];
    } else if (dim != 1) {
      *why = "the sum's result " + ShapeToString(to.shape) + " is not its values' " + ShapeToString(from_shape) +
             " with dims summed";
      return false;
    }
  }
  plan->results = Numel(to.shape);
  return true;
}

void RunSumToShape(const SumToShapePlan& plan, const char* values, char* to, double* scratch) {
  for (int64_t r = 0; r < plan.results; ++r) scratch[r] = 0.0;
  const size_t rank = plan.from_shape.size();
  const int64_t count = Numel(plan.from_shape);
  const int64_t size = ElementSize(plan.from);
  // The source's index, dim by dim (the last fastest), and the result it adds to.
  Shape index(rank, 0);
  int64_t result = 0;
  for (int64_t e = 0; e < count; ++e) {
    scratch[result] += static_cast<double>(ReadAsFloat(plan.from, values + e * size));
    for (size_t d = rank; d-- > 0;) {
      result += plan.step[d];
      if (++index[d] < plan.from_shape[d]) break;
      result -= plan.step[d] * index[d];
      index[d] = 0;
    }
  }
  // Each result, in row-major order of its shape, to its place in the view.
  const size_t to_rank = plan.to_shape.size();
  Shape at(to_rank, 0);
  int64_t offset = 0;
  const int64_t to_size = ElementSize(plan.to);
  for (int64_t r = 0; r < plan.results; ++r) {
    const float sum = RoundTo(plan.from, static_cast<float>(scratch[r]));
    WriteFloat(plan.to, RoundTo(plan.to, sum), to + offset * to_size);
    for (size_t d = to_rank; d-- > 0;) {
      offset += plan.to_strides[d];
      if (++at[d] < plan.to_shape[d]) break;
      offset -= plan.to_strides[d] * at[d];
      at[d] = 0;
    }
  }
}

}  // namespace kernel
}  // namespace aclcpu
