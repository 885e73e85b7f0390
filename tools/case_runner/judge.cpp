#include "judge.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>

#include "golden/mse_loss_grad_golden.h"

namespace case_runner {
namespace {

void Count(int64_t index, uint32_t expected, uint32_t actual, PieceVerdict* verdict) {
  if (verdict->bad++ == 0) {
    verdict->first_bad = index;
    verdict->expected_bits = expected;
    verdict->actual_bits = actual;
  }
}

double Threshold(Dtype dtype, const Tolerance& tolerance) {
  switch (dtype) {
    case Dtype::kFloat32:
      return tolerance.fp32;
    case Dtype::kFloat16:
      return tolerance.fp16;
    case Dtype::kBFloat16:
      return tolerance.bf16;
  }
  return 0.0;
}

double SmallestNormal(Dtype dtype) {
  switch (dtype) {
    case Dtype::kFloat32:
    case Dtype::kBFloat16:  // bfloat16 has float32's exponent range
      return FLT_MIN;
    case Dtype::kFloat16:
      return 0x1.0p-14;
  }
  return FLT_MIN;
}

std::string Mismatch(Dtype expected_dtype, Dtype actual_dtype, const PieceVerdict& verdict) {
  return "index " + std::to_string(verdict.first_bad) + ": expected " +
         ValueText(expected_dtype, verdict.expected_bits) + ", actual " + ValueText(actual_dtype, verdict.actual_bits);
}

}  // namespace

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

PieceVerdict JudgeExact(Dtype dtype, const uint32_t* expected, const uint32_t* actual, int64_t count, int64_t first) {
  PieceVerdict verdict;
  verdict.elements = count;
  for (int64_t i = 0; i < count; ++i) {
    if (expected[i] == actual[i]) continue;
    if (std::isnan(golden::Widen(dtype, expected[i])) && std::isnan(golden::Widen(dtype, actual[i]))) continue;
    Count(first + i, expected[i], actual[i], &verdict);
  }
  return verdict;
}

PieceVerdict JudgeTolerance(Dtype expected_dtype, const uint32_t* expected, Dtype actual_dtype, const uint32_t* actual,
                            int64_t count, int64_t first, const Tolerance& tolerance) {
  PieceVerdict verdict;
  verdict.elements = count;
  const double rtol = Threshold(expected_dtype, tolerance);
  const double tiny = SmallestNormal(expected_dtype);
  for (int64_t i = 0; i < count; ++i) {
    const double e = golden::Widen(expected_dtype, expected[i]);
    const double a = golden::Widen(actual_dtype, actual[i]);
    bool ok;
    if (std::isnan(e) || std::isnan(a)) {
      ok = std::isnan(e) && std::isnan(a);
    } else if (std::isinf(e) || std::isinf(a)) {
      ok = e == a;
    } else {
      ok = std::fabs(a - e) / std::max(std::fabs(e), tiny) <= rtol;
    }
    if (!ok) Count(first + i, expected[i], actual[i], &verdict);
  }
  return verdict;
}

void Merge(const PieceVerdict& piece, PieceVerdict* total) {
  if (piece.bad > 0 && (total->bad == 0 || piece.first_bad < total->first_bad)) {
    total->first_bad = piece.first_bad;
    total->expected_bits = piece.expected_bits;
    total->actual_bits = piece.actual_bits;
  }
  total->elements += piece.elements;
  total->bad += piece.bad;
}

std::string ExactProblem(Dtype dtype, const PieceVerdict& verdict) {
  return verdict.bad == 0 ? "" : Mismatch(dtype, dtype, verdict);
}

std::string ToleranceProblem(Dtype expected_dtype, Dtype actual_dtype, const PieceVerdict& verdict,
                             const Tolerance& tolerance) {
  const double share = verdict.elements == 0 ? 0.0 : static_cast<double>(verdict.bad) / verdict.elements;
  if (share <= tolerance.max_share) return "";
  char text[200];
  std::snprintf(text, sizeof text, "%lld of %lld elements (%.4g%%) over rtol %g (allowed: %.4g%%); first at ",
                static_cast<long long>(verdict.bad), static_cast<long long>(verdict.elements), share * 100.0,
                Threshold(expected_dtype, tolerance), tolerance.max_share * 100.0);
  return text + Mismatch(expected_dtype, actual_dtype, verdict);
}

}  // namespace case_runner
