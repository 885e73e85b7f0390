// The operators the runner knows, one table entry each: how the case files name the op and its
// inputs, how it runs at the kernel level and through the aclnn API, and its golden. The readers,
// the generator, the judging and the scheduler know no operator; a new op is one entry here.
#ifndef ACLNN_CPU_TOOLS_CASE_RUNNER_OPS_H_
#define ACLNN_CPU_TOOLS_CASE_RUNNER_OPS_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"
#include "case_model.h"
#include "golden/golden_common.h"
#include "kernel/elementwise_op.h"
#include "kernel/schedule.h"
#include "kernel/tensor_view.h"
#include "ops/api_table.h"

namespace aclcpu {
struct OpDefinition;  // ops/common/op_graph/op_def.h
}  // namespace aclcpu

namespace case_runner {

// A contiguous row-major tensor in memory the runner allocated (host memory at the kernel level,
// an aclrtMalloc allocation at the API level).
struct TensorBuffer {
  Dtype dtype = Dtype::kFloat32;
  std::vector<int64_t> shape;
  char* data = nullptr;
};

// What an output holds before the op writes it: a finite value in every dtype (0x5a5a5a5a as
// float32, 0x5a5a as float16 and bfloat16), so that an element left unwritten is a mismatch, and
// an op that writes nothing can be judged by expecting it.
constexpr int kUnwrittenByte = 0x5a;

// The expected output of one run, computed in pieces so that no full copy of it is ever held.
class GoldenOutput {
 public:
  virtual ~GoldenOutput() = default;
  Dtype dtype() const { return dtype_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  // Work before Compute (a reduction's partial sums), in parts that may run concurrently.
  virtual int64_t PrepareParts() const { return 0; }
  virtual void Prepare(int64_t /*part*/) {}
  // Output elements [begin, end), row-major, as raw bits; after every Prepare part. Thread-safe.
  virtual void Compute(int64_t begin, int64_t end, uint32_t* bits) const = 0;

 protected:
  GoldenOutput(Dtype dtype, std::vector<int64_t> shape) : dtype_(dtype), shape_(std::move(shape)) {}
  void set_shape(std::vector<int64_t> shape) { shape_ = std::move(shape); }

 private:
  Dtype dtype_;
  std::vector<int64_t> shape_;
};

// Whose numbers a golden gives: the kernel's own (a CSV row runs the kernel as the graph drives it),
// or the aclnn API's on the NPU the runtime stands for (ACLNN_CPU_SOC_NAME, --soc), whose l0 layer
// picks the kernel and so its order and constants.
struct GoldenTarget {
  bool kernel_level = false;
  golden::Npu npu;
};
// The NPU of the SoC the runtime stands for, in the golden's terms.
golden::Npu RuntimeNpu();

// An input as the two formats name it.
struct OperandNames {
  const char* api;     // JSON input name, e.g. "self"
  const char* kernel;  // CSV position name, e.g. "predict"
};

struct OpInfo {
  const char* api_name;     // JSON aclnn_name, e.g. "MseLossBackward"
  const char* kernel_name;  // CSV op_name, e.g. "mse_loss_grad"; null for an API without a kernel row
  const char* kernel_type;  // the definition's type, also accepted as op_name: "MseLossGrad"
  // In this order in Case::inputs and in every function below. The CSV lists them in this order;
  // the JSON by name.
  std::vector<OperandNames> inputs;
  // Whether a row of this attribute value whose infer shape is 0-d has its output_shapes set aside:
  // ops-nn's tables write the inputs' shape or (1,) there for the loss family's mean and sum rows.
  // Null: never.
  bool (*zero_d_output_set_aside)(int64_t attribute);

