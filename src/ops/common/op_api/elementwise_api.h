// What an elementwise operator's aclnn API does after its own checks, written once: its tensors
// viewed as the tiling sees them (in the definition's order), inputs of another dtype than the
// compute dtype cast and inputs that share bytes with out staged (each a copy in the workspace),
// the operator's tiling, one log line, and the executor whose launch runs the kernel
// (kernel/elementwise_op.h).
#ifndef ACLNN_CPU_OPS_COMMON_OP_API_ELEMENTWISE_API_H_
#define ACLNN_CPU_OPS_COMMON_OP_API_ELEMENTWISE_API_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "kernel/elementwise_op.h"
#include "kernel/reduce_op.h"
#include "kernel/sum_to_shape.h"
#include "ops/common/op_api/aclnn_op.h"

namespace aclcpu {
namespace opapi {

struct ElementwiseLaunch {
  int num_inputs = 0;                   // the definition's
  int inputs[kernel::kMaxInputs] = {};  // the API's parameters in the definition's input order (the Dag's)
  int out = 0;                          // the API's output parameter
  // The input (index into inputs) ops-nn's kernel reads as one value when it has one element: read
  // once, before out is written, so never staged for aliasing (only cast, when its dtype is not the
  // compute dtype); -1 for none. The tiling sets the same one.
  int scalar_input = -1;
  kernel::DType compute = kernel::DType::kFloat32;  // y's dtype (infer dtype); out's is the store dtype
  // The inner loop of a key's variant on this CPU: the operator's kernel (resolved once, here); a
  // reducing operator's map for a reduction of every element.
  kernel::InnerLoop (*select)(const kernel::ElementwiseKey& key) = nullptr;
  kernel::InnerLoop (*select_map)(const kernel::ReduceKey& key) = nullptr;
  // y's shape when it is not out's: the kernel computes at this shape (the inputs' broadcast) and
  // its result is summed over the dims out lacks (kernel/sum_to_shape.h), as ops-nn's
  // aclnnKlDivBackward sums over the dims it broadcast self across. Null: out's shape.
  const kernel::Shape* y_shape = nullptr;
  // For the log line: the operator's attributes and their values ("reduction mean").
  const AttrDeclaration* attributes = nullptr;
  const AttrValue* attribute_values = nullptr;
  int attribute_count = 0;
};

// An out of a dtype the engine does not store (kernel::WideType: DOUBLE, complex): y is computed
// into the workspace at offset `at`, then cast into out, as ops-nn's aclnn layer casts the result
// and copies it into out (l0op::Cast, ViewCopy). No cast (null; at -1): y is out itself -- the
// common call, which makes no plan for it (the plan is on the heap, made only for such an out,
// and shared by the executors the aclnn cache makes of this call: executor_cache.h).
struct OutCast {
  int64_t at = -1;
  std::shared_ptr<const kernel::CopyPlan> cast;
};

// A y of another shape than out's (ElementwiseLaunch::y_shape): computed into the workspace at
// `at`, then summed into out -- or, when out also takes an OutCast, into that cast's place. No sum
// (null plan): y is written where out's values go.
struct OutSum {
  int64_t at = -1;
  int64_t scratch = -1;  // the float64 sums
  std::shared_ptr<const kernel::SumToShapePlan> plan;
};

// What the executor keeps of an elementwise operator's launch: the tiling, the inner loop and where
// each operand is among the launch's tensors. Made in place inside the executor, then filled.
struct ElementwiseBody {
  kernel::ElementwiseTiling tiling;
  kernel::InnerLoop loop;
  int inputs[kernel::kMaxInputs];
  int out;
  OutCast out_cast;
  OutSum out_sum;

