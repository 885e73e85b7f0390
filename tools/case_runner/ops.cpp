// The op table, made once from the libraries' tables.
#include "ops.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <stdexcept>

#include "golden/npu_of_soc.h"
#include "kernel/shape.h"
#include "runtime/runtime_internal.h"

namespace case_runner {
namespace {

// Owned here for the process's life (a pointer to each is what the rest hands around).
std::vector<std::unique_ptr<OpInfo>> MakeOps() {
  std::vector<std::unique_ptr<OpInfo>> ops;
  for (const aclcpu::ApiOp* api : aclcpu::ApiOps()) {
    const aclcpu::OperatorInfo& info = *api->op;
    // The operator's first API is the one its kernel rows stand beside (its others run the same
    // kernel, and TTK has no rows of theirs).
    const bool first =
        std::none_of(ops.begin(), ops.end(), [&](const std::unique_ptr<OpInfo>& op) { return op->info == &info; });
    const aclcpu::KernelOp* kernel = first ? aclcpu::FindKernelOp(info.case_name) : nullptr;
    auto op = std::make_unique<OpInfo>(OpInfo{api->case_name,
                                              kernel != nullptr ? info.case_name : nullptr,
                                              kernel != nullptr ? info.type : nullptr,
                                              {},
                                              &info,
                                              api,
                                              kernel});
    for (int i = 0; i < info.input_count; ++i) {
      const int param = api->param_of(aclcpu::ParamKind::kInput, i);
      op->inputs.push_back({param >= 0 ? api->params[param].atk : info.operands[i], info.operands[i]});
    }
    ops.push_back(std::move(op));
  }
  return ops;
}

bool TakesTensor(const OpInfo& op, const std::string& name) {
  for (const OperandNames& input : op.inputs) {
    if (name == input.api) return true;
  }
  return false;
}

std::vector<const OpInfo*> OpsOfLevel(bool api) {
  std::vector<const OpInfo*> ops;
  for (const OpInfo* op : AllOps()) {
    if ((api ? op->api_name : op->kernel_name) != nullptr) ops.push_back(op);
  }
  return ops;
}

}  // namespace

const std::vector<const OpInfo*>& AllOps() {
  static const std::vector<std::unique_ptr<OpInfo>> owned = MakeOps();
  static const std::vector<const OpInfo*> ops = [] {
    std::vector<const OpInfo*> pointers;
    for (const std::unique_ptr<OpInfo>& op : owned) pointers.push_back(op.get());
    return pointers;
  }();
  return ops;
}

golden::Npu RuntimeNpu() {
  const aclcpu::SocProfile* profile = aclcpu::CurrentSocProfile();
  return profile != nullptr ? golden::NpuOf(*profile) : golden::Npu{};
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
    if (name == op->api_name) return op;
  }
  return nullptr;
}

std::vector<const OpInfo*> KernelOpsTaking(size_t count) {
  std::vector<const OpInfo*> ops;
  for (const OpInfo* op : OpsOfLevel(false)) {
    if (op->inputs.size() == count) ops.push_back(op);
  }
  return ops;
}

