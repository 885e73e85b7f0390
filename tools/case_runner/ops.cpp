// The op table. Each operator's entry points to its functions in op_<name>.cpp.
#include "ops.h"

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "golden/npu_of_soc.h"
#include "kernel/shape.h"
#include "nnopbase/nnopbase_internal.h"
#include "ops/common/op_graph/op_def.h"
#include "runtime/runtime_internal.h"

namespace case_runner {

extern const OpInfo kMseLossGradOp;  // op_mse_loss_grad.cpp
extern const OpInfo kMseLossOp;      // op_mse_loss.cpp
extern const OpInfo kMseLossOutOp;   // op_mse_loss.cpp
extern const OpInfo kL1LossGradOp;   // op_l1_loss_grad.cpp

const std::vector<const OpInfo*>& AllOps() {
  static const std::vector<const OpInfo*> ops = {&kMseLossGradOp, &kMseLossOp, &kMseLossOutOp, &kL1LossGradOp};
  return ops;
}

const aclcpu::ApiOp& ApiOf(const OpInfo& op) {
  const aclcpu::ApiOp* api = aclcpu::FindApiOp((std::string("aclnn") + op.api_name).c_str());
  if (api == nullptr) throw std::logic_error(std::string("no aclnn") + op.api_name + " in the API table");
  return *api;
}

golden::Npu RuntimeNpu() {
  const aclcpu::SocProfile* profile = aclcpu::CurrentSocProfile();
  return profile != nullptr ? golden::NpuOf(*profile) : golden::Npu{};
}

bool KernelInfer(const Case& c, std::vector<int64_t>* y_shape, Dtype* y_dtype, std::string* error) {
  const aclcpu::OpDefinition& definition = c.op->definition();
  for (const TensorSpec& input : c.inputs) {
    if (std::find(definition.dtypes.begin(), definition.dtypes.end(), input.dtype) == definition.dtypes.end()) {
      *error = "the definition does not allow " + input.name + " dtype " + aclcpu::kernel::DTypeName(input.dtype);
      return false;
    }
  }
  for (const TensorSpec& input : c.inputs) {
    if (input.shape.size() > static_cast<size_t>(aclcpu::kernel::kMaxRank)) {
      *error = "infer shape rejected the case: " + input.name + " has " + std::to_string(input.shape.size()) +
               " dims; at most " + std::to_string(aclcpu::kernel::kMaxRank) + " are supported";
      return false;
    }
  }
  int64_t attribute = 0;
  std::string why;
  if (!KernelAttributeNumber(c, &attribute, &why)) {
    *error = "infer shape rejected the case: " + why;
    return false;
  }
  return c.op->kernel_infer(c, attribute, y_shape, y_dtype, error);
}

std::string KernelAttribute(const Case& c) {
  const std::vector<aclcpu::AttrDefinition>& attributes = c.op->definition().attributes;
  if (c.has_attribute) return c.attribute;
  return attributes.empty() ? std::string() : attributes.front().default_value;
}

bool KernelAttributeNumber(const Case& c, int64_t* number, std::string* why) {
  if (c.op->definition().attributes.empty()) {  // an operator without attributes: 0 reaches its functions
    *number = 0;
    return true;
  }
  const aclcpu::AttrDefinition& definition = c.op->definition().attributes.front();
  const std::string text = KernelAttribute(c);
  const auto found = std::find(definition.values.begin(), definition.values.end(), text);
  if (found != definition.values.end()) {
    *number = found - definition.values.begin();
    return true;
  }
  std::string expected;
  for (size_t i = 0; i < definition.values.size(); ++i) {
    expected += (i == 0 ? "" : (i + 1 == definition.values.size() ? " or " : ", ")) + definition.values[i];
  }
  *why = definition.name + " \"" + text + "\" is invalid; expected " + expected;
  return false;
}

const std::string& KernelAttributeName(const OpInfo& op) {
  static const std::string none;
  const std::vector<aclcpu::AttrDefinition>& attributes = op.definition().attributes;
  return attributes.empty() ? none : attributes.front().name;
}

const OpInfo* FindKernelOp(const std::string& op_name) {
  for (const OpInfo* op : AllOps()) {
    if (op->kernel_name != nullptr && (op_name == op->kernel_name || op_name == op->kernel_type)) return op;
  }
  return nullptr;
}

const OpInfo* FindApiOp(const std::string& aclnn_name) {
  // ATK's lists name the API with or without its aclnn prefix ("aclnnLogit" or "Logit"), and TTK's
  // aclnn-level tables with it: both spellings name the same operator.
  const std::string prefix = "aclnn";
  const bool prefixed = aclnn_name.size() > prefix.size() && aclnn_name.compare(0, prefix.size(), prefix) == 0;
  const std::string name = prefixed ? aclnn_name.substr(prefix.size()) : aclnn_name;
  for (const OpInfo* op : AllOps()) {
    if (op->api_name != nullptr && name == op->api_name) return op;
  }
  return nullptr;
}

std::vector<const OpInfo*> KernelOpsTaking(size_t count) {
  std::vector<const OpInfo*> ops;
  for (const OpInfo* op : AllOps()) {
    if (op->kernel_name != nullptr && op->inputs.size() == count) ops.push_back(op);
  }
  return ops;
}

namespace {

bool TakesTensor(const OpInfo& op, const std::string& name) {
  for (const OperandNames& input : op.inputs) {
    if (name == input.api) return true;
  }
  return false;
}

}  // namespace

std::vector<const OpInfo*> ApiOpsFor(const std::vector<std::string>& names) {
  std::vector<const OpInfo*> apis, fit;
  for (const OpInfo* op : AllOps()) {
    if (op->api_name != nullptr) apis.push_back(op);
  }
  for (const OpInfo* op : apis) {
    bool takes_all = true;
    for (const std::string& name : names) {
      // A name no API takes does not choose between them (reading the case reports it).
      const bool known =
          std::any_of(apis.begin(), apis.end(), [&](const OpInfo* api) { return TakesTensor(*api, name); });
      takes_all = takes_all && (!known || TakesTensor(*op, name));
    }
    if (takes_all) fit.push_back(op);
  }
  size_t fewest = SIZE_MAX;
  for (const OpInfo* op : fit) fewest = std::min(fewest, op->inputs.size());
  std::vector<const OpInfo*> smallest;
  for (const OpInfo* op : fit) {
    if (op->inputs.size() == fewest) smallest.push_back(op);
  }
  return smallest;
}

std::string OpNames(const std::vector<const OpInfo*>& ops, bool api, bool with_inputs) {
  std::string text;
  for (size_t i = 0; i < ops.size(); ++i) {
    text += i == 0 ? "" : (i + 1 == ops.size() ? " or " : ", ");
    text += api ? ops[i]->api_name : ops[i]->kernel_name;
    if (!with_inputs) continue;
    text += " (";
    for (size_t k = 0; k < ops[i]->inputs.size(); ++k) {
      text += (k == 0 ? "" : ", ") + std::string(api ? ops[i]->inputs[k].api : ops[i]->inputs[k].kernel);
    }
    text += ")";
  }
  return text;
}

namespace {

std::vector<const OpInfo*> OpsOfLevel(bool api) {
  std::vector<const OpInfo*> ops;
  for (const OpInfo* op : AllOps()) {
    if ((api ? op->api_name : op->kernel_name) != nullptr) ops.push_back(op);
  }
  return ops;
}

}  // namespace

std::string KernelOpNames(bool with_inputs) { return OpNames(OpsOfLevel(false), false, with_inputs); }
std::string ApiOpNames(bool with_inputs) { return OpNames(OpsOfLevel(true), true, with_inputs); }

aclcpu::kernel::TensorView KernelView(const TensorBuffer& buffer, aclcpu::kernel::Shape* strides) {
  *strides = aclcpu::kernel::ContiguousStrides(buffer.shape);
  return aclcpu::kernel::TensorView{buffer.dtype, buffer.shape, *strides, buffer.data};
}

aclcpu::kernel::Platform KernelPlatform() {
  const aclcpu::PlatformFacts& platform = aclcpu::HostPlatform();
  return aclcpu::kernel::Platform{aclcpu::KernelThreadCount(), platform.l2_bytes, platform.llc_bytes};
}

bool RunElementwiseKernel(const std::vector<TensorBuffer>& inputs, const TensorBuffer& y, int64_t attribute,
                          ElementwiseTilingFn tiling,
                          aclcpu::kernel::InnerLoop (*select)(const aclcpu::kernel::ElementwiseKey& key),
                          std::string* error) {
  aclcpu::kernel::ElementwiseOpInput input;
  const int count = static_cast<int>(inputs.size());
  const char* data[aclcpu::kernel::kMaxInputs];
  aclcpu::kernel::Shape strides[aclcpu::kernel::kMaxOperands];
  for (int i = 0; i < count; ++i) {
    input.operands[i] = KernelView(inputs[i], &strides[i]);
    data[i] = inputs[i].data;
  }
  input.operands[count] = KernelView(y, &strides[count]);
  input.store_dtype = y.dtype;
  input.platform = KernelPlatform();
  aclcpu::kernel::ElementwiseTiling plan;
  std::string why;
  if (!tiling(&input, attribute, &plan, &why)) {
    *error = "tiling rejected the case: " + why;
    return false;
  }
  aclcpu::kernel::RunElementwiseOp(plan, select(plan.key), data, y.data, aclcpu::KernelThreadPool());
  return true;
}

namespace {

class ElementwiseGolden final : public GoldenOutput {
 public:
  ElementwiseGolden(Dtype dtype, std::vector<int64_t> shape, std::function<void(int64_t, int64_t, uint32_t*)> compute)
      : GoldenOutput(dtype, std::move(shape)), compute_(std::move(compute)) {}
  void Compute(int64_t begin, int64_t end, uint32_t* bits) const override { compute_(begin, end, bits); }

 private:
  std::function<void(int64_t, int64_t, uint32_t*)> compute_;
};

}  // namespace

std::unique_ptr<GoldenOutput> MakeElementwiseGolden(Dtype out_dtype, std::vector<int64_t> shape,
                                                    std::function<void(int64_t, int64_t, uint32_t*)> compute) {
  return std::make_unique<ElementwiseGolden>(out_dtype, std::move(shape), std::move(compute));
}

}  // namespace case_runner