  void operator()(LaunchArgs& args) const;
};

// The operator's tiling input: its parameters viewed at phase one's addresses, y of the compute
// dtype, the store dtype and the platform (what is the operator's own -- names, scalar input,
// scalars -- its tiling sets). An input of another dtype is given a contiguous copy cast to the
// compute dtype (exact for the widening a promotion makes; an integer or bool input rounded as
// kernel::PlanIntegerCast says); of the others, those sharing bytes with
// out other than element for element are given contiguous copies. Their views then name the copies.
// An out of a WideType gets y's contiguous place in the workspace and its cast in *out_cast (y's
// view then that place's; untouched for any other out). A launch's y_shape other than out's gets
// y's place at that shape and the sum in *out_sum (false *why when it is no sum: untouched else).
std::vector<StagedInput> ViewElementwise(PhaseOne& call, const ElementwiseLaunch& launch,
                                         kernel::ElementwiseOpInput* input, OutCast* out_cast, OutSum* out_sum,
                                         std::string* why);

// ops-math's Cast has a COMPLEX32 kernel from FLOAT16 only, on Ascend950's AI Core (math/cast/
// op_api/cast.cpp, REGBASE_AICORE_DTYPE_SUPPORT_LIST), and its AI CPU kernel takes no COMPLEX32
// (AICPU_DTYPE_SUPPORT_LIST): elsewhere l0op::Cast gives no tensor and the aclnn layer returns
// 561103 (ACLNN_ERR_INNER_NULLPTR), after every parameter check.
aclnnStatus CheckComplex32Cast(const PhaseOne& call, const ElementwiseLaunch& launch);
inline aclnnStatus CheckOutCast(const PhaseOne& call, const ElementwiseLaunch& launch) {
  return call.tensor(launch.out).dtype == ACL_COMPLEX32 ? CheckComplex32Cast(call, launch) : ACLNN_SUCCESS;
}

// Logs the plan, selects the kernel and creates the executor whose launch copies the staged inputs
// and runs it (body: the executor's, its tiling filled).
aclnnStatus FinishElementwise(PhaseOne& call, const ElementwiseLaunch& launch, ElementwiseBody* body,
                              uint64_t* workspace_size, aclOpExecutor** executor);

// The whole of it: tiling(kernel::ElementwiseOpInput*, kernel::ElementwiseTiling*, std::string*
// error) is the operator's tiling; a failure is 561002 with its message.
template <class Tiling>
aclnnStatus RunElementwisePhaseOne(PhaseOne& call, const ElementwiseLaunch& launch, Tiling&& tiling,
                                   uint64_t* workspace_size, aclOpExecutor** executor) {
  if (aclnnStatus status = CheckOutCast(call, launch)) return status;
  kernel::ElementwiseOpInput input;
  OutCast out_cast;
  OutSum out_sum;
  std::string why;
  ElementwiseBody& body =
      call.EmplaceLaunch<ElementwiseBody>(ViewElementwise(call, launch, &input, &out_cast, &out_sum, &why));
  if (!why.empty()) return call.Fail(ACLNN_ERR_INNER_TILING_ERROR, why);
  if (aclnnStatus status = call.WorkspaceStatus()) return status;  // a copy past int64 bytes
  if (out_cast.cast) body.out_cast = std::move(out_cast);
  if (out_sum.plan) body.out_sum = std::move(out_sum);
  if (!tiling(&input, &body.tiling, &why)) return call.Fail(ACLNN_ERR_INNER_TILING_ERROR, why);
  return FinishElementwise(call, launch, &body, workspace_size, executor);
}

// A reducing operator's launch (kernel/reduce_op.h): its mean or sum of every element.
struct ReduceBody {
  kernel::ReduceTiling tiling;
  kernel::InnerLoop loop;
  int inputs[kernel::kMaxInputs];
  int out;
  uint64_t scratch;  // the tiling's workspace
  OutCast out_cast;

  void operator()(LaunchArgs& args) const;
};

// The operator's tiling input for a reduction: as ViewElementwise, but out is written once every
// input was read (no input is staged for sharing its bytes); an input a row-major walk reads across
// its memory (transposed) is given a contiguous copy, as the values are summed in row-major order.
std::vector<StagedInput> ViewReduce(PhaseOne& call, const ElementwiseLaunch& launch, kernel::ElementwiseOpInput* input,
                                    OutCast* out_cast);

aclnnStatus FinishReduce(PhaseOne& call, const ElementwiseLaunch& launch, ReduceBody* body, uint64_t* workspace_size,
                         aclOpExecutor** executor);

// The whole of it for a reduction: tiling(kernel::ReduceOpInput*, kernel::ReduceTiling*, std::string*
// error) is the operator's; a failure is 561002 with its message.
template <class Tiling>
aclnnStatus RunReducePhaseOne(PhaseOne& call, const ElementwiseLaunch& launch, Tiling&& tiling,
                              uint64_t* workspace_size, aclOpExecutor** executor) {
  if (aclnnStatus status = CheckOutCast(call, launch)) return status;
  kernel::ReduceOpInput input;
  OutCast out_cast;
  ReduceBody& body = call.EmplaceLaunch<ReduceBody>(ViewReduce(call, launch, &input.elementwise, &out_cast));
  if (aclnnStatus status = call.WorkspaceStatus()) return status;  // a copy past int64 bytes
  if (out_cast.cast) body.out_cast = std::move(out_cast);
  std::string why;
  if (!tiling(&input, &body.tiling, &why)) return call.Fail(ACLNN_ERR_INNER_TILING_ERROR, why);
  return FinishReduce(call, launch, &body, workspace_size, executor);
}

}  // namespace opapi
}  // namespace aclcpu

#endif  // ACLNN_CPU_OPS_COMMON_OP_API_ELEMENTWISE_API_H_
