// One test case as read from either case-file format (docs/case-runner.md), before anything runs it.
#ifndef ACLNN_CPU_TOOLS_CASE_RUNNER_CASE_MODEL_H_
#define ACLNN_CPU_TOOLS_CASE_RUNNER_CASE_MODEL_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "kernel/dtype.h"
#include "ops/common/op_def/attr_value.h"

namespace case_runner {

using Dtype = aclcpu::kernel::DType;

struct OpInfo;  // ops.h

// How a tensor's values are drawn. Uniform in [lo, hi], with the specials (if any) mixed in at
// kSpecialShare of the elements; or, without a range, every element one of the specials.
struct ValueRange {
  bool uniform = true;
  double lo = -2.0, hi = 2.0;
  std::vector<float> specials;  // e.g. 0, -0, inf, -inf, nan
};

// The range of a CSV input that input_data_ranges leaves open: an empty field, a None end, a
// padded entry. TTK's (hicann/ops-test-kit ttk/utilities/data.py, DEFAULT_LOW and DEFAULT_HIGH,
// which RandomData._replace_none_in_data_range puts in place of None).
constexpr double kDefaultLo = -2.0;
constexpr double kDefaultHi = 2.0;
// The share of the elements of a uniform range that take one of its special values instead.
constexpr double kSpecialShare = 0.125;
// More runs of one integer-attribute range are refused when read.
constexpr int64_t kMaxRangeRuns = 256;

struct TensorSpec {
  std::string name;  // as the file calls it: predict/label/dout or self/target/gradOutput
  Dtype dtype = Dtype::kFloat32;
  std::vector<int64_t> shape;  // {} is a 0-d tensor
  ValueRange range;
  // An optional input the case leaves out (a TTK row's None): the op reads ones in its place (0-d,
  // of the first input's dtype, at the kernel level; null at the API level).
  bool absent = false;
};

// The legacy tolerance columns of a CSV row -- precision_tolerances ((rtol, ptol),) and
// absolute_precision (atol) -- or the command line's --rtol, --rtol-share and --atol. Each method
// reads the ones its tool reads (judge.cpp); an absent field takes the method's default.
struct Tolerances {
  std::optional<double> rtol, ptol, atol;
  // These, with each field the other gives replacing this one's.
  Tolerances OverriddenBy(const Tolerances& other) const {
    Tolerances merged = *this;
    if (other.rtol) merged.rtol = other.rtol;
    if (other.ptol) merged.ptol = other.ptol;
    if (other.atol) merged.atol = other.atol;
    return merged;
  }
};

struct Case {
  enum class Level { kKernel, kApi };  // CSV rows run at the kernel level, JSON cases through the API
  Level level = Level::kKernel;
  const OpInfo* op = nullptr;  // set once the op field was read
  std::string name;            // testcase_name (CSV) or name (JSON)
  bool has_id = false;         // JSON: cases are told apart by (name, id)
  int64_t id = 0;
  std::string where;  // "FILE line N" (CSV) or "FILE case id X at line N" (JSON), for reports
  std::string file;   // the file it came from (JUnit groups by it)
  std::string error;  // non-empty: the case is unreadable; names the field
  bool enabled = true;
  std::vector<TensorSpec> inputs;  // in the order of op->inputs

  // Kernel level: the row's attributes the declaration has, as text (a name, a number, true or
  // false; the absent ones take their defaults), and the expected output from the table (checked
  // against infer shape / infer dtype when present).
  std::map<std::string, std::string> attributes;
  bool has_output_shape = false, has_output_dtype = false;
  std::vector<int64_t> output_shape;
  Dtype output_dtype = Dtype::kFloat32;
  Tolerances tolerances;  // compare mode's: precision_tolerances and absolute_precision
  // precision_tolerances or absolute_precision could not be read: compare mode reports the row
  // unreadable (a self-run does not read the columns).
  std::string compare_error;

  // API level: the runs, each with the attributes' values in the declaration's order. An integer
  // attribute given as a [lo, hi] range has one run per value, reported as
  // name#id[<attribute>=k] (suffix "[<attribute>=k]").
  struct ApiRun {
    std::vector<aclcpu::AttrValue> attributes;
    std::string suffix;
  };
  std::vector<ApiRun> api_runs;

  // How reports name the case: "name#id" for JSON cases, the testcase_name for CSV rows.
  std::string Label() const { return has_id ? name + "#" + std::to_string(id) : name; }
};

}  // namespace case_runner

#endif  // ACLNN_CPU_TOOLS_CASE_RUNNER_CASE_MODEL_H_
