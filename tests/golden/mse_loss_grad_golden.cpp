#include "golden/mse_loss_grad_golden.h"

#include <cfenv>
#include <cmath>
#include <cstring>
#include <limits>

namespace golden {
namespace {

float FromBits32(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, 4);
  return value;
}

uint32_t ToBits32(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  return bits;
}

// Format of a binary float type: significand bits (with the implicit one), the smallest normal
// exponent, the largest finite value, and the bit layout.
struct Format {
  int precision;
  int min_exponent;  // of the smallest normal, as 2^min_exponent
  double max_finite;
  int mantissa_bits;
  int exponent_bias;
};

Format FormatOf(Dtype dtype) {
  if (dtype == Dtype::kFloat16) return Format{11, -14, 65504.0, 10, 15};
  return Format{8, -126, std::ldexp(255.0 / 128.0, 127), 7, 127};  // BF16
}

uint32_t Encode(const Format& f, bool negative, double magnitude) {
  const uint32_t sign = negative ? (1u << (f.mantissa_bits + (f.precision == 11 ? 5 : 8))) : 0u;
  const uint32_t exponent_mask = f.precision == 11 ? 0x1fu : 0xffu;
  if (std::isinf(magnitude)) return sign | (exponent_mask << f.mantissa_bits);
  if (magnitude == 0.0) return sign;
  int e = 0;
  std::frexp(magnitude, &e);  // magnitude = m * 2^e, m in [0.5, 1)
  const int unbiased = e - 1;
  if (unbiased < f.min_exponent) {  // subnormal: count units of the smallest subnormal
    const double units = std::ldexp(magnitude, -(f.min_exponent - f.mantissa_bits));
    return sign | static_cast<uint32_t>(units);
  }
  const double fraction = std::ldexp(magnitude, -unbiased) - 1.0;  // in [0, 1)
  const uint32_t mantissa = static_cast<uint32_t>(std::ldexp(fraction, f.mantissa_bits));
  return sign | (static_cast<uint32_t>(unbiased + f.exponent_bias) << f.mantissa_bits) | mantissa;
}

double Decode(const Format& f, uint32_t bits) {
  const int exponent_bits = f.precision == 11 ? 5 : 8;
  const bool negative = (bits >> (f.mantissa_bits + exponent_bits)) & 1u;
  const uint32_t exponent = (bits >> f.mantissa_bits) & ((1u << exponent_bits) - 1u);
  const uint32_t mantissa = bits & ((1u << f.mantissa_bits) - 1u);
  double magnitude;
  if (exponent == (1u << exponent_bits) - 1u) {
    magnitude = mantissa == 0 ? std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
  } else if (exponent == 0) {
    magnitude = std::ldexp(static_cast<double>(mantissa), f.min_exponent - f.mantissa_bits);
  } else {
    magnitude = std::ldexp(1.0 + std::ldexp(static_cast<double>(mantissa), -f.mantissa_bits),
                           static_cast<int>(exponent) - f.exponent_bias);
  }
  return negative ? -magnitude : magnitude;
}

int64_t Count(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

// Row-major index into `shape` (right-aligned to out) of the element at out coordinates `coord`.
int64_t SourceIndex(const std::vector<int64_t>& shape, const std::vector<int64_t>& out_shape,
                    const std::vector<int64_t>& coord) {
  int64_t index = 0;
  const size_t lead = out_shape.size() - shape.size();
  for (size_t d = 0; d < shape.size(); ++d) {
    const int64_t c = shape[d] == 1 ? 0 : coord[lead + d];
    index = index * shape[d] + c;
  }
  return index;
}

}  // namespace

float Widen(Dtype dtype, uint32_t bits) {
  if (dtype == Dtype::kFloat32) return FromBits32(bits);
  return static_cast<float>(Decode(FormatOf(dtype), bits));
}

uint32_t Narrow(Dtype dtype, float value) {
  if (dtype == Dtype::kFloat32) return ToBits32(value);
  const Format f = FormatOf(dtype);
  const uint32_t nan = dtype == Dtype::kFloat16 ? 0x7e00u : 0x7fc0u;
  if (std::isnan(value)) return nan;
  const bool negative = std::signbit(value);
  double magnitude = std::fabs(static_cast<double>(value));
  if (!std::isinf(magnitude) && magnitude != 0.0) {
    int e = 0;
    std::frexp(magnitude, &e);
    const int quantum_exponent = (e - 1 < f.min_exponent ? f.min_exponent : e - 1) - (f.precision - 1);
    // Exact in double; nearbyint rounds half to even in the default rounding mode.
    const double units = std::nearbyint(std::ldexp(magnitude, -quantum_exponent));
    magnitude = std::ldexp(units, quantum_exponent);
    if (magnitude > f.max_finite) magnitude = std::numeric_limits<double>::infinity();
  }
  return Encode(f, negative, magnitude);
}

bool BroadcastShape(const std::vector<std::vector<int64_t>>& shapes, std::vector<int64_t>* out) {
  size_t rank = 0;
  for (const auto& s : shapes) rank = s.size() > rank ? s.size() : rank;
  std::vector<int64_t> result(rank, 1);
  for (const auto& s : shapes) {
    const size_t lead = rank - s.size();
    for (size_t d = 0; d < s.size(); ++d) {
      int64_t& r = result[lead + d];
      if (s[d] == r || s[d] == 1) continue;
      if (r != 1) return false;
      r = s[d];
    }
  }
  *out = result;
  return true;
}

Tensor MseLossGrad(const Tensor& grad_output, const Tensor& self, const Tensor& target, int reduction,
                   Dtype out_dtype) {
  Tensor out;
  out.dtype = out_dtype;
  if (!BroadcastShape({grad_output.shape, self.shape, target.shape}, &out.shape)) return out;
  const int64_t n = Count(out.shape);
  const float cof = reduction == 1 ? static_cast<float>(2.0 / static_cast<double>(Count(self.shape))) : 2.0f;
  out.bits.resize(static_cast<size_t>(n));
  std::vector<int64_t> coord(out.shape.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    const float x = Widen(self.dtype, self.bits[SourceIndex(self.shape, out.shape, coord)]);
    const float y = Widen(target.dtype, target.bits[SourceIndex(target.shape, out.shape, coord)]);
    const float g = Widen(grad_output.dtype, grad_output.bits[SourceIndex(grad_output.shape, out.shape, coord)]);
    float d = x - y;
    d = d * cof;
    const float r = d * g;
    const float in_self_dtype = Widen(self.dtype, Narrow(self.dtype, r));
    out.bits[i] = Narrow(out_dtype, in_self_dtype);
    for (size_t k = coord.size(); k-- > 0;) {  // next coordinate, row-major
      if (++coord[k] < out.shape[k]) break;
      coord[k] = 0;
    }
  }
  return out;
}

}  // namespace golden
