#include "judge.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "golden/golden_common.h"

namespace case_runner {
namespace {

using aclcpu::kernel::Traits;

// ---- numbers as the tools compute them --------------------------------------------------------

// Rounds to float16 (round to nearest even): a float16 operation done in float32 and rounded once
// gives the float16 result, float32 having more than twice float16's precision.
float RoundToHalf(float value) { return golden::Widen(Dtype::kFloat16, golden::Narrow(Dtype::kFloat16, value)); }

// The order of a value among those of its dtype: adjacent values differ by 1 (+0 and -0 are one).
int64_t OrderedBits(Dtype dtype, uint32_t bits) {
  const int width = dtype == Dtype::kFloat32 ? 32 : 16;
  const uint32_t sign = 1u << (width - 1);
  const int64_t magnitude = bits & (sign - 1);
  return (bits & sign) ? -magnitude : magnitude;
}

// The larger of two magnitudes as numpy's max finds it: a NaN wins.
double MaxWithNan(double x, double y) { return std::isnan(x) || std::isnan(y) ? NAN : std::max(x, y); }

double SmallestNormal(Dtype dtype) { return dtype == Dtype::kFloat16 ? 0x1.0p-14 : FLT_MIN; }

// One element as every method sees it.
struct Element {
  int64_t index;
  uint32_t g_bits, a_bits;
  float g, a;  // the values (float32 holds every dtype here exactly)
  bool g_nan, a_nan, g_inf, a_inf, finite;
  bool same_special;  // NaN meeting NaN, or an infinity the same infinity
};

// ---- the methods -------------------------------------------------------------------------------

// The tolerance fields (a row's precision_tolerances and absolute_precision, or --rtol,
// --rtol-share, --atol) a method reads.
enum Reads : unsigned { kNone = 0, kRtol = 1, kPtol = 2, kAtol = 4 };

// A method's thresholds for one output, as applied.
struct Params {
  double rtol = 0, atol = 0, ptol = 0, limit = 0, threshold = 0, eps = 0, small_value = 0, small_atol = 0;
  bool half_arithmetic = false;                       // TTK close on two float16 arrays computes in float16
  std::vector<std::pair<std::string, double>> shown;  // for the reports
};

}  // namespace

struct Method {
  const char* name;
  std::vector<const char*> aliases;
  const char* tool;
  const char* source;  // the public code the rule is restated from
  unsigned reads;      // the tolerance fields it reads: kRtol | kPtol | kAtol
  bool same_dtype;     // the output must have the golden's dtype
  Params (*params)(Dtype expected, Dtype actual, const Tolerances& tolerances);
  // A piece judged with the method's element rule (JudgeLoop<its rule>).
  PieceStats (*judge)(const JudgeInput& input, const Params& p, const Grid& grid, const uint32_t* expected,
                      const uint32_t* actual, int64_t count, int64_t first);
  // "pass", "fail" or "warning", and why.
  void (*conclude)(const Params& p, Dtype expected, const PieceStats& s, Judgement* j);
};

namespace {

std::string Text(const char* format, double a, double b = 0.0, double c = 0.0) {
  char text[256];
  std::snprintf(text, sizeof text, format, a, b, c);
  return text;
}

double Share(int64_t part, int64_t whole) { return whole == 0 ? 0.0 : static_cast<double>(part) / whole; }

// -- TTK (hicann/ops-test-kit, ttk/core_modules/comparison/; tables in resolve.py) --

// mixed (mix_tolerance.py, resolve.py MIX_TOLERANCE): |a - g| <= atol + rtol |g| in float32;
// pass when matched_ratio >= 0.99 and max_abs_error <= max(limit, 32 eps).
Params MixedParams(Dtype expected, Dtype, const Tolerances&) {
  Params p;
  switch (expected) {
    case Dtype::kFloat16:
      p.rtol = p.atol = 0x1.0p-9, p.limit = std::max(1e-1, 32 * 0x1.0p-10);
      break;
    case Dtype::kBFloat16:
      p.rtol = p.atol = 0x1.0p-6, p.limit = std::max(1e-0, 32 * 0x1.0p-7);
      break;
    case Dtype::kFloat32:
      p.rtol = 0x1.0p-10, p.atol = 0x1.0p-16, p.limit = std::max(1e-2, 32 * 0x1.0p-23);
      break;
  }
  p.ptol = 0.99;  // required matched ratio
  p.shown = {{"rtol", p.rtol}, {"atol", p.atol}, {"required_matched_ratio", p.ptol}, {"max_abs_error_limit", p.limit}};
  return p;
}

bool MixedElement(const Element& e, const Params& p, Dtype, MethodCounters* s) {
  if (e.same_special) return false;
  if (!e.finite) return true;
  const float err = std::fabs(e.a - e.g);  // numpy: float32 arrays, Python-float scalars
  const float tol = static_cast<float>(p.atol) + static_cast<float>(p.rtol) * std::fabs(e.g);
  s->max = std::max<double>(s->max, err);  // max_abs_error: over every finite pair
  return !(err <= tol);
}

void MixedConclude(const Params& p, Dtype, const PieceStats& s, Judgement* j) {
  const double ratio = s.elements == 0 ? 1.0 : static_cast<double>(s.elements - s.bad) / s.elements;
  const double max_abs = s.unbounded > 0 ? INFINITY : s.method.max;
  j->measured.push_back({"matched_ratio", ratio});
  j->measured.push_back({"max_abs_error", max_abs});
  if (s.unbounded > 0) {
    j->verdict = "fail", j->reason = "NaN/Inf mismatch";
  } else if (!(ratio >= p.ptol && max_abs <= p.limit)) {
    j->verdict = "fail";
    j->reason = "threshold exceeded:";
    if (!(ratio >= p.ptol)) j->reason += Text(" matched_ratio(%.4f<%.2f)", ratio, p.ptol);
    if (!(max_abs <= p.limit)) j->reason += Text(" max_abs_error(%.2e>%.2e)", max_abs, p.limit);
  }
}

// close (is_close.py): numpy's isclose(a, g, rtol, atol, equal_nan=True) with the row's
// precision_tolerances and absolute_precision; pass when the share of mismatches <= ptol.
Params CloseParams(Dtype expected, Dtype actual, const Tolerances& t) {
  Params p;
  const bool narrow = actual != Dtype::kFloat32;  // the defaults follow the output's dtype
  p.rtol = t.rtol.value_or(narrow ? 0.001 : 0.0001);
  p.ptol = t.ptol.value_or(narrow ? 0.001 : 0.0001);
  p.atol = t.atol.value_or(1e-8);
  // bfloat16 is compared as float32; two float16 arrays in float16.
  p.half_arithmetic = expected == Dtype::kFloat16 && actual == Dtype::kFloat16;
  p.shown = {{"rtol", p.rtol}, {"ptol", p.ptol}, {"atol", p.atol}};
  return p;
}

bool CloseElement(const Element& e, const Params& p, Dtype, MethodCounters*) {
  if (p.rtol == 0.0 && p.atol == 0.0) return !(e.a == e.g || (e.a_nan && e.g_nan));
  if (!e.finite) return !(e.a == e.g || (e.a_nan && e.g_nan));
  if (p.half_arithmetic) {  // numpy keeps float16 arrays and scalars in float16
    const float diff = std::fabs(RoundToHalf(e.a - e.g));
    const float tol = RoundToHalf(RoundToHalf(static_cast<float>(p.atol)) +
                                  RoundToHalf(RoundToHalf(static_cast<float>(p.rtol)) * std::fabs(e.g)));
    return !(diff <= tol);
  }
  const float diff = std::fabs(e.a - e.g);
  const float tol = static_cast<float>(p.atol) + static_cast<float>(p.rtol) * std::fabs(e.g);
  return !(diff <= tol);
}

void CloseConclude(const Params& p, Dtype, const PieceStats& s, Judgement* j) {
  const double precision = s.elements == 0 ? 1.0 : static_cast<double>(s.elements - s.bad) / s.elements;
  j->measured.push_back({"precision", precision});
  if ((1.0 - precision) > p.ptol) {
    j->verdict = "fail";
    j->reason = Text("%.6g%% of elements not close (allowed: ptol %.6g)", (1.0 - precision) * 100.0, p.ptol);
  }
}

// stat_rel_err (stat_rel_err.py): rel = |a - g| / (|g| + 1e-7) in float32 over finite pairs; pass
// when its mean < threshold and its max < 10 threshold.
Params StatRelErrParams(Dtype expected, Dtype, const Tolerances&) {
  Params p;
  p.threshold = expected == Dtype::kFloat16 ? 0x1.0p-10 : (expected == Dtype::kBFloat16 ? 0x1.0p-7 : 0x1.0p-13);
  p.shown = {{"threshold", p.threshold}, {"mare_limit", 10 * p.threshold}};
  return p;
}

bool StatRelErrElement(const Element& e, const Params& p, Dtype, MethodCounters* s) {
  if (e.same_special) return false;
  if (!e.finite) return true;
  const float rel = std::fabs(e.a - e.g) / (std::fabs(e.g) + 1e-7f);
  s->sum += rel;
  s->max = std::max<double>(s->max, rel);
  return rel >= p.threshold;  // elements at or over the mean's bound
}

void StatRelErrConclude(const Params& p, Dtype, const PieceStats& s, Judgement* j) {
  if (s.unbounded > 0) {
    j->verdict = "fail", j->reason = "NaN/Inf mismatch";
    return;
  }
  if (s.finite == 0) return;
  const double mere = s.method.sum / static_cast<double>(s.finite), mare = s.method.max;
  j->measured.push_back({"mere", mere});
  j->measured.push_back({"mare", mare});
  if (!(mere < p.threshold && mare < 10 * p.threshold)) {
    j->verdict = "fail";
    if (!(mere < p.threshold)) j->reason += Text("mere(%.6g>=%.6g) ", mere, p.threshold);
    if (!(mare < 10 * p.threshold)) j->reason += Text("mare(%.6g>=%.6g)", mare, 10 * p.threshold);
  }
}

// cosine (cosine_similarity.py): 1 - cos(a, g) <= rtol (precision_tolerances' rtol, else 0.01).
Params CosineParams(Dtype, Dtype, const Tolerances& t) {
  Params p;
  p.rtol = t.rtol.value_or(0.01);
  p.shown = {{"rtol", p.rtol}};
  return p;
}

bool BitsDiffer(const Element& e) { return e.a_bits != e.g_bits && !(e.a_nan && e.g_nan); }

// numpy computes in float32 here (np.dot, np.linalg.norm = sqrt(dot(x, x))): each product is
// rounded to float32 (so it overflows to inf, or underflows to 0, as there), the sums are kept in
// float64 (BLAS's order is not numpy's to give) and rounded to float32 at the end.
bool CosineElement(const Element& e, const Params&, Dtype, MethodCounters* s) {
  s->nan = s->nan || e.a_nan || e.g_nan || e.a_inf || e.g_inf;
  s->sums[0] += static_cast<float>(e.a * e.g);
  s->sums[1] += static_cast<float>(e.a * e.a);
  s->sums[2] += static_cast<float>(e.g * e.g);
  return BitsDiffer(e);
}

double Cosine(const PieceStats& s) { return s.dot / (std::sqrt(s.norm_a) * std::sqrt(s.norm_g)); }

void CosineConclude(const Params& p, Dtype, const PieceStats& s, Judgement* j) {
  // A zero vector gives 0/0: NaN, as numpy; so does a NaN or an infinity anywhere.
  const float dot = static_cast<float>(s.method.sums[0]);
  const float norms = std::sqrt(static_cast<float>(s.method.sums[1])) * std::sqrt(static_cast<float>(s.method.sums[2]));
  const double cos = s.method.nan ? NAN : static_cast<double>(dot / norms);
  j->measured.push_back({"cosine", cos});
  if (!((1.0 - cos) <= p.rtol)) {
    j->verdict = "fail";
    j->reason = std::isnan(cos) ? "cosine similarity is NaN (a NaN, an infinity or a zero vector)"
                                : Text("1 - cosine similarity = %.6g > rtol %.6g", 1.0 - cos, p.rtol);
  }
}

// binary (binary_equal.py): the same bytes, positions where both are NaN set aside.
Params NoParams(Dtype, Dtype, const Tolerances&) { return Params{}; }

bool BinaryElement(const Element& e, const Params&, Dtype, MethodCounters*) { return BitsDiffer(e); }

void BinaryConclude(const Params&, Dtype, const PieceStats& s, Judgement* j) {
  if (s.bad > 0) {
    j->verdict = "fail";
    j->reason = "not bit for bit";
  }
}

// -- aclnn-cpu's own rule: |a - g| / max(|g|, smallest normal) <= rtol (by dtype), at most a share
// ptol of the elements over; NaN must meet NaN, an infinity the same infinity. --

Params ToleranceParams(Dtype expected, Dtype, const Tolerances& t) {
  Params p;
  p.rtol = t.rtol.value_or(expected == Dtype::kFloat32 ? 1e-4 : (expected == Dtype::kFloat16 ? 1e-3 : 4e-3));
  p.ptol = t.ptol.value_or(0.001);
  p.shown = {{"rtol", p.rtol}, {"ptol", p.ptol}};
  return p;
}

bool ToleranceElement(const Element& e, const Params& p, Dtype expected, MethodCounters*) {
  if (e.same_special) return false;
  if (!e.finite) return true;
  const double a = e.a, g = e.g;
  return std::fabs(a - g) / std::max(std::fabs(g), SmallestNormal(expected)) > p.rtol;
}

void ToleranceConclude(const Params& p, Dtype, const PieceStats& s, Judgement* j) {
  const double share = Share(s.bad, s.elements);
  if (share > p.ptol) {
    j->verdict = "fail";
    j->reason = Text("%.6g%% of elements over rtol %g (allowed: %.6g%%)", share * 100.0, p.rtol, p.ptol * 100.0);
  }
}

// -- msprobe (the PyTorch API accuracy checker; msprobe/pytorch/api_accuracy_checker/) --
// Its golden ("bench") is computed in raised precision: float32 for float16 and bfloat16 APIs,
// float64 for float32 ones. Ours, the NPU's expected bits, stands in for it in that dtype.

// msprobe's bench for an output dtype: float32 for float16 and bfloat16 outputs; float64 for
// float32, except where an API keeps float32 (conv1d and conv2d, which thousandth_threshold serves).
struct Bench {
  bool float64;  // its arithmetic
  double eps;    // numpy's eps of its dtype, 2^-8 for bfloat16 (get_abs_bench_with_eps)
};
Bench RaisedBench(Dtype expected) {
  return expected == Dtype::kFloat32 ? Bench{true, 0x1.0p-52}
                                     : Bench{false, expected == Dtype::kBFloat16 ? 0x1.0p-8 : 0x1.0p-23};
}
Bench Float32Bench(Dtype expected) { return Bench{false, expected == Dtype::kBFloat16 ? 0x1.0p-8 : 0x1.0p-23}; }

// |a - g| and |a - g| / (|g| + eps) in the bench's arithmetic.
double BenchAbsError(const Element& e, const Bench& bench) {
  return bench.float64 ? std::fabs(static_cast<double>(e.a) - e.g) : std::fabs(e.a - e.g);
}
double BenchRelError(const Element& e, const Bench& bench) {
  if (bench.float64) return std::fabs(std::fabs(static_cast<double>(e.a) - e.g) / (std::fabs(e.g) + bench.eps));
  return std::fabs(std::fabs(e.a - e.g) / (std::fabs(e.g) + static_cast<float>(bench.eps)));
}
// rel < bound as numpy compares an array of the bench's dtype with a Python float: in that dtype.
bool BenchBelow(double rel, const Bench& bench, double bound) {
  return bench.float64 ? rel < bound : static_cast<float>(rel) < static_cast<float>(bound);
}

// run_ut's status (compare.py _compare_float_tensor, algorithm.py): cosine > 0.99, else error; max
// abs error < 0.001, pass; float16/bfloat16: share of rel < 0.01 > 0.99 else error, share of rel <
// 0.001 > 0.999 pass, else warning; float32: share of rel < 0.001 > 0.999 else error, share of rel <
// 0.0001 > 0.9999 else warning.
// counts: [0] rel < 0.01, [1] rel < 0.001, [2] rel < 0.0001.
Params RunUtParams(Dtype expected, Dtype, const Tolerances&) {
  Params p;
  p.eps = RaisedBench(expected).eps;
  p.shown = {{"cosine_min", 0.99}, {"max_abs_err_pass", 0.001}, {"eps", p.eps}};
  return p;
}

bool RunUtElement(const Element& e, const Params&, Dtype expected, MethodCounters* s) {
  const Bench bench = RaisedBench(expected);
  const double rel = BenchRelError(e, bench);  // NaN where a NaN or inf - inf is met: never "<"
  s->counts[0] += BenchBelow(rel, bench, 0.01);
  s->counts[1] += BenchBelow(rel, bench, 0.001);
  s->counts[2] += BenchBelow(rel, bench, 0.0001);
  const double abs_err = BenchAbsError(e, bench);
  if (std::isnan(abs_err)) s->nan = true;  // numpy's max propagates NaN
  s->max = std::max(s->max, abs_err);
  return !BenchBelow(rel, bench, expected == Dtype::kFloat32 ? 0.0001 : 0.001);
}

void RunUtConclude(const Params&, Dtype expected, const PieceStats& s, Judgement* j) {
  // cosine_sim: one element passes; both all-zero pass, one all-zero fails; else normalised by the
  // largest magnitudes, > 0.99 -- or NaN, which msprobe's algorithm.py lets through (its cosine
  // check says True; the shares below then judge the NaN and infinite elements).
  const double eps = DBL_EPSILON;
  double cos = NAN;
  bool cos_ok;
  if (s.elements == 1) {
    cos_ok = true;
  } else if (s.max_abs_a <= eps && s.max_abs_g <= eps) {
    cos_ok = true;
  } else if (s.max_abs_a <= eps || s.max_abs_g <= eps) {
    cos_ok = false;
  } else {
    // Normalised by the largest magnitudes: a NaN or an infinity makes it NaN.
    cos = !std::isfinite(s.max_abs_a) || !std::isfinite(s.max_abs_g) ? NAN : Cosine(s);
    if (!std::isnan(cos)) cos = std::min(1.0, std::max(-1.0, cos));
    cos_ok = std::isnan(cos) || cos > 0.99;
  }
  j->measured.push_back({"cosine", cos});
  if (!cos_ok) {
    j->verdict = "fail", j->reason = "error: cosine similarity is not above 0.99";
    return;
  }
  const double max_abs = s.method.nan ? NAN : s.method.max;
  j->measured.push_back({"max_abs_err", max_abs});
  if (max_abs < 0.001) return;
  const double hundredth = Share(s.method.counts[0], s.elements), thousandth = Share(s.method.counts[1], s.elements),
               ten_thousandth = Share(s.method.counts[2], s.elements);
  j->measured.push_back({"rel_err_thousandth", thousandth});
  if (expected != Dtype::kFloat32) {
    j->measured.push_back({"rel_err_hundredth", hundredth});
    if (!(hundredth > 1 - 0.01)) {
      j->verdict = "fail", j->reason = Text("error: share of relative error < 0.01 is %.6g, not above 0.99", hundredth);
    } else if (!(thousandth > 1 - 0.001)) {
      j->verdict = "warning",
      j->reason = Text("warning: share of relative error < 0.001 is %.6g, not above 0.999", thousandth);
    }
    return;
  }
  j->measured.push_back({"rel_err_ten_thousandth", ten_thousandth});
  if (!(thousandth > 1 - 0.001)) {
    j->verdict = "fail",
    j->reason = Text("error: share of relative error < 0.001 is %.6g, not above 0.999", thousandth);
  } else if (!(ten_thousandth > 1 - 0.0001)) {
    j->verdict = "warning",
    j->reason = Text("warning: share of relative error < 0.0001 is %.6g, not above 0.9999", ten_thousandth);
  }
}

// absolute_threshold (precision_standard/absolute_threshold.py, standard_config.py): every element
// passes -- non-finite pairs clipped to the dtype's range within rtol (or both NaN), |g| <=
// small_value within small_value_atol, the rest within rtol.
// counts: [0] non-finite pairs, [1] of them failing, [2] small values, [3] of them failing;
// method_sum: normal values failing (as a count).
Params AbsoluteThresholdParams(Dtype expected, Dtype, const Tolerances&) {
  Params p;
  p.eps = RaisedBench(expected).eps;
  switch (expected) {
    case Dtype::kFloat16:
      p.rtol = 0x1.0p-10, p.small_value = 0x1.0p-10, p.small_atol = 0x1.0p-16;
      break;
    case Dtype::kBFloat16:
      p.rtol = 0x1.0p-8, p.small_value = 0x1.0p-10, p.small_atol = 1e-16;
      break;
    case Dtype::kFloat32:
      p.rtol = 0x1.0p-20, p.small_value = 0x1.0p-20, p.small_atol = 0x1.0p-30;
      break;
  }
  p.shown = {{"rtol", p.rtol}, {"small_value", p.small_value}, {"small_value_atol", p.small_atol}};
  return p;
}

double DtypeMax(Dtype dtype) {
  return dtype == Dtype::kFloat16 ? 65504.0 : (dtype == Dtype::kBFloat16 ? 3.3895313892515355e38 : FLT_MAX);
}

// np.clip to the output dtype's finite range: NaN stays NaN.
double Clip(double value, double top) { return std::isnan(value) ? value : std::min(top, std::max(-top, value)); }

bool AbsoluteThresholdElement(const Element& e, const Params& p, Dtype expected, MethodCounters* s) {
  const Bench bench = RaisedBench(expected);
  const double with_eps = bench.float64 ? std::fabs(static_cast<double>(e.g)) + bench.eps
                                        : static_cast<double>(std::fabs(e.g) + static_cast<float>(bench.eps));
  if (!e.finite) {
    ++s->counts[0];
    // check_inf_nan_value: both clipped to the output dtype's range and subtracted in its arithmetic
    // (float16 for float16, float32 for bfloat16 and float32), where max - (-max) overflows to inf.
    const double top = DtypeMax(expected);
    const double a_clip = Clip(e.a, top), g_clip = Clip(e.g, top);
    const double diff = expected == Dtype::kFloat16
                            ? RoundToHalf(static_cast<float>(a_clip - g_clip))  // exact in double, rounded once
                            : static_cast<double>(static_cast<float>(a_clip) - static_cast<float>(g_clip));
    const double rel = bench.float64
                           ? std::fabs(diff) / with_eps
                           : static_cast<double>(static_cast<float>(std::fabs(diff)) / static_cast<float>(with_eps));
    const bool ok = rel <= p.rtol || (e.a_nan && e.g_nan);
    s->counts[1] += !ok;
    return !ok;
  }
  const double abs_err = BenchAbsError(e, bench);
  if (std::fabs(e.g) <= p.small_value) {
    ++s->counts[2];
    const bool bad =
        bench.float64 ? abs_err > p.small_atol : static_cast<float>(abs_err) > static_cast<float>(p.small_atol);
    s->counts[3] += bad;
    return bad;
  }
  const bool bad = BenchRelError(e, bench) > p.rtol;  // rtol: a power of two, exact in both
  s->sum += bad;
  return bad;
}

void AbsoluteThresholdConclude(const Params&, Dtype, const PieceStats& s, Judgement* j) {
  const int64_t normal = s.finite - s.method.counts[2];
  const double inf_nan_ratio = Share(s.method.counts[1], s.method.counts[0]),
               abs_ratio = Share(s.method.counts[3], s.method.counts[2]),
               rel_ratio = normal == 0 ? 0.0 : s.method.sum / static_cast<double>(normal);
  j->measured.push_back({"inf_nan_error_ratio", inf_nan_ratio});
  j->measured.push_back({"rel_err_ratio", rel_ratio});
  j->measured.push_back({"abs_err_ratio", abs_ratio});
  if (inf_nan_ratio != 0 || rel_ratio != 0 || abs_ratio != 0) {
    j->verdict = "fail";
    j->reason = Text("error: inf_nan_error_ratio %.6g, rel_err_ratio %.6g, abs_err_ratio %.6g (all must be 0)",
                     inf_nan_ratio, rel_ratio, abs_ratio);
  }
}

// ulp_compare (algorithm.py get_ulp_err, api_precision_compare.py): ulp = |a - g| 2^(mantissa bits
// - max(floor(log2 |g|), min exponent)); float32: mean < 64 or share over 32 < 0.05; float16 and
// bfloat16: share over 1 < 0.001. (msprobe's third way to pass compares with a GPU's share: with
// the golden alone this verdict can only be stricter.)
// counts: [0] elements over the bound.
Params UlpParams(Dtype expected, Dtype, const Tolerances&) {
  Params p;
  p.threshold = expected == Dtype::kFloat32 ? 32 : 1;
  p.shown = {{"ulp_bound", p.threshold}, {"proportion_limit", expected == Dtype::kFloat32 ? 0.05 : 0.001}};
  if (expected == Dtype::kFloat32) p.shown.push_back({"mean_limit", 64});
  return p;
}

double MsprobeUlp(const Element& e, Dtype expected) {
  const int mantissa = expected == Dtype::kFloat32 ? 23 : (expected == Dtype::kFloat16 ? 10 : 7);
  const double min_eb = expected == Dtype::kFloat16 ? -14 : -126;
  const double abs_g = std::fabs(static_cast<double>(e.g));
  const double eb = std::max(abs_g == 0 ? 0.0 : std::floor(std::log2(abs_g)), min_eb);
  if (expected == Dtype::kFloat32) {
    return std::fabs((static_cast<double>(e.a) - e.g) * std::exp2(-eb + mantissa));
  }
  return std::fabs((e.a - e.g) * static_cast<float>(std::exp2(-eb + mantissa)));  // float32
}

bool UlpElement(const Element& e, const Params& p, Dtype expected, MethodCounters* s) {
  const double ulp = MsprobeUlp(e, expected);
  s->sum += ulp;  // NaN or inf once one is NaN or inf, as numpy's mean
  s->counts[1] += !std::isfinite(e.g);
  const bool over = ulp > p.threshold;
  s->counts[0] += over;
  return over;
}

void UlpConclude(const Params&, Dtype expected, const PieceStats& s, Judgement* j) {
  const double proportion = Share(s.method.counts[0], s.elements);
  const double mean = s.method.sum / static_cast<double>(s.elements);
  j->measured.push_back({"ulp_error_proportion", proportion});
  j->measured.push_back({"mean_ulp_error", mean});
  // check_inf_or_nan against the GPU's mean: a GPU that matches the golden has a NaN mean where the
  // golden holds a NaN or an infinity (inf - inf), a finite one otherwise; NaN must meet NaN.
  const bool gpu_nan = s.method.counts[1] > 0;
  if (gpu_nan ? !std::isnan(mean) : !std::isfinite(mean)) {
    j->verdict = "fail";
    j->reason = Text("error: mean ulp error %g, the GPU's would be ", mean) + (gpu_nan ? "NaN" : "finite") +
                " (inf或nan不一致)";
    return;
  }
  const bool ok = expected == Dtype::kFloat32 ? (mean < 64 || proportion < 0.05) : proportion < 0.001;
  if (!ok) {
    j->verdict = "fail";
    j->reason = Text("error: ulp error proportion %.6g, mean ulp error %.6g (ULP误差不满足标准)", proportion, mean);
  }
}

// binary_consistency (algorithm.py compare_bool_tensor): error rate of a != g (numbers: +0 meets
// -0, NaN meets nothing) must be 0.
bool BinaryConsistencyElement(const Element& e, const Params&, Dtype, MethodCounters*) { return e.a != e.g; }

void BinaryConsistencyConclude(const Params&, Dtype, const PieceStats& s, Judgement* j) {
  const double rate = Share(s.bad, s.elements);
  j->measured.push_back({"error_rate", rate});
  if (rate != 0) j->verdict = "fail", j->reason = Text("error: binary consistency error rate %.6g", rate);
}

// thousandth_threshold (thousandth_standard.py, api_precision_compare.py): share of rel < 0.001 >=
// 0.999.
Params ThousandthParams(Dtype expected, Dtype, const Tolerances&) {
  Params p;
  p.eps = Float32Bench(expected).eps;
  p.shown = {{"rel_err_bound", 0.001}, {"pass_share", 0.999}, {"eps", p.eps}};
  return p;
}

// Its APIs, conv1d and conv2d, keep a float32 bench for float32 (hf_32_standard_api).
bool ThousandthElement(const Element& e, const Params&, Dtype expected, MethodCounters*) {
  const Bench bench = Float32Bench(expected);
  return !BenchBelow(BenchRelError(e, bench), bench, 0.001);
}

void ThousandthConclude(const Params&, Dtype, const PieceStats& s, Judgement* j) {
  const double share = Share(s.elements - s.bad, s.elements);
  j->measured.push_back({"rel_err_thousandth", share});
  if (!(share >= 0.999)) j->verdict = "fail", j->reason = Text("error: share of relative error < 0.001 is %.6g", share);
}

// Worse first: unbounded, then bad, then the larger error; the lower index on a tie.
bool Worse(const WorstElement& x, const WorstElement& y) {
  if (x.bad != y.bad) return x.bad;
  if (x.abs_error != y.abs_error) return x.abs_error > y.abs_error;
  return x.index < y.index;
}

void KeepWorst(std::vector<WorstElement>* worst) {
  std::sort(worst->begin(), worst->end(), Worse);
  if (worst->size() > static_cast<size_t>(kWorstElements)) worst->resize(kWorstElements);
}

int HistogramBin(const Element& e, bool unbounded) {
  if (unbounded) return kHistogramBins - 1;
  if (!e.finite || e.a_bits == e.g_bits) return 0;  // a matching NaN or infinity; the same bits
  const double err = std::fabs(static_cast<double>(e.a) - e.g);
  if (err == 0) return 0;
  // Bin 1 below 1e-10, bin d + 12 for [1e d, 1e(d+1)) with d from -10 to 3, bin 16 from 1e4.
  static const double kDecades[] = {1e-10, 1e-9, 1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3,
                                    1e-2,  1e-1, 1e0,  1e1,  1e2,  1e3,  1e4};
  int bin = 1;
  while (bin <= 15 && err >= kDecades[bin - 1]) ++bin;
  return bin;
}

// The element loop of a method whose element rule is Rule: an instance per method, so the rule
// inlines into the loop.
template <bool (*Rule)(const Element&, const Params&, Dtype, MethodCounters*)>
PieceStats JudgeLoop(const JudgeInput& input, const Params& params, const Grid& grid, const uint32_t* expected,
                     const uint32_t* actual, int64_t count, int64_t first) {
  const Dtype gd = input.expected_dtype, ad = input.actual_dtype;
  const double tiny = SmallestNormal(gd);
  PieceStats s;
  s.elements = count;
  // Accumulated in locals (registers), not through s: the method's rule writes s.method only.
  int64_t finite = 0, differing = 0, unbounded = 0;
  double max_abs = 0, max_rel = 0, sum_rel = 0, sum_sq = 0, dot = 0, norm_a = 0, norm_g = 0, max_ulp = 0;
  double max_abs_a = 0, max_abs_g = 0;
  for (int64_t i = 0; i < count; ++i) {
    Element e;
    e.index = first + i;
    e.g_bits = expected[i], e.a_bits = actual[i];
    e.g = golden::Widen(gd, e.g_bits), e.a = golden::Widen(ad, e.a_bits);
    e.g_nan = std::isnan(e.g), e.a_nan = std::isnan(e.a), e.g_inf = std::isinf(e.g), e.a_inf = std::isinf(e.a);
    e.finite = !(e.g_nan || e.a_nan || e.g_inf || e.a_inf);
    e.same_special = (e.g_nan && e.a_nan) || (e.g_inf && e.a_inf && e.g == e.a);
    const bool is_unbounded = !e.finite && !e.same_special;
    const bool differs = gd == ad ? BitsDiffer(e) : !(e.a == e.g || (e.a_nan && e.g_nan));
    const bool bad = Rule(e, params, gd, &s.method);
    differing += differs;
    unbounded += is_unbounded;
    max_abs_a = MaxWithNan(max_abs_a, std::fabs(e.a));
    max_abs_g = MaxWithNan(max_abs_g, std::fabs(e.g));
    double abs_error = 0.0;
    if (e.finite) {
      ++finite;
      const double a = e.a, g = e.g;
      abs_error = std::fabs(a - g);
      const double rel = abs_error / std::max(std::fabs(g), tiny);
      max_abs = std::max(max_abs, abs_error);
      max_rel = std::max(max_rel, rel);
      sum_rel += rel;
      sum_sq += abs_error * abs_error;
      dot += a * g, norm_a += a * a, norm_g += g * g;
      if (differs) {
        const uint32_t a_in_g = gd == ad ? e.a_bits : golden::Narrow(gd, e.a);
        max_ulp =
            std::max(max_ulp, std::fabs(static_cast<double>(OrderedBits(gd, a_in_g) - OrderedBits(gd, e.g_bits))));
      }
    } else if (is_unbounded) {
      abs_error = INFINITY;
    }
    if (!bad && !differs) {
      ++s.histogram[0];  // the same value (or a matching NaN or infinity) that the rule accepts
      continue;
    }
    ++s.histogram[HistogramBin(e, is_unbounded)];
    if (bad) {
      if (s.bad++ == 0) s.first_bad = e.index;
      ++s.grid_bad[grid.Cell(e.index)];
    }
    const WorstElement candidate{e.index, e.g_bits, e.a_bits, abs_error, bad};
    if (s.worst.size() < static_cast<size_t>(kWorstElements) || Worse(candidate, s.worst.back())) {
      s.worst.push_back(candidate);
      KeepWorst(&s.worst);  // sorted, at most kWorstElements: the test above reads its last
    }
  }
  s.finite = finite, s.differing = differing, s.unbounded = unbounded;
  s.max_abs = max_abs, s.max_rel = max_rel, s.sum_rel = sum_rel, s.sum_sq = sum_sq;
  s.dot = dot, s.norm_a = norm_a, s.norm_g = norm_g, s.max_ulp = max_ulp;
  s.max_abs_a = max_abs_a, s.max_abs_g = max_abs_g;
  KeepWorst(&s.worst);
  return s;
}

// clang-format off
const Method kMethods[] = {
    // name, aliases, tool, source, tolerances read, same dtype, params, element loop, conclusion
    {"mixed", {"mix_tolerance"}, "TTK",
     "hicann/ops-test-kit ttk/core_modules/comparison/mix_tolerance.py, resolve.py MIX_TOLERANCE",
     kNone, false, MixedParams, JudgeLoop<MixedElement>, MixedConclude},
    {"close", {"isclose"}, "TTK",
     "hicann/ops-test-kit ttk/core_modules/comparison/is_close.py",
     kRtol | kPtol | kAtol, false, CloseParams, JudgeLoop<CloseElement>, CloseConclude},
    {"stat_rel_err", {}, "TTK",
     "hicann/ops-test-kit ttk/core_modules/comparison/stat_rel_err.py, resolve.py",
     kNone, false, StatRelErrParams, JudgeLoop<StatRelErrElement>, StatRelErrConclude},
    {"cosine", {}, "TTK",
     "hicann/ops-test-kit ttk/core_modules/comparison/cosine_similarity.py",
     kRtol, false, CosineParams, JudgeLoop<CosineElement>, CosineConclude},
    {"binary", {"bin", "binary_equal"}, "TTK",
     "hicann/ops-test-kit ttk/core_modules/comparison/binary_equal.py",
     kNone, true, NoParams, JudgeLoop<BinaryElement>, BinaryConclude},
    {"run_ut", {}, "msprobe",
     "mstt msprobe/pytorch/api_accuracy_checker/compare/compare.py _compare_float_tensor, compare/algorithm.py",
     kNone, false, RunUtParams, JudgeLoop<RunUtElement>, RunUtConclude},
    {"absolute_threshold", {}, "msprobe",
     "mstt msprobe/pytorch/api_accuracy_checker/precision_standard/absolute_threshold.py, standard_config.py",
     kNone, false, AbsoluteThresholdParams, JudgeLoop<AbsoluteThresholdElement>, AbsoluteThresholdConclude},
    {"ulp_compare", {}, "msprobe",
     "mstt msprobe/pytorch/api_accuracy_checker/compare/algorithm.py get_ulp_err, compare/api_precision_compare.py",
     kNone, false, UlpParams, JudgeLoop<UlpElement>, UlpConclude},
    {"binary_consistency", {}, "msprobe",
     "mstt msprobe/pytorch/api_accuracy_checker/compare/algorithm.py compare_bool_tensor",
     kNone, false, NoParams, JudgeLoop<BinaryConsistencyElement>, BinaryConsistencyConclude},
    {"thousandth_threshold", {}, "msprobe",
     "mstt msprobe/pytorch/api_accuracy_checker/precision_standard/thousandth_standard.py",
     kNone, false, ThousandthParams, JudgeLoop<ThousandthElement>, ThousandthConclude},
    {"tolerance", {}, "aclnn-cpu",
     "aclnn-cpu tools/case_runner/judge.cpp",
     kRtol | kPtol, false, ToleranceParams, JudgeLoop<ToleranceElement>, ToleranceConclude},
};
// clang-format on

}  // namespace

std::string HistogramBinLabel(int bin) {
  if (bin == 0) return "equal";
  if (bin == kHistogramBins - 1) return "unbounded";
  if (bin == 1) return "<1e-10";
  if (bin == 16) return ">=1e4";
  return "1e" + std::to_string(bin - 12);
}

const Method* FindMethod(const std::string& name) {
  for (const Method& method : kMethods) {
    if (name == method.name) return &method;
    for (const char* alias : method.aliases) {
      if (name == alias) return &method;
    }
  }
  return nullptr;
}

std::string MethodNames() {
  std::string names;
  for (const Method& method : kMethods) names += (names.empty() ? "" : ", ") + std::string(method.name);
  return names;
}

std::string UnusableMethodReason(const std::string& name) {
  if (name == "benchmark") {
    return "msprobe's benchmark standard judges ratios of the NPU's errors to a GPU's against the golden: it needs "
           "a second device's output, which compare mode does not read";
  }
  if (name == "accumulative_error_compare") {
    return "msprobe's accumulative_error_compare lists no API but its placeholder test_api";
  }
  if (name == "requant" || name == "quant" || name == "cross_check") {
    return "TTK's " + name +
           " judges quantised outputs or a third device's: these operators' outputs are floating point";
  }
  if (name == "single_bm" || name == "mixed_tolerance_bm" || name == "double_benchmark" || name == "default" ||
      name == "equal") {
    return "ATK's " + name +
           " is not public (its source is not published); TTK's stat_rel_err is the public MERE/MARE "
           "rule and mixed the public mixed-tolerance rule";
  }
  return "";
}

const char* MethodName(const Method& method) { return method.name; }
const char* MethodTool(const Method& method) { return method.tool; }
const char* MethodSource(const Method& method) { return method.source; }
const Method& ExactMethod() { return *FindMethod("binary"); }
const Method& DefaultMethod() { return *FindMethod("mixed"); }

std::string UnreadTolerances(const Method& method, const Tolerances& given) {
  std::string unread;
  const auto add = [&unread](const char* option) { unread += (unread.empty() ? "" : ", ") + std::string(option); };
  if (given.rtol && !(method.reads & kRtol)) add("--rtol");
  if (given.ptol && !(method.reads & kPtol)) add("--rtol-share");
  if (given.atol && !(method.reads & kAtol)) add("--atol");
  return unread;
}

Grid::Grid(const std::vector<int64_t>& shape) {
  cols = shape.empty() ? 1 : std::max<int64_t>(shape.back(), 1);
  int64_t numel = 1;
  for (int64_t d : shape) numel *= d;
  rows = std::max<int64_t>(numel / cols, 1);
  cell_rows = static_cast<int>(std::min<int64_t>(rows, kGridRows));
  cell_cols = static_cast<int>(std::min<int64_t>(cols, kGridCols));
}

int Grid::Cell(int64_t index) const {
  const int64_t row = index / cols, col = index % cols;
  return static_cast<int>(row * cell_rows / rows) * kGridCols + static_cast<int>(col * cell_cols / cols);
}

int64_t Grid::CellElements(int cell) const {
  const int64_t r = cell / kGridCols, c = cell % kGridCols;
  // Rows i with floor(i * cell_rows / rows) == r: from ceil(r * rows / cell_rows).
  const auto first = [](int64_t k, int64_t n, int64_t cells) { return (k * n + cells - 1) / cells; };
  const int64_t row_count = first(r + 1, rows, cell_rows) - first(r, rows, cell_rows);
  const int64_t col_count = first(c + 1, cols, cell_cols) - first(c, cols, cell_cols);
  return row_count * col_count;
}

namespace {

// A piece whose bits equal the golden's under a bit-for-bit method (self-run mode's every piece):
// nothing differs, and only the statistics of the values themselves remain to gather.
PieceStats EqualPiece(Dtype dtype, const uint32_t* bits, int64_t count) {
  PieceStats s;
  s.elements = count;
  s.histogram[0] = count;
  // Four partial sums in a fixed order (no chain of dependent additions); the same for a given piece.
  // Sum k takes the elements i with i % 4 == k, in order. The loop steps four elements at a time so
  // that the sums stay in registers (indexed by i & 3 they lived on the stack: 2x slower).
  double norm[4] = {}, largest[4] = {};
  int64_t finite[4] = {};
  const auto add = [&](auto value_of) {
    const auto add_one = [&](uint32_t element_bits, int k) {
      const float value = value_of(element_bits);
      const bool is_finite = std::fabs(value) <= FLT_MAX;
      const double v = is_finite ? value : 0.0;
      finite[k] += is_finite;
      norm[k] += v * v;
      largest[k] = MaxWithNan(largest[k], std::fabs(value));  // a NaN or an infinity stays
    };
    int64_t i = 0;
    for (; i + 4 <= count; i += 4) {
      add_one(bits[i], 0), add_one(bits[i + 1], 1), add_one(bits[i + 2], 2), add_one(bits[i + 3], 3);
    }
    for (int k = 0; i < count; ++i, ++k) add_one(bits[i], k);
  };
  if (dtype == Dtype::kFloat32) {
    add([](uint32_t b) { return golden::Widen(Dtype::kFloat32, b); });
  } else {
    const float* values = golden::detail::Values16(dtype);  // every 16-bit pattern's value
    add([values](uint32_t b) { return values[b & 0xffffu]; });
  }
  s.finite = finite[0] + finite[1] + finite[2] + finite[3];
  s.dot = s.norm_a = s.norm_g = (norm[0] + norm[1]) + (norm[2] + norm[3]);
  s.max_abs_a = s.max_abs_g = MaxWithNan(MaxWithNan(largest[0], largest[1]), MaxWithNan(largest[2], largest[3]));
  return s;
}

}  // namespace

PieceStats JudgePiece(const JudgeInput& input, const Grid& grid, const uint32_t* expected, const uint32_t* actual,
                      int64_t count, int64_t first) {
  const Method& method = *input.method;
  const Dtype gd = input.expected_dtype, ad = input.actual_dtype;
  if (method.same_dtype && gd == ad && std::memcmp(expected, actual, static_cast<size_t>(count) * 4) == 0) {
    return EqualPiece(gd, expected, count);
  }
  return method.judge(input, method.params(gd, ad, input.tolerances), grid, expected, actual, count, first);
}

void Merge(const PieceStats& piece, PieceStats* total) {
  if (piece.bad > 0 && total->bad == 0) total->first_bad = piece.first_bad;
  total->elements += piece.elements;
  total->finite += piece.finite;
  total->differing += piece.differing;
  total->bad += piece.bad;
  total->unbounded += piece.unbounded;
  for (int i = 0; i < 4; ++i) total->method.counts[i] += piece.method.counts[i];
  total->method.sum += piece.method.sum;
  total->method.max = std::max(total->method.max, piece.method.max);
  total->method.nan = total->method.nan || piece.method.nan;
  total->max_abs = std::max(total->max_abs, piece.max_abs);
  total->max_rel = std::max(total->max_rel, piece.max_rel);
  total->sum_rel += piece.sum_rel;
  total->sum_sq += piece.sum_sq;
  total->dot += piece.dot, total->norm_a += piece.norm_a, total->norm_g += piece.norm_g;
  total->max_ulp = std::max(total->max_ulp, piece.max_ulp);
  total->max_abs_a = MaxWithNan(total->max_abs_a, piece.max_abs_a);
  total->max_abs_g = MaxWithNan(total->max_abs_g, piece.max_abs_g);
  for (int i = 0; i < 3; ++i) total->method.sums[i] += piece.method.sums[i];
  for (int i = 0; i < kHistogramBins; ++i) total->histogram[i] += piece.histogram[i];
  total->worst.insert(total->worst.end(), piece.worst.begin(), piece.worst.end());
  KeepWorst(&total->worst);
  for (const auto& cell : piece.grid_bad) total->grid_bad[cell.first] += cell.second;
}

Judgement Conclude(const JudgeInput& input, PieceStats stats) {
  const Method& method = *input.method;
  const Params params = method.params(input.expected_dtype, input.actual_dtype, input.tolerances);
  Judgement j;
  j.method = method.name;
  j.tool = method.tool;
  j.source = method.source;
  j.verdict = "pass";
  j.thresholds = params.shown;
  if (stats.elements == 0) {
    // Both empty (the shapes matched): TTK passes before any other check; msprobe's accuracy checker
    // reports SKIP ("There is not bench calculation result.") and counts the API as passed.
    if (std::string(method.tool) == "msprobe") j.reason = "skip: there is no bench result (empty)";
  } else if (method.same_dtype && input.actual_dtype != input.expected_dtype) {
    j.verdict = "fail";
    j.reason = std::string("cross-dtype not comparable: ") + Traits(input.actual_dtype).long_name + " against " +
               Traits(input.expected_dtype).long_name;
  } else {
    method.conclude(params, input.expected_dtype, stats, &j);
  }
  j.stats = std::move(stats);
  return j;
}

std::string Coordinates(const std::vector<int64_t>& shape, int64_t index) {
  std::vector<int64_t> at(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    at[d] = shape[d] == 0 ? 0 : index % shape[d];
    index = shape[d] == 0 ? 0 : index / shape[d];
  }
  return ShapeText(at);
}

std::string StatsLine(const Judgement& judgement, Dtype expected_dtype, Dtype actual_dtype,
                      const std::vector<int64_t>& shape) {
  const PieceStats& s = judgement.stats;
  const double finite = static_cast<double>(std::max<int64_t>(s.finite, 1));
  char text[512];
  std::snprintf(text, sizeof text,
                "%lld of %lld elements %s (%.4g%%)%s; max abs %.6g, max rel %.6g, mean rel %.6g, rmse %.6g, "
                "cosine %.9g, max ulp %.0f",
                static_cast<long long>(s.bad), static_cast<long long>(s.elements),
                judgement.method == "binary" ? "differ" : "over", Share(s.bad, s.elements) * 100.0,
                s.unbounded > 0 ? (", " + std::to_string(s.unbounded) + " NaN/Inf mismatches").c_str() : "", s.max_abs,
                s.max_rel, s.sum_rel / finite, std::sqrt(s.sum_sq / finite), Cosine(s), s.max_ulp);
  std::string line = text;
  if (!s.worst.empty()) {
    const WorstElement& w = s.worst.front();
    line += "; worst at " + Coordinates(shape, w.index) + " (index " + std::to_string(w.index) + "): expected " +
            ValueText(expected_dtype, w.expected_bits) + ", actual " + ValueText(actual_dtype, w.actual_bits);
  }
  return line;
}

std::string ShapeText(const std::vector<int64_t>& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

std::string ValueText(Dtype dtype, uint32_t bits) {
  char text[64];
  std::snprintf(text, sizeof text, dtype == Dtype::kFloat32 ? "%.9g (0x%08x)" : "%.9g (0x%04x)",
                static_cast<double>(golden::Widen(dtype, bits)), bits);
  return text;
}

}  // namespace case_runner
