// Every operator's kernel as the graph drives it -- a TTK row's -- from the declarations: the table
// is generated (tools/opgen/opgen.py writes kernel_table.cpp), the infer steps and an elementwise
// kernel's run are written once here.
#ifndef ACLNN_CPU_OPS_COMMON_OP_DEF_KERNEL_TABLE_H_
#define ACLNN_CPU_OPS_COMMON_OP_DEF_KERNEL_TABLE_H_

#include <memory>
#include <new>
#include <string>
#include <vector>

#include "kernel/elementwise_op.h"
#include "kernel/reduce_op.h"
#include "kernel/tensor_view.h"
#include "nnopbase/nnopbase_internal.h"
#include "ops/common/op_api/aclnn_op.h"
#include "ops/common/op_def/declaration.h"

namespace aclcpu {

struct KernelOp {
  const OperatorInfo* info;
  // The kernel on contiguous host tensors: operands[] its inputs in the definition's order, then y
  // (infer dtype's, as the graph gives it); the attributes in the declaration's order. False with
  // *error naming the step that refused the case.
  bool (*run)(const kernel::TensorView* operands, const AttrValue* attributes, std::string* error);
};

// Every operator, in the declarations' order.
const std::vector<KernelOp>& KernelOps();
// The operator a TTK row names: by its op_name or the definition's type; null when none is.
const KernelOp* FindKernelOp(const std::string& name);

// The definition's checks: every input of a dtype it allows, with at most kernel::kMaxRank dims.
// False with *error (the dtype it does not allow; "infer shape rejected the case: ...").
bool CheckKernelInputs(const OperatorInfo& op, const kernel::Dims* shapes, const kernel::DType* dtypes,
                       std::string* error);
// Infer shape and infer dtype as the definition gives them, after its checks: the inputs'
// broadcast (one shape, where the definition says so); y's shape by its rule, y's dtype the first
// input's. False with *error "infer shape rejected the case: ...".
bool InferKernelOutput(const OperatorInfo& op, const kernel::Dims* shapes, const kernel::DType* dtypes,
                       const AttrValue* attributes, kernel::Shape* y_shape, kernel::DType* y_dtype, std::string* error);

// An elementwise operator's run: its tiling (ComputeTiling) on the operands, then its kernel.
template <class Attributes>
bool RunElementwiseKernel(const kernel::TensorView* operands, int input_count, const Attributes& attributes,
                          bool (*tiling)(kernel::ElementwiseOpInput*, const Attributes&, kernel::ElementwiseTiling*,
                                         std::string*),
                          kernel::InnerLoop (*select)(const kernel::ElementwiseKey&), std::string* error) {
  kernel::ElementwiseOpInput input;
  const char* data[kernel::kMaxInputs];
  for (int i = 0; i < input_count; ++i) {
    input.operands[i] = operands[i];
    data[i] = operands[i].data;
  }
  input.operands[input_count] = operands[input_count];
  input.store_dtype = operands[input_count].dtype;
  input.platform = opapi::KernelPlatform();
  kernel::ElementwiseTiling plan;
  std::string why;
  if (!tiling(&input, attributes, &plan, &why)) {
    *error = "tiling rejected the case: " + why;
    return false;
  }
  kernel::RunElementwiseOp(plan, select(plan.key), data, operands[input_count].data, KernelThreadPool());
  return true;
}

// A kernel row's workspace: 64-byte aligned, none for 0 bytes. False with *error when there is no
// memory for it.
struct AlignedFree {
  void operator()(char* p) const { ::operator delete (p, std::align_val_t{64}, std::nothrow); }
};
using KernelWorkspace = std::unique_ptr<char, AlignedFree>;
// (Inline: an operator's library, a shared one, uses it beside the static tables.)
inline bool AllocateKernelWorkspace(uint64_t bytes, KernelWorkspace* workspace, std::string* error) {
  if (bytes == 0) return true;
  workspace->reset(static_cast<char*>(::operator new (static_cast<size_t>(bytes), std::align_val_t{64}, std::nothrow)));
  if (*workspace == nullptr) {
    *error = "cannot allocate the kernel's workspace of " + std::to_string(bytes) + " bytes";
    return false;
  }
  return true;
}

// Runs a reduction's tiling and kernel; its workspace is allocated here. False with *error.
bool RunReduceTiling(const kernel::ReduceTiling& tiling, kernel::InnerLoop loop, const kernel::TensorView* operands,
                     int input_count, std::string* error);

// A reducing operator's mean or sum at the kernel level: its reduction tiling on the operands (y
// 0-d), then its map and the reduction.
template <class Attributes>
bool RunReduceKernel(const kernel::TensorView* operands, int input_count, const Attributes& attributes,
                     bool (*tiling)(kernel::ReduceOpInput*, const Attributes&, kernel::ReduceTiling*, std::string*),
                     kernel::InnerLoop (*select)(const kernel::ReduceKey&), std::string* error) {
  kernel::ReduceOpInput input;
  for (int i = 0; i <= input_count; ++i) input.elementwise.operands[i] = operands[i];
  input.elementwise.store_dtype = operands[input_count].dtype;
  input.elementwise.platform = opapi::KernelPlatform();
  input.sch_platform = opapi::KernelLevelReduceSchPlatform();
  kernel::ReduceTiling plan;
  std::string why;
  if (!tiling(&input, attributes, &plan, &why)) {
    *error = "tiling rejected the case: " + why;
    return false;
  }
  return RunReduceTiling(plan, plan.key.empty ? nullptr : select(plan.key), operands, input_count, error);
}

}  // namespace aclcpu

#endif  // ACLNN_CPU_OPS_COMMON_OP_DEF_KERNEL_TABLE_H_
