// Judging an output against the golden: the methods of the Ascend test tools (TTK's, msprobe's),
// our own tolerance, and bit for bit -- one table entry each (judge.cpp) -- and the error
// statistics every report shows. The output is judged in pieces (each a PieceStats), merged in
// index order: the runner's pieces are fixed, so the numbers do not depend on --jobs.
#ifndef ACLNN_CPU_TOOLS_CASE_RUNNER_JUDGE_H_
#define ACLNN_CPU_TOOLS_CASE_RUNNER_JUDGE_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "case_model.h"

namespace case_runner {

std::string ShapeText(const std::vector<int64_t>& shape);  // "[32, 8]", "[]"
// "1.5 (0x3fc00000)": the value and its bits.
std::string ValueText(Dtype dtype, uint32_t bits);

struct Method;  // judge.cpp: one entry per method
// The method of that name (or alias); null when none.
const Method* FindMethod(const std::string& name);
// "mixed, close, ...": the names --method takes.
std::string MethodNames();
// What --method benchmark and the other known but unusable names say; "" for other names.
std::string UnusableMethodReason(const std::string& name);
const char* MethodName(const Method& method);
const char* MethodTool(const Method& method);    // "TTK", "msprobe", "aclnn-cpu"
const char* MethodSource(const Method& method);  // the public code its rule is restated from
// The bit-for-bit method of self-run mode, and compare mode's default (TTK's mixed).
const Method& ExactMethod();
const Method& DefaultMethod();
// The options among --rtol, --rtol-share and --atol given in `given` that the method does not read
// ("--rtol, --atol"); "" when it reads them all.
std::string UnreadTolerances(const Method& method, const Tolerances& given);

// The worst elements a report lists, and the resolution of the picture of where errors sit.
constexpr int kWorstElements = 10;
constexpr int kGridRows = 32;
constexpr int kGridCols = 64;
// The error histogram's bins: equal, then |a - g| by decade from below 1e-10 to 1e4 and above,
// then unbounded (NaN or an infinity where the golden has another value).
constexpr int kHistogramBins = 18;
std::string HistogramBinLabel(int bin);

struct WorstElement {
  int64_t index = 0;
  uint32_t expected_bits = 0, actual_bits = 0;
  double abs_error = 0.0;  // +inf: unbounded
  bool bad = false;        // rejected by the method's element rule
};

// What a method's element rule adds up, beside the elements it rejects (judge.cpp says which).
struct MethodCounters {
  int64_t counts[4] = {};
  double sum = 0.0, max = 0.0;  // the method's own error measure
  double sums[3] = {};          // more sums (TTK's cosine: its float32 dot and squared norms)
  bool nan = false;             // it met a NaN (e.g. msprobe's NaN-propagating statistics)
};

// What one piece of an output gives; Merge adds a later piece.
struct PieceStats {
  int64_t elements = 0;
  int64_t finite = 0;      // pairs where both values are finite
  int64_t differing = 0;   // bits differ (NaN meeting NaN does not count)
  int64_t bad = 0;         // rejected by the method's element rule
  int64_t unbounded = 0;   // NaN or an infinity where the golden holds another value
  int64_t first_bad = -1;  // index of the first bad element
  MethodCounters method;   // what the method's element rule adds up
  double max_abs = 0.0, max_rel = 0.0, sum_rel = 0.0, sum_sq = 0.0;  // over finite pairs
  double dot = 0.0, norm_a = 0.0, norm_g = 0.0;                      // squared norms
  double max_ulp = 0.0;                     // largest distance in the golden dtype's units in the last place
  double max_abs_a = 0.0, max_abs_g = 0.0;  // largest magnitudes (msprobe's cosine normalises)
  int64_t histogram[kHistogramBins] = {};
  std::vector<WorstElement> worst;  // at most kWorstElements, worst first
  std::map<int, int64_t> grid_bad;  // cell (row * kGridCols + col) -> bad elements in it
};

void Merge(const PieceStats& piece, PieceStats* total);

// Where an element sits in the picture: the output seen as rows (every dim but the last) by its
// last dim, scaled to at most kGridRows x kGridCols cells.
struct Grid {
  explicit Grid(const std::vector<int64_t>& shape);
  int64_t rows = 1, cols = 1;
  int cell_rows = 1, cell_cols = 1;
  int Cell(int64_t index) const;
  int64_t CellElements(int cell) const;  // elements of the output in that cell
};

// Everything a method needs about one output.
struct JudgeInput {
  const Method* method = nullptr;
  Dtype expected_dtype = Dtype::kFloat32, actual_dtype = Dtype::kFloat32;
  std::vector<int64_t> shape;
  Tolerances tolerances;  // the row's, overridden field by field by the command line's
};

// Elements [first, first + count) of the output.
PieceStats JudgePiece(const JudgeInput& input, const Grid& grid, const uint32_t* expected, const uint32_t* actual,
                      int64_t count, int64_t first);

// The verdict on the whole output: `verdict` is "pass", "fail" or "warning" (msprobe's run_ut says
// so; a warning does not fail the run); `reason` says why in the method's terms when not "pass".
struct Judgement {
  std::string method, tool, source, verdict, reason;
  PieceStats stats;
  std::vector<std::pair<std::string, double>> thresholds;  // the method's limits, as applied
  std::vector<std::pair<std::string, double>> measured;    // what it measured against them
};
Judgement Conclude(const JudgeInput& input, PieceStats stats);

// The statistics in one line: "max abs 0.5, max rel 0.01, ..., worst at [3, 1]: expected ..., actual ...".
std::string StatsLine(const Judgement& judgement, Dtype expected_dtype, Dtype actual_dtype,
                      const std::vector<int64_t>& shape);
// "[3, 1]": the coordinates of a flat row-major index.
std::string Coordinates(const std::vector<int64_t>& shape, int64_t index);

}  // namespace case_runner

#endif  // ACLNN_CPU_TOOLS_CASE_RUNNER_JUDGE_H_
