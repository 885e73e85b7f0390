// What every elementwise operator's tiling and kernel share, written once: an operator of a few
// inputs of one dtype and one output, computed by a Dag with float scalars (ops-nn's BroadcastSch
// operators: MseLossGrad, L1LossGrad, ...). An operator states its inputs in its Dag's order, which
// of them may be a single value, and its scalars; this plans the loop over the views, schedules it,
// names the kernel variant in one key table and runs the kernel.
#ifndef ACLNN_CPU_KERNEL_ELEMENTWISE_OP_H_
#define ACLNN_CPU_KERNEL_ELEMENTWISE_OP_H_

#include <cstdint>
#include <string>
#include <vector>

#include "elementwise.h"
#include "parallel.h"
#include "schedule.h"
#include "tensor_view.h"
#include "tiling_key.h"

namespace aclcpu {
namespace kernel {

// The kernel variant of an elementwise operator, in the order of Fields(): the two fields ops-nn's
// arch35 broadcast operators declare (schMode, then the operator's flag for an input that is one
// value -- MseLossGrad's doutIsScalar, L1LossGrad's inputGradsIsScalar, in
// loss/*/op_kernel/arch35/*_tiling_key.h), then the CPU kernel's own.
struct ElementwiseKey {
  ScheduleMode mode = ScheduleMode::kBroadcast;
  bool scalar_input = false;            // the input that may be one value is: read once, before y is written
  bool stream_stores = false;           // y larger than the last-level cache: non-temporal stores
  uint32_t layout = kStridedLayout;     // the inner loop: which inputs repeat a value, or strided
  DType dtype = DType::kFloat32;        // every input's, and y's before the store
  DType store_dtype = DType::kFloat32;  // y as written (the aclnn layer's cast to out, fused)
  uint32_t dag = 0;                     // the operator's Dag, of those it declares

  static const std::vector<KeyFieldOf<ElementwiseKey>>& Fields();  // in order
  // ops-nn's numeric form, for logs and tests (tiling_key.h); and as text.
  uint64_t Encode() const { return EncodeTilingKey(*this); }
  std::string ToString() const { return TilingKeyText(*this); }
};

// An elementwise operator's call as its tiling sees it.
struct ElementwiseOpInput {
  const char* op = "";                 // the definition's type, for messages: "MseLossGrad"
  const char* const* names = nullptr;  // the operands' (inputs, then y), as the definition names them
  int num_inputs = 0;                  // at most kMaxInputs
  // The inputs in the Dag's order, then y (shape and strides as stored; dtype the compute dtype).
  // Every input has y's dtype.
  TensorView operands[kMaxOperands];
  DType store_dtype = DType::kFloat32;  // y as written
  int scalar_input = -1;                // the input ops-nn's kernel reads as one value when it has one element
  ElementwiseContext context;           // the Dag's scalars, the operator's tiling sets
  uint32_t dag = 0;                     // and which of its Dags runs
  // Whether the aclnn layer broadcast every input to y's shape before the kernel (ops-nn's
  // BroadcastTo): the kernel then sees y's dims for each, though the engine reads the views as they
  // are (the same elements).
  bool inputs_broadcast = false;
  Platform platform;
};

// What phase one keeps for the launch.
struct ElementwiseTiling {
  ElementwiseKey key;
  ElementwiseContext context;  // the Dag's scalars: what the loop reads, as the launch passes it
  int num_inputs = 0;
  int scalar_input = -1;
  int threads = 1;       // before the plan: in the padding the context leaves (the executor copies it per call)
  ElementwisePlan plan;  // the inputs, then y
};

// Checks that every input and y share the input dtype, plans and schedules the loop and fills the
// key. False, with *error "<op>: ...", when they do not or the views do not broadcast to y.
bool PlanElementwiseOp(const ElementwiseOpInput& input, ElementwiseTiling* tiling, std::string* error);

// Runs the kernel: loop is the operator's inner loop for tiling.key; inputs[i] the first element
// of input i's view (the Dag's order), y the output's.
void RunElementwiseOp(const ElementwiseTiling& tiling, InnerLoop loop, const char* const* inputs, char* y,
                      ParallelRunner& runner);

}  // namespace kernel
}  // namespace aclcpu

#endif  // ACLNN_CPU_KERNEL_ELEMENTWISE_OP_H_
