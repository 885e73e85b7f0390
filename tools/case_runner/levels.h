// The two ways a case runs: at the kernel level (CSV) and through the public aclnn API (JSON).
// Each returns the output, or false with *error saying which step rejected the case and why; a
// rejection is the case's result.
#ifndef ACLNN_CPU_TOOLS_CASE_RUNNER_LEVELS_H_
#define ACLNN_CPU_TOOLS_CASE_RUNNER_LEVELS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "case_model.h"
#include "golden/mse_loss_grad_golden.h"

namespace case_runner {

// Inputs in Role order: self (predict), target (label), gradOutput (dout).
using Inputs = golden::Tensor[3];

// A tensor's elements as packed little-endian bytes, and back.
std::vector<char> ToBytes(const golden::Tensor& tensor);
golden::Tensor FromBytes(golden::Dtype dtype, const std::vector<int64_t>& shape, const std::vector<char>& bytes);

// ---- kernel level: definition -> infer shape -> infer dtype -> tiling -> kernel ----

// The case's reduction attribute, or the definition's default when the row gives none.
std::string KernelReduction(const Case& c);
// The golden's (and the aclnn API's) number for a reduction string; false for an unknown string.
bool ReductionNumber(const std::string& reduction, int64_t* number);

bool RunKernelLevel(const Case& c, const Inputs& inputs, golden::Tensor* out, std::string* error);

// ---- API level: as a user program calls aclnnMseLossBackward ----

// aclInit, aclrtSetDevice(0), aclrtCreateStream; and the reverse.
bool StartRuntime(std::string* error);
void StopRuntime();

// out has self's dtype and the broadcast shape.
bool RunApiLevel(const Inputs& inputs, int64_t reduction, golden::Tensor* out, std::string* error);

}  // namespace case_runner

#endif  // ACLNN_CPU_TOOLS_CASE_RUNNER_LEVELS_H_
