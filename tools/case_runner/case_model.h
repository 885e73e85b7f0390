// One test case as read from either case-file format (CASES.md), before anything runs it.
#ifndef ACLNN_CPU_TOOLS_CASE_RUNNER_CASE_MODEL_H_
#define ACLNN_CPU_TOOLS_CASE_RUNNER_CASE_MODEL_H_

#include <cstdint>
#include <string>
#include <vector>

namespace case_runner {

enum class Dtype { kFloat32, kFloat16, kBFloat16 };

// How a tensor's values are drawn.
struct ValueRange {
  enum class Kind { kUniform, kZeros, kNan, kPosInf, kNegInf, kMixedInf };
  Kind kind = Kind::kUniform;
  double lo = -10.0, hi = 10.0;  // kUniform only
};

// The range of a CSV case whose input_data_ranges is empty.
constexpr double kDefaultLo = -10.0;
constexpr double kDefaultHi = 10.0;

// Larger tensors are refused when read, so a typo in a shape cannot exhaust memory.
constexpr int64_t kMaxElements = int64_t{1} << 28;
// More runs of one integer-attribute range are refused when read.
constexpr int64_t kMaxRangeRuns = 256;

struct TensorSpec {
  std::string name;  // as the file calls it: predict/label/dout or self/target/gradOutput
  Dtype dtype = Dtype::kFloat32;
  std::vector<int64_t> shape;  // {} is a 0-d tensor
  ValueRange range;
};

// The three inputs in one order for both formats: self (predict), target (label), gradOutput (dout).
enum Role { kSelf = 0, kTarget = 1, kGrad = 2 };

struct Case {
  enum class Level { kKernel, kApi };  // CSV rows run at the kernel level, JSON cases through the API
  Level level = Level::kKernel;
  std::string name;
  std::string where;  // "FILE line N" (CSV) or "FILE case id X" (JSON), for reports
  std::string error;  // non-empty: the case is unreadable; names the field
  bool enabled = true;
  TensorSpec inputs[3];

  // Kernel level: the string attribute (when absent: the definition's default), and the expected
  // output from the table (checked against infer shape / infer dtype when present).
  bool has_reduction = false;
  std::string reduction;
  bool has_output_shape = false, has_output_dtype = false;
  std::vector<int64_t> output_shape;
  Dtype output_dtype = Dtype::kFloat32;

  // API level: the integer reduction values to run, and whether they came from a [lo, hi] range
  // (then every run is reported as name[reduction=k]).
  std::vector<int64_t> reductions;
  bool reduction_is_range = false;
};

const char* DtypeName(Dtype dtype);  // "float32", "float16", "bfloat16"

}  // namespace case_runner

#endif  // ACLNN_CPU_TOOLS_CASE_RUNNER_CASE_MODEL_H_
