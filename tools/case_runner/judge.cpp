#include "judge.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>

namespace case_runner {
namespace {

bool SameValue(golden::Dtype dtype, uint32_t expected, uint32_t actual) {
  return expected == actual || (std::isnan(golden::Widen(dtype, expected)) && std::isnan(golden::Widen(dtype, actual)));
}

std::string Mismatch(size_t index, const golden::Tensor& expected, const golden::Tensor& actual) {
  return "index " + std::to_string(index) + ": expected " + ValueText(expected.dtype, expected.bits[index]) +
         ", actual " + ValueText(actual.dtype, actual.bits[index]);
}

std::string SameLayout(const golden::Tensor& expected, const golden::Tensor& actual) {
  if (actual.shape != expected.shape) {
    return "shape " + ShapeText(actual.shape) + " differs from the expected " + ShapeText(expected.shape);
  }
  if (actual.bits.size() != expected.bits.size()) return "element count differs from the expected";
  return "";
}

}  // namespace

std::string ShapeText(const std::vector<int64_t>& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

std::string ValueText(golden::Dtype dtype, uint32_t bits) {
  char text[64];
  std::snprintf(text, sizeof text, dtype == golden::Dtype::kFloat32 ? "%.9g (0x%08x)" : "%.9g (0x%04x)",
                static_cast<double>(golden::Widen(dtype, bits)), bits);
  return text;
}

std::string CompareExact(const golden::Tensor& expected, const golden::Tensor& actual) {
  if (actual.dtype != expected.dtype) return "the output dtype differs from the expected";
  const std::string layout = SameLayout(expected, actual);
  if (!layout.empty()) return layout;
  for (size_t i = 0; i < expected.bits.size(); ++i) {
    if (!SameValue(expected.dtype, expected.bits[i], actual.bits[i])) return Mismatch(i, expected, actual);
  }
  return "";
}

std::string CompareTolerance(const golden::Tensor& expected, const golden::Tensor& actual, const Tolerance& tolerance) {
  const std::string layout = SameLayout(expected, actual);
  if (!layout.empty()) return layout;
  double rtol = tolerance.fp32, tiny = FLT_MIN;
  if (expected.dtype == golden::Dtype::kFloat16) {
    rtol = tolerance.fp16;
    tiny = 0x1.0p-14;  // float16's smallest normal
  } else if (expected.dtype == golden::Dtype::kBFloat16) {
    rtol = tolerance.bf16;  // bfloat16 has float32's exponent range
  }
  size_t over = 0, first = 0;
  for (size_t i = 0; i < expected.bits.size(); ++i) {
    const double e = golden::Widen(expected.dtype, expected.bits[i]);
    const double a = golden::Widen(actual.dtype, actual.bits[i]);
    bool ok;
    if (std::isnan(e) || std::isnan(a)) {
      ok = std::isnan(e) && std::isnan(a);
    } else if (std::isinf(e) || std::isinf(a)) {
      ok = e == a;
    } else {
      ok = std::fabs(a - e) / std::max(std::fabs(e), tiny) <= rtol;
    }
    if (!ok && over++ == 0) first = i;
  }
  const double share = expected.bits.empty() ? 0.0 : static_cast<double>(over) / expected.bits.size();
  if (share <= tolerance.max_share) return "";
  char text[160];
  std::snprintf(text, sizeof text, "%zu of %zu elements (%.4g%%) over rtol %g (allowed: %.4g%%); first at ", over,
                expected.bits.size(), share * 100.0, rtol, tolerance.max_share * 100.0);
  return text + Mismatch(first, expected, actual);
}

}  // namespace case_runner