std::vector<const OpInfo*> ApiOpsFor(const std::vector<std::string>& names) {
  const std::vector<const OpInfo*> apis = OpsOfLevel(true);
  std::vector<const OpInfo*> fit;
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

std::string KernelOpNames(bool with_inputs) { return OpNames(OpsOfLevel(false), false, with_inputs); }
std::string ApiOpNames(bool with_inputs) { return OpNames(OpsOfLevel(true), true, with_inputs); }

const aclcpu::AttrDeclaration* FindAttribute(const OpInfo& op, const std::string& name) {
  for (int p = 0; p < op.api->param_count; ++p) {
    const aclcpu::ApiParam& param = op.api->params[p];
    if (param.kind == aclcpu::ParamKind::kAttribute && name == param.atk) return &op.info->attributes[param.index];
  }
  return nullptr;
}

bool KernelAttributes(const Case& c, std::vector<aclcpu::AttrValue>* values, std::string* why) {
  const aclcpu::OperatorInfo& info = *c.op->info;
  values->clear();
  for (int i = 0; i < info.attribute_count; ++i) {
    const aclcpu::AttrDeclaration& attribute = info.attributes[i];
    aclcpu::AttrValue value = attribute.default_value;
    const auto given = c.attributes.find(attribute.name);
    if (given != c.attributes.end() && !aclcpu::ParseAttrText(attribute, given->second, &value, why)) return false;
    values->push_back(value);
  }
  return true;
}

bool KernelInfer(const Case& c, std::vector<int64_t>* y_shape, Dtype* y_dtype, std::string* error) {
  std::vector<aclcpu::kernel::Dims> shapes;
  std::vector<Dtype> dtypes;
  for (const TensorSpec& input : c.inputs) {
    shapes.emplace_back(input.shape);
    dtypes.push_back(input.dtype);
  }
  const aclcpu::OperatorInfo& info = *c.op->info;
  if (!aclcpu::CheckKernelInputs(info, shapes.data(), dtypes.data(), error)) return false;
  std::vector<aclcpu::AttrValue> attributes;
  std::string why;
  if (!KernelAttributes(c, &attributes, &why)) {
    *error = "infer shape rejected the case: " + why;
    return false;
  }
  aclcpu::kernel::Shape y;
  if (!aclcpu::InferKernelOutput(info, shapes.data(), dtypes.data(), attributes.data(), &y, y_dtype, error)) {
    return false;
  }
  *y_shape = y;
  return true;
}

bool KernelRun(const OpInfo& op, const std::vector<aclcpu::AttrValue>& attributes,
               const std::vector<TensorBuffer>& inputs, const TensorBuffer& y, std::string* error) {
  std::vector<aclcpu::kernel::Shape> strides(inputs.size() + 1);
  std::vector<aclcpu::kernel::TensorView> operands;
  const auto view = [&](const TensorBuffer& buffer, aclcpu::kernel::Shape* buffer_strides) {
    *buffer_strides = aclcpu::kernel::ContiguousStrides(buffer.shape);
    return aclcpu::kernel::TensorView{buffer.dtype, buffer.shape, *buffer_strides, buffer.data};
  };
  for (size_t i = 0; i < inputs.size(); ++i) operands.push_back(view(inputs[i], &strides[i]));
  operands.push_back(view(y, &strides[inputs.size()]));
  return op.kernel->run(operands.data(), attributes.data(), error);
}

void ApiOut(const OpInfo& op, const std::vector<TensorSpec>& inputs, const std::vector<aclcpu::AttrValue>& attributes,
            std::vector<int64_t>* shape, Dtype* dtype) {
  // Parameter i's shape and dtype, from the input it passes.
  const aclcpu::ApiOp& api = *op.api;
  std::vector<aclcpu::kernel::Dims> shapes(static_cast<size_t>(api.param_count));
  std::vector<aclDataType> dtypes(static_cast<size_t>(api.param_count), ACL_DT_UNDEFINED);
  for (int i = 0; i < api.param_count; ++i) {
    if (api.params[i].kind != aclcpu::ParamKind::kInput) continue;
    const TensorSpec& input = inputs[static_cast<size_t>(api.params[i].index)];
    if (input.absent) continue;  // no shape or dtype of its own
    shapes[static_cast<size_t>(i)] = aclcpu::kernel::Dims(input.shape);
    dtypes[static_cast<size_t>(i)] = static_cast<aclDataType>(aclcpu::kernel::Traits(input.dtype).acl);
  }
  aclcpu::kernel::Shape out;
  aclcpu::NewOutShape(api, shapes.data(), attributes.data(), &out);  // (no broadcast: for the API to refuse)
  *shape = out;
  aclcpu::kernel::DType out_dtype = aclcpu::kernel::DType::kFloat32;
  aclcpu::kernel::DTypeFromAcl(aclcpu::NewOutDtype(api, dtypes.data()), &out_dtype);
  *dtype = out_dtype;
}

bool ZeroDOutputSetAside(const OpInfo& op, const std::vector<aclcpu::AttrValue>& attributes) {
  const int by = op.info->reshape_0d_by;
  if (by < 0 || by >= static_cast<int>(attributes.size())) return false;
  const int64_t value = attributes[static_cast<size_t>(by)].integer;
  return value >= 0 && value < 32 && ((op.info->reshape_0d_values >> value) & 1u) != 0;
}

std::unique_ptr<GoldenOutput> MakeGolden(const OpInfo& op, bool kernel_level, const std::vector<golden::View>& inputs,
                                         const std::vector<aclcpu::AttrValue>& attributes, Dtype out_dtype,
                                         std::string* why) {
  golden::Call call;
  call.api = kernel_level ? nullptr : op.api_name;
  call.npu = RuntimeNpu();
  call.kernel_level = kernel_level;
  call.inputs = inputs;  // the runner makes ND tensors, of one format
  call.attributes = attributes;
  call.out_dtype = out_dtype;
  return golden::MakeGolden(op.info->case_name, std::move(call), why);
}

}  // namespace case_runner
