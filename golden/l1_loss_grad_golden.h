// The golden of L1LossGrad (aclnnL1LossBackward): the operator's semantics as plain scalar code, one
// element at a time, for the kernel the call reaches on the NPU: ops-nn's arch35 kernel on 950,
// CANN's TBE kernel elsewhere (docs/semantics.md, "L1LossBackward").
#ifndef ACLNN_CPU_GOLDEN_L1_LOSS_GRAD_GOLDEN_H_
#define ACLNN_CPU_GOLDEN_L1_LOSS_GRAD_GOLDEN_H_

#include <cstdint>
#include <vector>

#include "golden/golden_common.h"

namespace golden {

// Which kernel's numbers, and as whom: aclnnL1LossBackward on npu (its aclnn layer broadcasts the
// inputs to the output's shape first), or (kernel_level) the arch35 L1LossGrad kernel itself on
// the tensors as given, as the case runner's kernel rows run it.
struct L1GradRoute {
  Npu npu;
  bool kernel_level = false;
};

// The mean's scale: on 950 (and at the kernel level) 1.0f divided in turn by each dim of the label
// the kernel receives, in float32 (ops-nn loss/l1_loss_grad/op_host/arch35/l1_loss_grad_tiling.cpp,
// CaluateReduceElts); elsewhere float32(1 / N), N the double product of the grads' dims (the TBE
// kernel's l1_loss_grad_compute). 1 for reduction none and sum.
float L1Scale(const L1GradRoute& route, int reduction, const std::vector<int64_t>& grad_output,
              const std::vector<int64_t>& target, const std::vector<int64_t>& out);

// Elements [begin, end) of the output (row-major over the broadcast shape) as raw bits of
// out_dtype. reduction: the aclnn API's 0 none, 1 mean, 2 sum. The shapes must broadcast. The
// inputs compute in their promoted dtype (one dtype: itself; two different: FLOAT).
void L1LossGrad(const View& grad_output, const View& self, const View& target, int reduction, Dtype out_dtype,
                int64_t begin, int64_t end, uint32_t* out_bits, const L1GradRoute& route = L1GradRoute());

// The whole output, with the broadcast shape (no elements when the shapes do not broadcast).
Tensor L1LossGrad(const Tensor& grad_output, const Tensor& self, const Tensor& target, int reduction, Dtype out_dtype,
                  const L1GradRoute& route = L1GradRoute());

}  // namespace golden

#endif  // ACLNN_CPU_GOLDEN_L1_LOSS_GRAD_GOLDEN_H_
