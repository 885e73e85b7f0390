// The op table. Each operator's entry points to its functions in op_<name>.cpp.
#include "ops.h"

#include "ops/loss/common/loss_reduction.h"

namespace case_runner {

extern const OpInfo kMseLossGradOp;  // op_mse_loss_grad.cpp

const std::vector<const OpInfo*>& AllOps() {
  static const std::vector<const OpInfo*> ops = {&kMseLossGradOp};
  return ops;
}

const OpInfo* FindKernelOp(const std::string& op_name) {
  for (const OpInfo* op : AllOps()) {
    if (op->kernel_name != nullptr && (op_name == op->kernel_name || op_name == op->kernel_type)) return op;
  }
  return nullptr;
}

const OpInfo* FindApiOp(const std::string& aclnn_name) {
  for (const OpInfo* op : AllOps()) {
    if (op->api_name != nullptr && aclnn_name == op->api_name) return op;
  }
  return nullptr;
}

namespace {

std::string JoinNames(bool api) {
  std::vector<std::string> names;
  for (const OpInfo* op : AllOps()) {
    const char* name = api ? op->api_name : op->kernel_name;
    if (name != nullptr) names.push_back(name);
  }
  std::string text;
  for (size_t i = 0; i < names.size(); ++i) {
    text += (i == 0 ? "" : (i + 1 == names.size() ? " or " : ", ")) + names[i];
  }
  return text;
}

}  // namespace

std::string KernelOpNames() { return JoinNames(false); }
std::string ApiOpNames() { return JoinNames(true); }

bool ReductionNumber(const std::string& reduction, int64_t* number) {
  aclcpu::loss::Reduction value;
  if (!aclcpu::loss::ReductionFromName(reduction, &value)) return false;
  *number = static_cast<int64_t>(value);
  return true;
}

}  // namespace case_runner
