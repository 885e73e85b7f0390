// The sum of an operator's result over the dims its aclnn layer broadcast an input across, back to
// that input's shape: ops-nn's ReduceSumTensor in aclnn_kl_div_backward.cpp (l0op::ReduceSumOp over
// the leading dims and the dims where the input had 1, keeping dims, then a Reshape). The NPU's
// ReduceSum order there is not followed (on Ascend950 ops-math's reduce_sum runs atvoss's ReduceSch
// over A and R axes; elsewhere a TBE kernel): ours, simple and fixed --
// - each result adds its values in row-major order of the result's source positions, in float64
//   from +0 (each value widened exactly);
// - rounded to float32 once, then to the values' dtype (ReduceSum's output dtype), then to the
//   result view's dtype (the aclnn layer's Cast into out), each to nearest, ties to even.
#ifndef ACLNN_CPU_KERNEL_SUM_TO_SHAPE_H_
#define ACLNN_CPU_KERNEL_SUM_TO_SHAPE_H_

#include <cstdint>
#include <string>

#include "shape.h"
#include "tensor_view.h"

namespace aclcpu {
namespace kernel {

struct SumToShapePlan {
  DType from = DType::kFloat32;  // the values' dtype
  Shape from_shape;              // the values: contiguous, of this shape
  Shape from_strides;            // its row-major strides (where a view of the values reads them)
  DType to = DType::kFloat32;    // the result view's
  Shape to_shape;                // the result's dims, each 1 or from's dim, right-aligned against from's
  Shape to_strides;              // elements
  // Per dim of from: how far the result moves when the source does (0 where the dim is summed).
  Shape step;
  int64_t results = 0;  // the result's element count (the float64 sums' scratch)
};

// Plans the sum of contiguous values of dtype `from` and shape `from_shape` into `to` (its dtype,
// shape and strides; data unused). False with *why when to's shape is not from's with dims summed
// (a dim of 1 where from's is not, or fewer leading dims).
bool PlanSumToShape(DType from, Dims from_shape, const TensorView& to, SumToShapePlan* plan, std::string* why);

// Runs it: values (contiguous) into to (its first element); scratch holds plan.results doubles.
void RunSumToShape(const SumToShapePlan& plan, const char* values, char* to, double* scratch);

}  // namespace kernel
}  // namespace aclcpu

#endif  // ACLNN_CPU_KERNEL_SUM_TO_SHAPE_H_
