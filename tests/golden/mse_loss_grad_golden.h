// The golden of MseLossGrad: SPEC.md §3 as plain scalar code, one element at a time.
#ifndef ACLNN_CPU_TESTS_GOLDEN_MSE_LOSS_GRAD_GOLDEN_H_
#define ACLNN_CPU_TESTS_GOLDEN_MSE_LOSS_GRAD_GOLDEN_H_

#include <cstdint>
#include <vector>

#include "golden/golden_common.h"

namespace golden {

// Elements [begin, end) of MseLossGrad's output (row-major over the broadcast shape) as raw bits of
// out_dtype. reduction: the aclnn API's 0 none, 1 mean, 2 sum. The shapes must broadcast.
void MseLossGrad(const View& grad_output, const View& self, const View& target, int reduction, Dtype out_dtype,
                 int64_t begin, int64_t end, uint32_t* out_bits);

// The whole output, with the broadcast shape (no elements when the shapes do not broadcast).
Tensor MseLossGrad(const Tensor& grad_output, const Tensor& self, const Tensor& target, int reduction, Dtype out_dtype);

}  // namespace golden

#endif  // ACLNN_CPU_TESTS_GOLDEN_MSE_LOSS_GRAD_GOLDEN_H_
