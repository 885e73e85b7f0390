// The kernel table's lookups and infer steps (kernel_table.h); the table itself is generated.
#include <memory>
#include <new>

#include "kernel_table.h"

namespace aclcpu {

const KernelOp* FindKernelOp(const std::string& name) {
  for (const KernelOp& op : KernelOps()) {
    if (name == op.info->case_name || name == op.info->type) return &op;
  }
  return nullptr;
}

bool CheckKernelInputs(const OperatorInfo& op, const kernel::Dims* shapes, const kernel::DType* dtypes,
                       std::string* error) {
  for (int i = 0; i < op.input_count; ++i) {
    bool allowed = false;
    for (int k = 0; k < op.dtype_count; ++k) allowed = allowed || op.dtypes[k] == dtypes[i];
    if (!allowed) {
      *error =
          std::string("the definition does not allow ") + op.operands[i] + " dtype " + kernel::DTypeName(dtypes[i]);
      return false;
    }
  }
  for (int i = 0; i < op.input_count; ++i) {
    if (shapes[i].size() > static_cast<size_t>(kernel::kMaxRank)) {
      *error = std::string("infer shape rejected the case: ") + op.operands[i] + " has " +
               std::to_string(shapes[i].size()) + " dims; at most " + std::to_string(kernel::kMaxRank) +
               " are supported";
      return false;
    }
  }
  return true;
}

bool InferKernelOutput(const OperatorInfo& op, const kernel::Dims* shapes, const kernel::DType* dtypes,
                       const AttrValue* attributes, kernel::Shape* y_shape, kernel::DType* y_dtype,
                       std::string* error) {
  kernel::Shape broadcast;
  std::string why;
  if (op.one_shape) {
    for (int i = 1; i < op.input_count; ++i) {
      if (!kernel::SameDims(shapes[i], shapes[0])) {
        *error = std::string("infer shape rejected the case: ") + op.operands[0] + " " +
                 kernel::ShapeToString(shapes[0]) + " and " + op.operands[i] + " " + kernel::ShapeToString(shapes[i]) +
                 " differ in shape";
        return false;
      }
    }
    broadcast = kernel::Shape(shapes[0].begin(), shapes[0].end());
  } else if (!kernel::BroadcastShapes(shapes, static_cast<size_t>(op.input_count), &broadcast, &why)) {
    *error = "infer shape rejected the case: " + why;
    return false;
  }
  *y_shape = ShapeFor(RuleFor(op.y_shape, attributes), broadcast);
  *y_dtype = dtypes[0];
  return true;
}

bool RunReduceTiling(const kernel::ReduceTiling& tiling, kernel::InnerLoop loop, const kernel::TensorView* operands,
                     int input_count, std::string* error) {
  KernelWorkspace workspace;
  if (!AllocateKernelWorkspace(tiling.workspace_bytes, &workspace, error)) return false;
  const char* data[kernel::kMaxInputs];
  for (int i = 0; i < input_count; ++i) data[i] = operands[i].data;
  kernel::RunReduceOp(tiling, loop, data, operands[input_count].data, workspace.get(), KernelThreadPool());
  return true;
}

}  // namespace aclcpu
