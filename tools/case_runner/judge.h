// Judging an output against the golden, in pieces: bit-exact (CASES.md §3), or within a
// tolerance for outputs produced elsewhere (an NPU dump). Each piece gives a Verdict; verdicts of
// consecutive pieces merge, so the outcome does not depend on how the output was split.
#ifndef ACLNN_CPU_TOOLS_CASE_RUNNER_JUDGE_H_
#define ACLNN_CPU_TOOLS_CASE_RUNNER_JUDGE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "case_model.h"

namespace case_runner {

std::string ShapeText(const std::vector<int64_t>& shape);  // "[32, 8]", "[]"
// "1.5 (0x3fc00000)": the value and its bits.
std::string ValueText(Dtype dtype, uint32_t bits);

struct PieceVerdict {
  int64_t elements = 0;
  int64_t bad = 0;         // exact: mismatches; tolerance: elements over the threshold
  int64_t first_bad = -1;  // its index in the whole output
  uint32_t expected_bits = 0, actual_bits = 0;
};

// The piece of elements starting at output index `first`. Exact: bits equal, any NaN matching any
// NaN. Tolerance: actual may have another dtype (e.g. float32 values for a bf16 output); NaN must
// meet NaN and an infinity the same infinity.
PieceVerdict JudgeExact(Dtype dtype, const uint32_t* expected, const uint32_t* actual, int64_t count, int64_t first);
PieceVerdict JudgeTolerance(Dtype expected_dtype, const uint32_t* expected, Dtype actual_dtype, const uint32_t* actual,
                            int64_t count, int64_t first, const Tolerance& tolerance);

// Merges the verdict of a later piece into *total.
void Merge(const PieceVerdict& piece, PieceVerdict* total);

// "" when the output passes; otherwise what is wrong, with the first bad index.
std::string ExactProblem(Dtype dtype, const PieceVerdict& verdict);
std::string ToleranceProblem(Dtype expected_dtype, Dtype actual_dtype, const PieceVerdict& verdict,
                             const Tolerance& tolerance);

}  // namespace case_runner

#endif  // ACLNN_CPU_TOOLS_CASE_RUNNER_JUDGE_H_
