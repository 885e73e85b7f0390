// Judging an output against the golden: bit-exact (CASES.md §3), or within a tolerance for
// outputs produced elsewhere (an NPU dump).
#ifndef ACLNN_CPU_TOOLS_CASE_RUNNER_JUDGE_H_
#define ACLNN_CPU_TOOLS_CASE_RUNNER_JUDGE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "golden/mse_loss_grad_golden.h"

namespace case_runner {

std::string ShapeText(const std::vector<int64_t>& shape);  // "[32, 8]", "[]"
// "1.5 (0x3fc00000)": the value and its bits.
std::string ValueText(golden::Dtype dtype, uint32_t bits);

// "" when actual has expected's dtype and shape and every element's bits (any NaN matches any NaN);
// otherwise what differs, with the first mismatching index.
std::string CompareExact(const golden::Tensor& expected, const golden::Tensor& actual);

struct Tolerance {
  // Relative error |a - e| / max(|e|, smallest normal of the dtype) allowed per element, by the
  // expected output's dtype.
  double fp32 = 1e-4, fp16 = 1e-3, bf16 = 4e-3;
  double max_share = 0.001;  // a case fails when more than this share of its elements is over
};

// "" when at most max_share of the elements are over their threshold. NaN must meet NaN and an
// infinity the same infinity; actual may have another dtype (e.g. float32 values for bf16).
std::string CompareTolerance(const golden::Tensor& expected, const golden::Tensor& actual, const Tolerance& tolerance);

}  // namespace case_runner

#endif  // ACLNN_CPU_TOOLS_CASE_RUNNER_JUDGE_H_
