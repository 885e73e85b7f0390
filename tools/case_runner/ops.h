// The operators the runner knows, made from the libraries' tables (ops/api_table.h,
// ops/common/op_def/kernel_table.h, golden/golden_op.h), which the operators' declarations
// generate: how the case files name each op, its inputs and its attributes, how it runs at the
// kernel level and through the aclnn API, and its golden. Nothing here names an operator.
#ifndef ACLNN_CPU_TOOLS_CASE_RUNNER_OPS_H_
#define ACLNN_CPU_TOOLS_CASE_RUNNER_OPS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "case_model.h"
#include "golden/golden_op.h"
#include "ops/api_table.h"
#include "ops/common/op_def/kernel_table.h"

namespace case_runner {

using golden::GoldenOutput;
using golden::kUnwrittenByte;

// A contiguous row-major tensor in memory the runner allocated (host memory at the kernel level,
// an aclrtMalloc allocation at the API level).
struct TensorBuffer {
  Dtype dtype = Dtype::kFloat32;
  std::vector<int64_t> shape;
  char* data = nullptr;
};

// The NPU of the SoC the runtime stands for, in the golden's terms.
golden::Npu RuntimeNpu();

// An input as the two formats name it.
struct OperandNames {
  const char* api;     // JSON input name, e.g. "self"
  const char* kernel;  // CSV position name, e.g. "predict"
};

// An operator as the case files name it: an aclnn API (an ATK case's aclnn_name) and, for an
// operator's first API, its kernel (a TTK row's op_name). Every function below takes the inputs in
// the definition's order and the attributes in the declaration's.
struct OpInfo {
  const char* api_name;     // JSON aclnn_name, e.g. "MseLossBackward"
  const char* kernel_name;  // CSV op_name, e.g. "mse_loss_grad"; null for an API without a kernel row
  const char* kernel_type;  // the definition's type, also accepted as op_name: "MseLossGrad"
  std::vector<OperandNames> inputs;
  const aclcpu::OperatorInfo* info;
  const aclcpu::ApiOp* api;
  const aclcpu::KernelOp* kernel;  // null with kernel_name
};

// Every op, in a fixed order.
const std::vector<const OpInfo*>& AllOps();
// The op a CSV op_name or a JSON aclnn_name names; null when none does.
const OpInfo* FindKernelOp(const std::string& op_name);
const OpInfo* FindApiOp(const std::string& aclnn_name);
// For a row or case that does not name its op. The kernel ops that take `count` inputs. The API
// ops that take every tensor in `names` (a name no API takes is left out of the choice), and of
// those the ones with the fewest inputs.
std::vector<const OpInfo*> KernelOpsTaking(size_t count);
std::vector<const OpInfo*> ApiOpsFor(const std::vector<std::string>& names);
// "mse_loss_grad or mse_loss", "MseLossBackward, MseLoss or MseLossOut": for messages. With
// inputs: "mse_loss_grad (predict, label, dout) or mse_loss (predict, label)".
std::string KernelOpNames(bool with_inputs = false);
std::string ApiOpNames(bool with_inputs = false);
// The names of a list of ops, joined the same way.
std::string OpNames(const std::vector<const OpInfo*>& ops, bool api, bool with_inputs = false);
// The declaration of the attribute an op's API passes as its parameter `name` (ATK's name: "beta"
// for SmoothL1LossBackward, whose kernel calls it sigma), or null.
const aclcpu::AttrDeclaration* FindAttribute(const OpInfo& op, const std::string& name);

// A kernel-level case's attributes: the row's, else the declaration's defaults. False with *why
// for a value its type does not have (the infer step refuses those cases).
bool KernelAttributes(const Case& c, std::vector<aclcpu::AttrValue>* values, std::string* why);
// A kernel-level case's checks and infer steps: the definition's checks, its attributes, infer
// shape and dtype (kernel_table.h). The runner compares the row's output_shapes and output_dtypes
// with the result.
bool KernelInfer(const Case& c, std::vector<int64_t>* y_shape, Dtype* y_dtype, std::string* error);
// The kernel on inputs already filled, writing y.
bool KernelRun(const OpInfo& op, const std::vector<aclcpu::AttrValue>& attributes,
               const std::vector<TensorBuffer>& inputs, const TensorBuffer& y, std::string* error);
// The out tensor a user makes for these inputs (when the shapes admit none, some shape for the API
// to refuse).
void ApiOut(const OpInfo& op, const std::vector<TensorSpec>& inputs, const std::vector<aclcpu::AttrValue>& attributes,
            std::vector<int64_t>* shape, Dtype* dtype);
// Whether a row of these attributes whose infer shape is 0-d has its output_shapes set aside
// (ops-nn's tables write the inputs' shape or (1,) there: the declaration's tables_reshape_0d).
bool ZeroDOutputSetAside(const OpInfo& op, const std::vector<aclcpu::AttrValue>& attributes);
// The golden for inputs viewed in place, on the kernel (kernel_level) or the runtime's NPU; null
// with *why when there is none.
std::unique_ptr<GoldenOutput> MakeGolden(const OpInfo& op, bool kernel_level, const std::vector<golden::View>& inputs,
                                         const std::vector<aclcpu::AttrValue>& attributes, Dtype out_dtype,
                                         std::string* why);

}  // namespace case_runner

#endif  // ACLNN_CPU_TOOLS_CASE_RUNNER_OPS_H_
