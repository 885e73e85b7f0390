// What every reducing operator's tiling and kernel share, written once: an elementwise operator
// (elementwise_op.h) whose Dag's float32 values are summed over every element into a 0-d y, as
// ops-nn's loss kernels on atvoss's ReduceSch do for a mean or a sum (LpLoss, SmoothL1LossV2,
// MseLoss). The sum follows the order of the kernel the call reaches (npu_reduce.h, kReduceSch) or,
// where that order is not public, the engine's own (reduce.h); the mean scales or divides it, and
// the result is rounded to the compute dtype, then cast to y's. (A reduction "none" is the
// operator's elementwise kernel.)
#ifndef ACLNN_CPU_KERNEL_REDUCE_OP_H_
#define ACLNN_CPU_KERNEL_REDUCE_OP_H_

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "elementwise.h"
#include "elementwise_op.h"
#include "npu_reduce.h"
#include "parallel.h"
#include "reduce.h"
#include "tensor_view.h"
#include "tiling_key.h"

namespace aclcpu {
namespace kernel {

// The order a reduction adds the values in.
enum class ReduceOrder : uint32_t {
  kFloat64 = 0,    // the engine's (reduce.h): a mean divides the float64 sum by N
  kReduceSch = 1,  // atvoss's ReduceSch on Ascend950: a mean multiplies the float32 sum by (float)(1.0 / N)
};

// The kernel variant of a reducing operator, in the order of Fields().
struct ReduceKey {
  ReduceOrder order = ReduceOrder::kFloat64;
  bool mean = false;
  bool empty = false;                   // no values: y is NaN (mean) or 0 (sum)
  uint32_t layout = kStridedLayout;     // the map's inner loop (elementwise.h)
  DType dtype = DType::kFloat32;        // every input's, and the result's before the store
  DType store_dtype = DType::kFloat32;  // y as written
  uint32_t dag = 0;                     // the operator's Dag, of those it declares

  static const std::vector<KeyFieldOf<ReduceKey>>& Fields();  // in order
  uint64_t Encode() const { return EncodeTilingKey(*this); }
  std::string ToString() const { return TilingKeyText(*this); }
};

// A reducing operator's call as its tiling sees it: its elementwise call (operands: the inputs,
// then the 0-d y; context: the Dag's scalars; dag) and how the sum goes.
struct ReduceOpInput {
  ElementwiseOpInput elementwise;
  ReduceOrder order = ReduceOrder::kFloat64;
  bool mean = false;
  ReduceSchDag sch_dag;  // kReduceSch: the Dag's buffers, for the split
  ReduceSchPlatform sch_platform;
};

struct ReduceTiling {
  ReduceKey key;
  ElementwiseContext context;
  int num_inputs = 0;
  std::variant<ReducePlan, NpuReducePlan> plan;
  int threads = 1;
  uint64_t workspace_bytes = 0;  // kFloat64's partial sums
};

// Checks that every input and y share the input dtype and y is 0-d, plans the reduction in its
// order and fills the key. False, with *error "<op>: ...", when the call cannot be planned.
bool PlanReduceOp(const ReduceOpInput& input, ReduceTiling* tiling, std::string* error);

// Runs it: map_loop is the operator's map (its Dag's float32 values) for tiling.key; inputs[i] the
// first element of input i's view, y the output's; workspace holds tiling.workspace_bytes. y is
// written after every input was read.
void RunReduceOp(const ReduceTiling& tiling, InnerLoop map_loop, const char* const* inputs, char* y, char* workspace,
                 ParallelRunner& runner);

}  // namespace kernel
}  // namespace aclcpu

#endif  // ACLNN_CPU_KERNEL_REDUCE_OP_H_