  // Kernel level (null when kernel_name is). The definition: the dtypes its inputs allow, the
  // attribute's name and default -- what the CSV reader and KernelInfer take from it. Infer: infer
  // shape and infer dtype on a case whose dtypes and ranks the definition admits (false with
  // *error naming the step). Run: tiling and kernel on inputs already filled, writing y.
  const aclcpu::OpDefinition& (*definition)();
  bool (*kernel_infer)(const Case& c, int64_t attribute, std::vector<int64_t>* y_shape, Dtype* y_dtype,
                       std::string* error);
  bool (*kernel_run)(const Case& c, int64_t attribute, const std::vector<TensorBuffer>& inputs, const TensorBuffer& y,
                     std::string* error);

  // API level (its phases, parameters and attribute: ApiOf): the out tensor a user creates for
  // these inputs (when the shapes admit none, some shape for the API to reject).
  void (*api_out)(const std::vector<TensorSpec>& inputs, int64_t attribute, std::vector<int64_t>* shape, Dtype* dtype);

  // The golden for inputs viewed in place; the attribute numbered as the aclnn API numbers it.
  // Null with *why when there is none (shapes that do not broadcast, a value the API refuses).
  std::unique_ptr<GoldenOutput> (*golden)(const std::vector<golden::View>& inputs, int64_t attribute, Dtype out_dtype,
                                          const GoldenTarget& target, std::string* why);
};

// The API an op's JSON cases call: "aclnn" + api_name in the libraries' table (ops/api_table.h).
// Its integer attribute (JSON cases name it; "reduction") reaches every function above as
// `attribute`; at the kernel level that is the definition's first string attribute, numbered by
// its position in the definition's values (KernelAttributeNumber).
const aclcpu::ApiOp& ApiOf(const OpInfo& op);

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

// A kernel-level case's checks and infer steps: the definition's dtypes, the engine's rank limit,
// then the op's kernel_infer. The runner compares the row's output_shapes and output_dtypes with
// the result.
bool KernelInfer(const Case& c, std::vector<int64_t>* y_shape, Dtype* y_dtype, std::string* error);
// A kernel-level case's attribute: the row's, else the definition's default.
std::string KernelAttribute(const Case& c);
// Its number: its position in the definition's values, which the definition lists in the order of
// the API's numbers (reduction: none 0, mean 1, sum 2). False, with *why, for a value the
// definition does not list (KernelInfer refuses those cases).
bool KernelAttributeNumber(const Case& c, int64_t* number, std::string* why);
// The name of the attribute a kernel op's rows set ("reduction"): its definition's first; empty
// for an operator without one.
const std::string& KernelAttributeName(const OpInfo& op);

// What an elementwise operator's entry shares (kernel/elementwise_op.h): its kernel-level run on
// inputs in its definition's order (Case::inputs' order) -- tiling(input, attribute, data, why),
// the operator's ComputeTiling on the attribute's number, and select, its SelectKernel -- and its
// golden, computed by compute(begin, end, bits) over an output of out_dtype and shape.
using ElementwiseTilingFn = bool (*)(aclcpu::kernel::ElementwiseOpInput* input, int64_t attribute,
                                     aclcpu::kernel::ElementwiseTiling* data, std::string* why);
bool RunElementwiseKernel(const std::vector<TensorBuffer>& inputs, const TensorBuffer& y, int64_t attribute,
                          ElementwiseTilingFn tiling,
                          aclcpu::kernel::InnerLoop (*select)(const aclcpu::kernel::ElementwiseKey& key),
                          std::string* error);
std::unique_ptr<GoldenOutput> MakeElementwiseGolden(Dtype out_dtype, std::vector<int64_t> shape,
                                                    std::function<void(int64_t, int64_t, uint32_t*)> compute);

// A runner's buffer as the layers below the aclnn API see a tensor (contiguous, row-major): its
// shape read in place, its strides written to *strides (the view reads both: they outlive it).
aclcpu::kernel::TensorView KernelView(const TensorBuffer& buffer, aclcpu::kernel::Shape* strides);
// The host as a kernel-level case is tiled for: as the aclnn layer tiles (threads, caches).
aclcpu::kernel::Platform KernelPlatform();

}  // namespace case_runner

#endif  // ACLNN_CPU_TOOLS_CASE_RUNNER_OPS_H_
